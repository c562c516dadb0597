package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"ocvist/agent"
	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/policy"
	"ocvist/search"
)

// agentKinds are the agents a game can be played against.
var agentKinds = []string{"search", "forest", "patterns"}

// moveTimes are the move times the page offers, in milliseconds.
var moveTimes = []int{200, 500, 1000, 2000, 5000, 10000}

// Bounds of a game's move time.
const (
	minMoveTime = 50 * time.Millisecond
	maxMoveTime = time.Minute
)

// ErrBusy: every search slot is taken and the queue is full.
var ErrBusy = errors.New("the engine is busy with other games; try again in a moment")

// engines bounds the server's searches: a slot is a pair of searchers
// (one with the root threat searches, one without, for the iterations
// after the first) that one search at a time uses.
type engines struct {
	slots    chan *slot
	waiting  atomic.Int64
	maxQueue int64
	nice     int
	running  atomic.Int64 // searches running now (for tests and the load test)
}

type slot struct {
	full, deep *search.Searcher
}

func newEngines(cfg Config) *engines {
	e := &engines{slots: make(chan *slot, cfg.MaxSearches), maxQueue: int64(cfg.MaxQueue), nice: cfg.Nice}
	deep := search.DefaultConfig()
	deep.RootVCF, deep.RootVCT, deep.RootProof = 0, 0, 0
	for range cfg.MaxSearches {
		e.slots <- &slot{full: search.New(search.DefaultConfig()), deep: search.New(deep)}
	}
	return e
}

