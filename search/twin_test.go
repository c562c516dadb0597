package search

import (
	"context"
	"math/rand/v2"
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// randomPositions returns n unfinished freestyle positions of lo to hi
// stones from seeded play among the filter's candidates (so threats are
// common).
func randomPositions(seed uint64, n, lo, hi int) []*patterns.Position {
	return rulePositions(gomoku.Freestyle, seed, n, lo, hi)
}

// rulePositions is randomPositions under rule.
func rulePositions(rule gomoku.Rule, seed uint64, n, lo, hi int) []*patterns.Position {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var out []*patterns.Position
	var res patterns.Result
	for len(out) < n {
		pos := patterns.NewPosition(gomoku.Options{Rule: rule})
		stop := lo + rng.IntN(hi-lo+1)
		for pos.Board().Stones() < stop && !pos.Board().Over() {
			res = patterns.Filter(pos, pos.Board().ToMove(), patterns.Config{NoMiniForce: true}, res)
			if rng.IntN(4) == 0 && pos.Board().Stones() > 0 { // some plain radius moves, for quieter positions
				c := pos.Board().Candidates(nil)
				res.Moves = c
			}
			if pos.Play(res.Moves[rng.IntN(len(res.Moves))]) != nil {
				break
			}
		}
		if !pos.Board().Over() {
			out = append(out, pos)
		}
	}
	return out
}

// twinConfig switches off everything that may change a value rather than
// the order of the moves: reductions, extensions, the cuts by the
// evaluation, the VCF probes and the root threat searches. Widths stay:
// they depend on the position only.
func twinConfig() Config {
	c := DefaultConfig()
	c.NoLMR, c.NoExtensions = true, true
	c.RFPDepth, c.RazorDepth, c.FHRMargin = 0, 0, 0
	c.NodeVCF, c.LeafVCF, c.RootVCF, c.RootVCT = 0, 0, 0, 0
	c.Width = []int{1, 5, 6, 7}
	c.RootWidth = 8
	c.TTBits = 12 // small: replacements and collisions of the bucket index happen
	return c
}

// minimax is the slow twin of pvs: the same end rules, moves and
// evaluation, every move searched with no window and no table. When every
// move of a cut list loses, the rest are searched too, in rest's order,
// until one does not lose (extras counts those nodes).
func minimax(s *Searcher, depth, ply int, extras *int) int {
	if v, ok := s.endScore(ply); ok {
		return v
	}
	p := s.pos
	me := p.Board().ToMove()
	if depth <= 0 {
		return s.evaluate(me)
	}
	gen, complete := s.generate(ply, depth, me, s.width(depth), gomoku.NoPoint)
	moves := append([]scored(nil), gen...)
	best := -Inf
	for _, m := range moves {
		p.Play(m.p)
		best = max(best, -minimax(s, depth-1, ply+1, extras))
		p.Undo()
	}
	if complete || best > -mateBound {
		return best
	}
	*extras++
	for _, m := range append([]scored(nil), s.rest(ply, me, moves)...) {
		p.Play(m.p)
		best = max(best, -minimax(s, depth-1, ply+1, extras))
		p.Undo()
		if best > -mateBound {
			break
		}
	}
	return best
}

// TestAlphaBetaMatchesMinimax: on 2,000+ seeded freestyle positions and
// 500+ standard ones the alpha-beta with its transposition table (kept
// across the positions, so stale and colliding entries are met) gives
// exactly the minimax value at depths 1 to 3 (and 1 to 5 with narrow
// widths), lost nodes whose cut move
// lists are searched on (rest) among them.
func TestAlphaBetaMatchesMinimax(t *testing.T) {
	runRules(t, []ruleCase{{gomoku.Freestyle, 1, 2400, 2000, 300, 200}, {gomoku.Standard, 31, 600, 500, 150, 100}},
		4, 36, alphaBetaMatchesMinimax)
}

// ruleCase is one rule's share of a test over seeded positions: n
// positions (shortN with -short) of which want (short) must be checked.
type ruleCase struct {
	rule          gomoku.Rule
	seed          uint64
	n, want       int
	shortN, short int
}

// runRules runs check, as a subtest per rule, on each case's positions of
// lo to hi stones.
func runRules(t *testing.T, cases []ruleCase, lo, hi int, check func(*testing.T, []*patterns.Position, int)) {
	for _, c := range cases {
		n, want := c.n, c.want
		if testing.Short() {
			n, want = c.shortN, c.short
		}
		t.Run(c.rule.String(), func(t *testing.T) { check(t, rulePositions(c.rule, c.seed, n, lo, hi), want) })
	}
}

func alphaBetaMatchesMinimax(t *testing.T, positions []*patterns.Position, want int) {
	narrow := twinConfig()
	narrow.Width, narrow.RootWidth = []int{1, 1, 2, 2, 2}, 3 // cut lists that all lose are met more often
	for _, c := range []struct {
		name     string
		cfg      Config
		maxDepth int
	}{{"twin widths", twinConfig(), 3}, {"narrow widths", narrow, 5}} {
		t.Run(c.name, func(t *testing.T) { alphaBetaMatchesMinimaxWith(t, positions, want, c.cfg, c.maxDepth) })
	}
}

func alphaBetaMatchesMinimaxWith(t *testing.T, positions []*patterns.Position, want int, cfg Config, maxDepth int) {
	s, twin := New(cfg), New(cfg)
	checked, mates, extras := 0, 0, 0
	for i, pos := range positions {
		d := 1 + i%maxDepth
		before := pos.Board().String()
		res, err := s.Search(context.Background(), pos, Limits{Depth: d})
		if err != nil {
			t.Fatal(err)
		}
		if pos.Board().String() != before {
			t.Fatalf("position %d: search did not restore the board", i)
		}
		if res.Depth == 0 {
			continue // decided by rule at the root (a five, a block, an open four)
		}
		twin.pos = pos
		twin.rootMoves(pos.Board().ToMove())
		want := -Inf
		for _, m := range twin.rootMv {
			pos.Play(m.p)
			want = max(want, -minimax(twin, res.Depth-1, 1, &extras))
			pos.Undo()
		}
		if want <= -mateBound && !twin.rootAll { // a lost root searches all its moves
			extras++
			for _, m := range twin.rest(0, pos.Board().ToMove(), twin.rootMv) {
				pos.Play(m.p)
				want = max(want, -minimax(twin, res.Depth-1, 1, &extras))
				pos.Undo()
			}
		}
		if res.Score != want {
			t.Fatalf("position %d depth %d:\n%s\nalpha-beta %d, minimax %d", i, res.Depth, pos.Board(), res.Score, want)
		}
		if IsMate(want) {
			mates++
		}
		checked++
	}
	t.Logf("%d positions compared (%d with mate scores, %d lost nodes searched on)", checked, mates, extras)
	if extras == 0 && maxDepth >= 5 {
		t.Errorf("no lost node searched on: the check of rest is empty")
	}
	if checked < want {
		t.Fatalf("only %d of %d positions reached the alpha-beta, want %d", checked, len(positions), want)
	}
}

// TestNodeLimitDeterministic: node-limited searches repeat exactly, from a
// fresh searcher each time.
func TestNodeLimitDeterministic(t *testing.T) {
	for i, pos := range randomPositions(2, 40, 10, 40) {
		var first Result
		for k := range 2 {
			s := New(DefaultConfig())
			res, err := s.Search(context.Background(), pos, Limits{Nodes: 3000})
			if err != nil {
				t.Fatal(err)
			}
			res.Elapsed = 0
			if k == 0 {
				first = res
				continue
			}
			if res.Move != first.Move || res.Score != first.Score || res.Nodes != first.Nodes || res.Depth != first.Depth {
				t.Fatalf("position %d: %+v then %+v", i, first, res)
			}
		}
		if first.Nodes > 3000+3000/4*2+200 {
			t.Errorf("position %d: %d nodes for a 3000-node limit", i, first.Nodes)
		}
	}
}

// TestPositionsCount: with the threat searches off, every node is one
// stone put, so Positions equals Nodes; with them on, a VCF node puts the
// attacking stone and the reply, or none when the VCF's table settles it.
// Either way the position's counter moves by exactly Positions.
func TestPositionsCount(t *testing.T) {
	for i, pos := range randomPositions(5, 20, 10, 40) {
		for _, cfg := range []Config{twinConfig(), DefaultConfig()} {
			before := pos.Puts()
			res, err := New(cfg).Search(context.Background(), pos, Limits{Depth: 3})
			if err != nil {
				t.Fatal(err)
			}
			if got := int64(pos.Puts() - before); got != res.Positions {
				t.Fatalf("position %d: %d stones put, Positions %d", i, got, res.Positions)
			}
			if cfg.NodeVCF == 0 && res.Positions != res.Nodes {
				t.Errorf("position %d, no threat search: %d positions, %d nodes", i, res.Positions, res.Nodes)
			}
		}
	}
}

// stoppingPrior cancels its searcher's context on its n-th call and
// notes how many stones the position had seen put by then.
type stoppingPrior struct {
	cancel    context.CancelFunc
	n, calls  int
	putsAtEnd uint64
}

func (p *stoppingPrior) Scores(pos *patterns.Position, moves []gomoku.Point, out []float64) {
	p.calls++
	if p.calls == p.n {
		p.cancel()
		p.putsAtEnd = pos.Puts()
	}
}

// TestStopAfterPrior: the clock is polled right after the prior (which
// costs as much as thousands of nodes), so a search whose time ran out
// while the prior was scoring puts at most one more stone, the node's first
// move, before it stops.
func TestStopAfterPrior(t *testing.T) {
	checked := 0
	for i, pos := range randomPositions(11, 10, 10, 30) {
		cfg := DefaultConfig()
		cfg.PriorDepth = 1
		s := New(cfg)
		ctx, cancel := context.WithCancel(context.Background())
		pr := &stoppingPrior{cancel: cancel, n: 6}
		s.SetPrior(func() Prior { return pr })
		before := pos.Puts()
		res, err := s.Search(ctx, pos, Limits{Depth: 8})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if pr.calls < pr.n {
			continue // decided before the sixth node
		}
		checked++
		if after := before + uint64(res.Positions) - pr.putsAtEnd; after > 1 || pr.calls != pr.n {
			t.Errorf("position %d: %d stones put and %d prior calls after the stop", i, after, pr.calls-pr.n)
		}
	}
	if checked < 5 {
		t.Errorf("only %d of 10 searches reached the prior's sixth call", checked)
	}
}

// TestStoppedBeforeStart: a search whose context is done before Search is
// called (a YXSTOP that came before the engine began) returns at once,
// though nothing else limits it, with a legal move: the best-ranked one
// (or the rule's), after no more than the first poll's nodes, and no
// threat search (a VCF cannot be stopped).
func TestStoppedBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := New(DefaultConfig())
	for i, pos := range randomPositions(23, 30, 6, 40) {
		before := pos.Board().String()
		res, err := s.Search(ctx, pos, Limits{}) // no limit: only ctx ends it
		if err != nil {
			t.Fatal(err)
		}
		if pos.Board().String() != before {
			t.Fatalf("position %d: the board was not restored", i)
		}
		if !res.Move.Valid() || pos.Board().At(res.Move) != gomoku.Empty {
			t.Fatalf("position %d: illegal move %v (%s)", i, res.Move, res.Reason)
		}
		if res.Depth > 0 || res.Nodes > 1 {
			t.Errorf("position %d: a stopped search went on: depth %d, %d nodes (%s)", i, res.Depth, res.Nodes, res.Reason)
		}
	}
}

