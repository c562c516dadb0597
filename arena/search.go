package arena

import (
	"context"
	"fmt"
	"strings"
	"time"

	"ocvist/agent"
	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/policy"
	"ocvist/search"
)

// SearchConfig configures a Search agent.
type SearchConfig struct {
	Name string // shown in results; "" means "search"
	// Engine is the search's configuration; zero: search.DefaultConfig().
	// Its PriorDepth and ValueScale say where and how much the models
	// below count.
	Engine search.Config
	// Nodes and Depth bound every move (deterministic play); with neither,
	// the search's time manager decides the move's time from the clock
	// Move is given (without one: its context's deadline as a turn limit,
	// else DefaultTurn).
	Nodes int64
	Depth int
	// Model, if set, ranks moves for the search (a learned prior).
	Model *policy.Model
	// Value, if set, adds the value model's estimate to every evaluation.
	Value     *policy.ValueModel
	HintNodes int64 // the node budget of Rank (hints); 0 means 300,000
	// ByRule, if set, gives the models of a rule's games in place of Model
	// and Value (the shipped renju models beside the freestyle ones).
	ByRule map[gomoku.Rule]Models
	// AnyRule lets the models serve a game under a rule they were not
	// fitted for rather than refuse it; the agent's Notice says so. Their
	// features are read from the game's own shapes, and freestyle and
	// standard differ only in overlines: under standard, 100 ms a move,
	// the search over the shipped freestyle models scored 66.1% against
	// the search without models (400 paired games from generated openings,
	// gen-seed 75; pair score 95% interval 62.3–69.9%).
	AnyRule bool
}

// Models are a policy and a value model that play together (either may
// be nil).
type Models struct {
	Policy *policy.Model
	Value  *policy.ValueModel
}

// Search plays the alpha-beta engine of package search.
type Search struct {
	cfg    SearchConfig
	s      *search.Searcher
	models Models // the searcher's
	pos    patterns.Position
	last   search.Result
	notice string

	report   func(search.Result) // SetReport
	capNodes int64               // SetLimits
	capDepth int
}

// NewSearch returns a Search agent.
func NewSearch(cfg SearchConfig) (*Search, error) {
	if cfg.Name == "" {
		cfg.Name = "search"
	}
	if cfg.Engine.Width == nil {
		cfg.Engine = search.DefaultConfig()
	}
	a := &Search{cfg: cfg, s: search.New(cfg.Engine)}
	a.use(Models{cfg.Model, cfg.Value})
	return a, nil
}

// use makes the searcher play with ms.
func (a *Search) use(ms Models) {
	if m := ms.Policy; m != a.models.Policy {
		if m == nil {
			a.s.SetPrior(nil)
		} else {
			a.s.SetPrior(func() search.Prior { return policy.NewPrior(m) })
		}
	}
	if v := ms.Value; v != a.models.Value {
		if v == nil {
			a.s.SetValue(nil)
		} else {
			a.s.SetValue(func() search.Value { return policy.NewValuer(v) })
		}
	}
	a.models = ms
}

// Name is the configured name.
func (a *Search) Name() string { return a.cfg.Name }

// NewGame forgets the previous game's tables and takes the models of the
// rule (ByRule's, else Model and Value). It refuses a rule the models were
// not fitted for, unless AnyRule.
func (a *Search) NewGame(rule gomoku.Rule) error {
	a.s.Clear()
	a.notice = ""
	ms, ok := a.cfg.ByRule[rule]
	if !ok {
		ms = Models{a.cfg.Model, a.cfg.Value}
	}
	a.use(ms)
	var err error
	if m := ms.Policy; m != nil {
		err = m.Check(rule)
	}
	if v := ms.Value; v != nil && err == nil {
		err = v.Check(rule)
	}
	if err != nil && a.cfg.AnyRule {
		a.notice = fmt.Sprintf("%s: models fitted for another rule serve this %s game (%v)", a.cfg.Name, rule, err)
		return nil
	}
	return err
}

// Notice is what the user should know about the game NewGame accepted:
// models serving a rule they were not fitted for (AnyRule), or "".
func (a *Search) Notice() string { return a.notice }

// Close does nothing.
func (a *Search) Close() error { return nil }

// SetThreads sets how many threads the search uses (search.Config.Threads;
// Gomocup's INFO thread_num). Not during a move.
func (a *Search) SetThreads(n int) { a.s.SetThreads(n) }

// Last is the result of the last Move or Rank.
func (a *Search) Last() search.Result { return a.last }

// DefaultTurn is the turn limit of a Search's move that has neither a
// clock nor a context deadline.
const DefaultTurn = time.Second