// acquire waits for a slot in arrival order, or fails with ErrBusy when
// the queue is full, or with ctx's error.
func (e *engines) acquire(ctx context.Context) (*slot, error) {
	select {
	case s := <-e.slots:
		return s, nil
	default:
	}
	if e.waiting.Add(1) > e.maxQueue {
		e.waiting.Add(-1)
		return nil, &httpError{http.StatusServiceUnavailable, ErrBusy}
	}
	defer e.waiting.Add(-1)
	select {
	case s := <-e.slots:
		return s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Info is one finished search iteration as the page shows it.
type Info struct {
	Depth int       `json:"depth"`
	Score int       `json:"score"`          // from the mover's view
	Mate  int       `json:"mate,omitempty"` // plies to a forced end: > 0 the mover wins, < 0 loses
	Nodes int64     `json:"nodes"`
	MS    int64     `json:"ms"`
	Move  string    `json:"move"`
	PV    []string  `json:"pv"`
	Top   []TopMove `json:"top"`
	// Reason is the best move's reason in a player's words (explain and
	// the search's verdict).
	Reason string `json:"reason"`
	Side   string `json:"side"` // "x" or "o": who moves
}

// TopMove is a root move and its score; Bound when the score is an upper
// bound (the search proved only that the move is no better).
type TopMove struct {
	Move  string `json:"move"`
	Score int    `json:"score"`
	Mate  int    `json:"mate,omitempty"`
	Bound bool   `json:"bound,omitempty"`
	// P is an agent's own estimate for the move (forest: the chance the
	// mover wins; patterns: the chance it plays it); 0 for the search.
	P float64 `json:"p,omitempty"`
}

// maxTop is how many root moves an Info lists.
const maxTop = 8

// thinkLimits bound one think: nodes (deterministic) or time.
type thinkLimits struct {
	nodes    int64
	time     time.Duration
	exact    bool // every root move's score exact (analysis)
	analysis bool
}

// think searches pos for the side to move with ms's models, deepening
// one iteration per search call so that each finished iteration can be
// shown (emit, on the caller's goroutine); it returns the last finished
// iteration. The search runs on its own goroutine (a niced OS thread),
// waited for before think returns; ctx's end stops it at once.
func (e *engines) think(ctx context.Context, pos *patterns.Position, ms *modelSet, lim thinkLimits, emit func(Info)) (search.Result, error) {
	sl, err := e.acquire(ctx)
	if err != nil {
		return search.Result{}, err
	}
	defer func() { e.slots <- sl }()
	e.running.Add(1)
	defer e.running.Add(-1)
	infos := make(chan Info, 64)
	done := make(chan struct{})
	var best search.Result
	var serr error
	go func() {
		defer close(done)
		lowerPriority(e.nice)
		best, serr = deepen(ctx, sl, pos, ms, lim, infos)
	}()
	for {
		select {
		case inf := <-infos:
			emit(inf)
		case <-done:
			for {
				select {
				case inf := <-infos:
					emit(inf)
				default:
					return best, serr
				}
			}
		}
	}
}

// deepen is think's search: depth 1 with the root threat searches, then
// deeper iterations without them, each one search call, until the
// limits, a decided root or ctx's end.
func deepen(ctx context.Context, sl *slot, pos *patterns.Position, ms *modelSet, lim thinkLimits, out chan<- Info) (search.Result, error) {
	for _, s := range []*search.Searcher{sl.full, sl.deep} {
		s.Clear()
		pm, vm := ms.policy, ms.value
		s.SetPrior(func() search.Prior { return policy.NewPrior(pm) })
		if vm != nil {
			s.SetValue(func() search.Value { return policy.NewValuer(vm) })
		} else {
			s.SetValue(nil)
		}
	}
	start := time.Now()
	var best search.Result
	var used int64
	for d := 1; d <= search.MaxDepth; d++ {
		l := search.Limits{Depth: d, RootExact: lim.exact}
		if lim.nodes > 0 {
			l.Nodes = lim.nodes - used
		} else {
			l.Deadline = start.Add(lim.time)
		}
		s := sl.deep
		if d == 1 {
			s = sl.full
		}
		res, err := s.Search(ctx, pos, l)
		if err != nil {
			return best, err
		}
		used += res.Nodes
		if ctx.Err() != nil && d > 1 {
			break // stopped: this call's result may be a partial iteration
		}
		finished := res.Depth >= d || res.Depth == 0
		if finished || d == 1 {
			best = res
			best.Nodes, best.Elapsed = used, time.Since(start)
			out <- infoOf(pos, best, lim.exact)
		}
		switch {
		case ctx.Err() != nil, !finished, res.Depth == 0, search.IsMate(res.Score):
			return best, nil
		case lim.nodes > 0 && used >= lim.nodes:
			return best, nil
		case lim.nodes == 0 && time.Since(start) > lim.time/2:
			return best, nil // the next iteration would not finish
		}
	}
	return best, nil
}

// infoOf is the page's view of a search result on pos.
func infoOf(pos *patterns.Position, r search.Result, exact bool) Info {
	inf := Info{Depth: r.Depth, Score: r.Score, Mate: search.MatePlies(r.Score), Nodes: r.Nodes, MS: r.Elapsed.Milliseconds(),
		Move: r.Move.String(), PV: pointStrings(r.PV), Reason: moveReason(pos, r), Side: sideName(pos.Board().ToMove())}
	if len(inf.PV) == 0 {
		inf.PV = []string{inf.Move}
	}
	inf.Top = []TopMove{{Move: inf.Move, Score: r.Score, Mate: inf.Mate}}
	for _, m := range r.Root {
		if m.Move == r.Move || len(inf.Top) >= maxTop {
			continue
		}
		inf.Top = append(inf.Top, TopMove{Move: m.Move.String(), Score: m.Score, Mate: search.MatePlies(m.Score), Bound: !exact})
	}
	return inf
}

// agentMove plays one move for an agent that does not search (forest,
// patterns): the move, and an Info with its reason and the agent's own
// ranking as the top moves.
func agentMove(ctx context.Context, a agent.Agent, b *gomoku.Board) (gomoku.Point, Info, error) {
	q, err := a.Move(ctx, b, gomoku.Clock{}) // no clock: forest and patterns answer at once
	if err != nil {
		return q, Info{}, err
	}
	pos := patterns.FromBoard(b)
	inf := Info{Move: q.String(), PV: []string{q.String()}, Side: sideName(b.ToMove())}
	inf.Reason = cmp.Or(explain(pos, q), "a quiet move")
	if rk, ok := a.(agent.Ranker); ok {
		ranked := rk.Rank(b)
		for i, s := range ranked {
			if i == maxTop {
				break
			}
			inf.Top = append(inf.Top, TopMove{Move: s.Point.String(), P: s.Score})
		}
		if len(ranked) > 0 && ranked[0].Level != "" {
			inf.Reason += fmt.Sprintf(" (%s: %s)", a.Name(), ranked[0].Level)
		}
	}
	return q, inf, nil
}

func pointStrings(ps []gomoku.Point) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func sideName(p gomoku.Player) string {
	switch p {
	case gomoku.Black:
		return "x"
	case gomoku.White:
		return "o"
	}
	return ""
}