// TestThreads: a search on several threads (Lazy SMP) plays a legal
// move, restores the board, counts every thread's nodes, keeps to a node
// limit within the threads' polls, and announces only wins whose line
// gomoku's referee accepts. (Run with -race: the threads share only the
// transposition table, whose slots are atomic.)
func TestThreads(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TTBits = 14 // small: the threads overwrite each other's slots
	positions := randomPositions(29, 24, 8, 40)
	if testing.Short() {
		positions = positions[:8]
	}
	for _, threads := range []int{2, 4} {
		cfg.Threads = threads
		s := New(cfg)
		wins := 0
		for i, pos := range positions {
			before := pos.Board().String()
			s.Clear()
			const nodes = 20_000
			res, err := s.Search(context.Background(), pos, Limits{Nodes: nodes})
			if err != nil {
				t.Fatal(err)
			}
			if pos.Board().String() != before {
				t.Fatalf("%d threads, position %d: the board was not restored", threads, i)
			}
			if !res.Move.Valid() || pos.Board().At(res.Move) != gomoku.Empty {
				t.Fatalf("%d threads, position %d: illegal move %v", threads, i, res.Move)
			}
			if res.Depth > 0 && (res.Nodes > nodes+int64(threads)*(256+int64(cfg.LineNodes)+2*int64(cfg.NodeVCF)) || res.Nodes < 0) {
				t.Errorf("%d threads, position %d: %d nodes for a limit of %d", threads, i, res.Nodes, nodes)
			}
			if MatePlies(res.Score) > 0 {
				wins++
				if why := refereeLine(pos.Board(), res.PV); why != "" {
					t.Errorf("%d threads, position %d: %s, line %v: %s", threads, i, res.Reason, res.PV, why)
				}
			}
		}
		t.Logf("%d threads: %d wins announced", threads, wins)
		s.SetThreads(1)
		if s.Threads() != 1 {
			t.Errorf("SetThreads(1): %d threads", s.Threads())
		}
	}
}