// Move searches within the configured limits, or passes the clock to the
// search's time manager. A cancelled context stops the search with its
// best move so far (Gomocup's YXSTOP), also one cancelled before Move is
// called.
func (a *Search) Move(ctx context.Context, b *gomoku.Board, clock gomoku.Clock) (gomoku.Point, error) {
	res, err := a.search(ctx, b, a.limits(ctx, clock))
	if err != nil {
		return gomoku.NoPoint, err
	}
	return res.Move, nil
}

// Analyze searches b as Move does, with every root move scored exactly
// (search.Limits.RootExact): the result's Root lists the moves searched
// best first, for a multi-PV answer (Yixin's YXNBEST) or a swap2 choice.
func (a *Search) Analyze(ctx context.Context, b *gomoku.Board, clock gomoku.Clock) (search.Result, error) {
	lim := a.limits(ctx, clock)
	lim.RootExact = true
	return a.search(ctx, b, lim)
}

// limits are a move's search limits: the configured ones, or the clock
// (without one: the context's deadline as a turn limit, else
// DefaultTurn), within SetLimits' bounds, reporting to SetReport's
// function.
func (a *Search) limits(ctx context.Context, clock gomoku.Clock) search.Limits {
	lim := search.Limits{Nodes: a.cfg.Nodes, Depth: a.cfg.Depth}
	if lim.Nodes == 0 && lim.Depth == 0 {
		lim.Clock = clock
		if !clock.Limited() {
			lim.Clock = gomoku.Clock{Start: time.Now(), Turn: DefaultTurn}
			if dl, ok := ctx.Deadline(); ok {
				lim.Clock.Turn = max(time.Until(dl), time.Nanosecond)
			}
		}
	}
	if n := a.capNodes; n > 0 && (lim.Nodes == 0 || n < lim.Nodes) {
		lim.Nodes = n
	}
	if d := a.capDepth; d > 0 && (lim.Depth == 0 || d < lim.Depth) {
		lim.Depth = d
	}
	if a.report != nil {
		lim.Report, lim.ReportEvery = a.report, ReportEvery
	}
	return lim
}

// ReportEvery is how often a search reports while an iteration runs
// (SetReport).
const ReportEvery = time.Second

// SetReport makes later moves report the search's best line as it goes
// (search.Limits.Report): after each iteration and at least every
// ReportEvery. nil stops the reports. Not during a move.
func (a *Search) SetReport(f func(search.Result)) { a.report = f }

// SetLimits bounds later moves by nodes and depth besides the clock
// (Gomocup's INFO max_node and max_depth); 0 lifts a bound. Not during
// a move.
func (a *Search) SetLimits(nodes int64, depth int) { a.capNodes, a.capDepth = nodes, depth }

// SetTableBytes sizes the transposition table to at most n bytes
// (Gomocup's INFO hash_size, or a share of max_memory), emptying it; 0
// restores the default size. Not during a move.
func (a *Search) SetTableBytes(n int64) { a.s.SetTableBytes(n) }

// ClearTables forgets the transposition tables (Yixin's YXHASHCLEAR).
// Not during a move.
func (a *Search) ClearTables() { a.s.Clear() }

func (a *Search) search(ctx context.Context, b *gomoku.Board, lim search.Limits) (search.Result, error) {
	a.pos.Reset(b)
	res, err := a.s.Search(ctx, &a.pos, lim)
	if err != nil {
		return res, fmt.Errorf("%s: %w", a.cfg.Name, err)
	}
	a.last = res
	return res, nil
}

// ProvedWin reports whether the last move was played on a proved win (a
// mate score for the side that moved); see agent.Prover.
func (a *Search) ProvedWin() bool { return search.MatePlies(a.last.Score) > 0 }

// Rank searches the position (HintNodes nodes) and lists the root moves
// best first with their scores; the best move's Level tells why it is
// played and the line the search expects.
func (a *Search) Rank(b *gomoku.Board) []agent.Scored {
	n := a.cfg.HintNodes
	if n == 0 {
		n = 300_000
	}
	res, err := a.search(context.Background(), b, search.Limits{Nodes: n})
	if err != nil {
		return nil
	}
	why := res.Reason
	if len(res.PV) > 1 {
		why += "; line " + lineText(res.PV)
	}
	out := []agent.Scored{{Point: res.Move, Score: float64(res.Score), Level: why}}
	for _, m := range res.Root {
		if m.Move != res.Move {
			out = append(out, agent.Scored{Point: m.Move, Score: float64(m.Score), Level: "searched"})
		}
	}
	return out
}

func lineText(pv []gomoku.Point) string {
	s := make([]string, len(pv))
	for i, p := range pv {
		s[i] = p.String()
	}
	return strings.Join(s, " ")
}
