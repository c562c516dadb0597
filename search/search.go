package search

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// Prior ranks candidate moves with a learned policy: Scores writes one
// score per move into out (higher is better, in [0, 1]). It is consulted
// at the root and at nodes with at least Config.PriorDepth plies left,
// where it is blended into the pattern ranking; it may be slow
// (microseconds a move). It must not change pos.
type Prior interface {
	Scores(pos *patterns.Position, moves []gomoku.Point, out []float64)
}

// Value estimates the chance that the side to move wins (in [0, 1]); the
// evaluation adds Config.ValueScale·(v − ½). It must not change pos.
type Value interface {
	Value(pos *patterns.Position) float64
}

// Limits bound one search. Zero fields mean no limit; with none at all the
// search runs to MaxDepth (or until its context is done).
type Limits struct {
	Depth int   // deepest iteration
	Nodes int64 // stop once this many nodes are searched (deterministic)
	// Clock is the game's time control at this move, as the manager
	// states it: the time manager (time.go) decides from it how long the
	// move thinks. Zero: no time limit.
	Clock gomoku.Clock
	// Deadline, if set, is a hard end (abort the running iteration);
	// alone, the search thinks until it (analysis). Games pass Clock.
	Deadline time.Time
	// RootExact searches every root move with a full window, so Root
	// holds exact scores for all of them (the learning loop's teacher
	// needs them; it costs nodes).
	RootExact bool
	// Report, if set, is called on the searching goroutine with the best
	// line so far (Nodes and Elapsed as of the call): after each finished
	// iteration, after a root settled by rule or threat search, and every
	// ReportEvery (if not 0) while an iteration runs. It must return
	// quickly and may keep the Result.
	Report      func(Result)
	ReportEvery time.Duration
}

// MaxDepth is the deepest iteration.
const MaxDepth = 60

// RootMove is a root move and its score from the last finished iteration:
// exact for the best move (and for all with Limits.RootExact), otherwise
// an upper bound.
type RootMove struct {
	Move  gomoku.Point
	Score int
}

// Result is what Search found.
type Result struct {
	Move  gomoku.Point
	Score int // from the mover's view; see IsMate
	Depth int // last finished iteration (0 when a threat search decided)
	Nodes int64
	// Positions counts the positions the search made to search them
	// (patterns.Position.Puts), every ply of its threat searches
	// included: what engines such as Rapfi count as nodes. Nodes, the
	// budget Limits.Nodes bounds, counts a VCF's attacking four and the
	// forced block as one, also when the VCF's table settles them without
	// playing them (see patterns.VCF): in BenchmarkSearch's searches, a
	// third of the VCF steps, a fifth of all nodes.
	Positions int64
	PV        []gomoku.Point
	Root      []RootMove // best first
	Reason    string     // why the move: "makes five", "VCF win in 7", "blocks the four", "search depth 9" …
	Elapsed   time.Duration
	// Optimum and Maximum are the time manager's times for the move,
	// counted from Limits.Clock.Start (0 without a time limit).
	Optimum, Maximum time.Duration
	TTHits           float64 // the table's hit rate in this search
}

// ErrGameOver is returned for a finished game.
var ErrGameOver = errors.New("search: the game is over")

const (
	maxPly   = 128
	maxMoves = gomoku.NumCells
)

type scored struct {
	p     gomoku.Point
	score int32
}

// Searcher is an engine instance: configuration, tables and scratch. Use
// one per goroutine; a search is stopped through its context.
//
// With Config.Threads n > 1 a search runs n threads (Lazy SMP): the
// Searcher's own, the main thread, does the root's rules and threat
// searches, then iterates as one thread would, and decides when to stop
// and what to play; n − 1 helpers, each a Searcher of its own (position,
// move lists, killers, history, no-VCF table, models) sharing only the
// transposition table, search the same root meanwhile, each helper every
// other depth (helper i the depths d with d + i even), so that they run
// ahead of the main thread and fill the table with the deeper results it
// then finds. The helpers are stopped when the main thread is done.
type Searcher struct {
	cfg      Config
	tt       *table // shared by the threads
	vcf      *patterns.VCFTable
	vct      vctSearch
	prior    Prior
	priorBuf []float64
	value    Value

	newPrior  func() Prior
	newValue  func() Value
	helpers   []*Searcher       // the other threads (main thread only), made when needed
	id        int               // 0: a main thread; i > 0: the i-th helper
	halt      *atomic.Bool      // helpers: the main thread is done
	total     *atomic.Int64     // the nodes of all threads of a search on several, as of their last polls
	published int64             // of this thread's nodes, those added to total
	ownPos    patterns.Position // helpers: their copy of the root
	puts0     uint64            // helpers: ownPos.Puts() at the start
	result    Result            // helpers: the last iteration they finished

	pos       *patterns.Position
	root      int // stones at the root
	nodes     int64
	nextCheck int64 // nodes at which pvs next polls timeUp
	lim       Limits
	done      <-chan struct{} // the search's context's Done
	aborted   bool
	clk       clock // the time manager's, for this search
	probes    int64 // table probes and hits of this search (Result.TTHits)
	hits      int64
	moves     [maxPly][maxMoves]scored
	pv        [maxPly + 1][maxPly + 1]gomoku.Point
	pvLen     [maxPly + 1]int
	killers   [maxPly][2]gomoku.Point
	history   [2][gomoku.NumCells]int32
	vcfLine   [2 * 64]gomoku.Point
	rootMv    []scored
	rootSc    []int
	rootAll   bool // rootMv holds every move that can matter
	lost      bool // an iteration found every root move lost
	pointBuf  []gomoku.Point

	started    time.Time // when Search began
	reported   Result    // the best line of the last finished iteration
	nextReport time.Time // when timeUp reports next (Limits.ReportEvery)
}

// New returns a Searcher with cfg (see DefaultConfig).
func New(cfg Config) *Searcher {
	def := DefaultConfig()
	if cfg.TTBits == 0 {
		cfg.TTBits = def.TTBits
	}
	if cfg.VCFTableBits == 0 {
		cfg.VCFTableBits = def.VCFTableBits
	}
	if len(cfg.Width) == 0 {
		cfg.Width = def.Width
	}
	if cfg.RootWidth == 0 {
		cfg.RootWidth = def.RootWidth
	}
	if cfg.VCTDepth == 0 {
		cfg.VCTDepth = def.VCTDepth
	}
	cfg.Threads = min(max(cfg.Threads, 1), MaxThreads)
	s := &Searcher{cfg: cfg, tt: newTable(cfg.TTBits, cfg.TTAgeWeight), vcf: patterns.NewVCFTable(cfg.VCFTableBits)}
	s.vct.vcfNodes, s.vct.vcfDepth = cfg.VCTVCFNodes, cfg.VCTVCFDepth
	return s
}

// SetPrior makes the search rank moves with a learned prior at the root
// and at nodes with at least Config.PriorDepth plies left: newPrior makes
// one for each thread (a Prior may keep scratch of its own); nil removes
// it.
func (s *Searcher) SetPrior(newPrior func() Prior) {
	s.newPrior, s.prior, s.helpers = newPrior, nil, nil
	if newPrior != nil {
		s.prior = newPrior()
	}
}

// SetValue adds Config.ValueScale·(v − ½) of a value model's v to every
// evaluation: newValue makes one for each thread; nil removes it.
func (s *Searcher) SetValue(newValue func() Value) {
	s.newValue, s.value, s.helpers = newValue, nil, nil
	if newValue != nil {
		s.value = newValue()
	}
}

// SetThreads sets how many threads search (Config.Threads; at least 1,
// at most MaxThreads). Not during a search.
func (s *Searcher) SetThreads(n int) {
	s.cfg.Threads = min(max(n, 1), MaxThreads)
	s.helpers = s.helpers[:min(len(s.helpers), s.cfg.Threads-1)]
}

// SetTableBytes sizes the transposition table to the largest power of
// two of buckets within n bytes (Config.TTBits; 16 bytes an entry, at
// least 4 and at most 2^28 buckets), empty. Not during a search.
func (s *Searcher) SetTableBytes(n int64) {
	bits := 4
	for bits < 28 && int64(16*bucketSize)<<(bits+1) <= n {
		bits++
	}
	s.cfg.TTBits = bits
	s.tt = newTable(bits, s.cfg.TTAgeWeight)
	s.helpers = nil // they share the table: made again with the new one
}

// Threads is how many threads search.
func (s *Searcher) Threads() int { return s.cfg.Threads }

// Clear forgets the transposition tables and move statistics (a new game).
func (s *Searcher) Clear() {
	s.tt.clear()
	for _, t := range append([]*Searcher{s}, s.helpers...) {
		t.vcf.Clear()
		t.history = [2][gomoku.NumCells]int32{}
	}
}

// Search finds a move for the side to move on pos within lim. pos is
// searched in place and restored before return. It fails only on a
// finished game.
//
// ctx stops it: once ctx is done (cancelled, or past its deadline) the
// search returns as soon as it can with the best move of its last
// finished iteration, or, if none finished, with the best-ranked legal
// move. The caller arms the stop before the search starts, by making
// ctx: a ctx cancelled before Search is called, or while it sets up, is
// never missed (Gomocup's YXSTOP that arrives before the engine began).
func (s *Searcher) Search(ctx context.Context, pos *patterns.Position, lim Limits) (Result, error) {
	b := pos.Board()
	if b.Over() {
		return Result{}, ErrGameOver
	}
	start, puts := time.Now(), pos.Puts()
	s.prepare(pos, lim, ctx.Done())
	s.started, s.reported, s.nextReport = start, Result{Move: gomoku.NoPoint}, start.Add(lim.ReportEvery)
	s.startClock(lim, start)
	s.tt.newSearch()
	var helperNodes, helperPuts int64
	res, ok := s.decided()
	if ok {
		s.report(res)
	} else {
		wait := s.startHelpers()
		res = s.iterate()
		helperNodes, helperPuts = wait()
		res = s.deepest(res)
		if res.Score >= mateBound {
			res.PV = s.mateLine(res.PV)
		}
	}
	res.Nodes, res.Positions = s.nodes+helperNodes, int64(pos.Puts()-puts)+helperPuts
	res.Elapsed = time.Since(start)
	res.Optimum, res.Maximum = s.clk.optimum, s.clk.maximum
	if s.probes > 0 {
		res.TTHits = float64(s.hits) / float64(s.probes)
	}
	return res, nil
}

// deepest is the main thread's result res, or a helper's if it finished
// a deeper iteration (helpers search every other depth, so one often
// finishes the next depth before the main thread stops): Lazy SMP's
// choice of the best thread. A proved win of the main thread, and a
// RootExact search's exact root scores, stay.
func (s *Searcher) deepest(res Result) Result {
	if res.Score >= mateBound || s.lim.RootExact {
		return res
	}
	for _, h := range s.helpers {
		if r := h.result; r.Depth > res.Depth && r.Move.Valid() && s.pos.Board().At(r.Move) == gomoku.Empty {
			res = r
			res.Reason += fmt.Sprintf(" (helper thread %d)", h.id)
		}
	}
	return res
}

// prepare sets a thread up for a search of pos within lim, stopped when
// done is closed.
func (s *Searcher) prepare(pos *patterns.Position, lim Limits, done <-chan struct{}) {
	s.pos, s.root, s.lim, s.nodes, s.nextCheck, s.aborted = pos, pos.Board().Stones(), lim, 0, 0, false
	s.done = done
	s.probes, s.hits = 0, 0
	s.killers = [maxPly][2]gomoku.Point{}
	for i := range s.history {
		for j := range s.history[i] {
			s.history[i][j] >>= s.cfg.HistoryAging
		}
	}
}

// startHelpers starts the helper threads on the root (see Searcher) and
// returns the function that halts them, waits for them and returns their
// nodes and positions. With one thread it starts nothing.
func (s *Searcher) startHelpers() (wait func() (nodes, positions int64)) {
	if s.cfg.Threads <= 1 {
		return func() (int64, int64) { return 0, 0 }
	}
	for len(s.helpers) < s.cfg.Threads-1 {
		h := &Searcher{cfg: s.cfg, tt: s.tt, vcf: patterns.NewVCFTable(s.cfg.VCFTableBits), id: len(s.helpers) + 1}
		if s.newPrior != nil {
			h.prior = s.newPrior()
		}
		if s.newValue != nil {
			h.value = s.newValue()
		}
		s.helpers = append(s.helpers, h)
	}
	halt, total := new(atomic.Bool), new(atomic.Int64)
	var wg sync.WaitGroup
	total.Store(s.nodes) // the main thread's root threat searches
	s.total, s.published = total, s.nodes
	for _, h := range s.helpers {
		h.ownPos.Reset(s.pos.Board())
		h.puts0 = h.ownPos.Puts()
		h.prepare(&h.ownPos, Limits{Nodes: s.lim.Nodes}, s.done) // RootExact is the main thread's
		h.clk, h.halt, h.total, h.published = clock{}, halt, total, 0
		wg.Add(1)
		go func() { // joined by wait, before Search returns
			defer wg.Done()
			h.result = h.iterate()
		}()
	}
	return func() (nodes, positions int64) {
		halt.Store(true)
		wg.Wait()
		s.total = nil
		for _, h := range s.helpers {
			nodes += h.nodes
			positions += int64(h.ownPos.Puts() - h.puts0)
		}
		return nodes, positions
	}
}

// decided settles the root by rule or by a threat search when it can.
// It runs once per search, at the root.
func (s *Searcher) decided() (Result, bool) {
	if r, ok := s.byRule(); ok {
		return r, true
	}
	return s.byThreats()
}

// byRule settles the root when a rule decides the move: the first stone
// in the centre, a five to make, the opponent's four to block (a loss if
// it has two five-points), an open four to make.
func (s *Searcher) byRule() (Result, bool) {
	p, b := s.pos, s.pos.Board()
	me := b.ToMove()
	opp := me.Other()
	switch {
	case b.Stones() == 0:
		return Result{Move: gomoku.Center, Reason: "opens in the centre"}, true
	case !p.Set(patterns.MakesFive, me).Empty():
		q := p.Set(patterns.MakesFive, me).First()
		return Result{Move: q, Score: Mate - 1, PV: []gomoku.Point{q}, Reason: "makes five"}, true
	case p.Count(patterns.MakesFive, opp) >= 1 && s.legal(me, p.Set(patterns.MakesFive, opp)).Empty():
		// Under Renju: Black may not block (the five-point is forbidden).
		q := s.legal(me, b.CandidateSet()).First()
		for c := gomoku.Point(0); q == gomoku.NoPoint && c < gomoku.NumCells; c++ {
			if b.At(c) == gomoku.Empty && !p.Forbidden(c) {
				q = c
			}
		}
		r := Result{Move: q, PV: []gomoku.Point{q}, Reason: "cannot block the four (its five-point is forbidden)"}
		if s.room(2) {
			r.Score, r.Reason = -(Mate - 2), r.Reason+": lost"
		}
		return r, true
	case p.Count(patterns.MakesFive, opp) >= 1:
		q := s.legal(me, p.Set(patterns.MakesFive, opp)).First()
		r := Result{Move: q, PV: []gomoku.Point{q}, Reason: "blocks the four at " + q.String()}
		if p.Count(patterns.MakesFive, opp) >= 2 && s.room(2) {
			r.Score, r.Reason = -(Mate - 2), "blocks one of two five-points: lost"
		}
		return r, true
	case !p.Set(patterns.MakesWin, me).Empty() && s.room(3):
		q := p.Set(patterns.MakesWin, me).First()
		return Result{Move: q, Score: Mate - 3, PV: s.openFourLine(q), Reason: "makes an open four"}, true
	}
	return Result{}, false
}

// byThreats settles the root when the side to move wins by continuous
// fours (VCF) or, failing that, by continuous threats (VCT), each within
// its node budget (see threatBudgets).
func (s *Searcher) byThreats() (Result, bool) {
	p, me := s.pos, s.pos.Board().ToMove()
	vcfNodes, vctNodes := s.threatBudgets()
	if s.stopped() { // a VCF cannot be stopped: none for a stopped search
		return Result{}, false
	}
	if vcfNodes > 0 && !p.Set(patterns.MakesFour, me).Empty() {
		line, ok, n := patterns.VCF(p, me, patterns.Limits{MaxNodes: vcfNodes, MaxDepth: s.cfg.RootVCFDepth, Table: s.vcf})
		s.nodes += int64(n)
		if ok {
			return Result{Move: line[0], Score: Mate - len(line), PV: line,
				Reason: fmt.Sprintf("wins by continuous fours (VCF) in %d", len(line))}, true
		}
	}
	if vctNodes > 0 {
		line, plies, n := s.vct.run(p, me, s.cfg.VCTDepth, vctNodes, s.vcf, s.timeUp)
		s.nodes += int64(n)
		if plies > 0 {
			return Result{Move: line[0], Score: Mate - plies, PV: line,
				Reason: fmt.Sprintf("wins by continuous threats (VCT) in %d", plies)}, true
		}
	}
	return Result{}, false
}

// threatBudgets are the root's VCF and VCT node budgets: the configured
// ones, cut to a share (Config.ThreatShare) of a node limit and of the
// time left.
func (s *Searcher) threatBudgets() (vcfNodes, vctNodes int) {
	c := &s.cfg
	vcfNodes, vctNodes = c.RootVCF, c.RootVCT
	if s.lim.Nodes > 0 { // keep node-limited searches within their budget
		n := int(s.lim.Nodes / int64(c.ThreatShare))
		vcfNodes, vctNodes = min(vcfNodes, n), min(vctNodes, n)
	}
	if s.clk.on { // and timed ones within a share of their time (VCF cannot be stopped)
		n := int(max(time.Until(s.clk.deadline).Milliseconds(), 1)) * c.ThreatNodesPerMS / c.ThreatShare
		vcfNodes, vctNodes = min(vcfNodes, n), min(vctNodes, n)
	}
	return vcfNodes, vctNodes
}

// openFourLine is the line after q, a move that leaves two five-points:
// q, the block of the first, the five at another.
func (s *Searcher) openFourLine(q gomoku.Point) []gomoku.Point {
	p := s.pos
	me := p.Board().ToMove()
	p.Play(q)
	block := p.Set(patterns.MakesFive, me).First()
	p.Play(block)
	five := p.Set(patterns.MakesFive, me).First()
	p.Undo()
	p.Undo()
	return []gomoku.Point{q, block, five}
}

// iterate runs the iterative deepening and returns the last finished
// iteration's result.
func (s *Searcher) iterate() Result {
	me := s.pos.Board().ToMove()
	s.rootMoves(me)
	best := Result{Move: s.rootMv[0].p, Score: 0, Reason: "ranked first (no iteration finished)"}
	maxD := MaxDepth
	if s.lim.Depth > 0 {
		maxD = min(s.lim.Depth, MaxDepth)
	}
	for d := 1; d <= maxD; d++ {
		if s.id > 0 && (d+s.id)%2 != 0 {
			continue // a helper's depths: see Searcher
		}
		score := s.searchRoot(d)
		if s.aborted {
			break
		}
		best = s.rootResult(d, score)
		s.report(best)
		if score >= mateBound || len(s.rootMv) == 1 && d >= s.cfg.OneMoveDepth {
			break // a proved win, a forced move: play it now
		}
		// A lost root is not given up: the search goes on deepening with
		// the time it has, every root move in a full window, for the
		// defence that holds out longest (see searchRoot), starting with
		// this depth again.
		if score <= -mateBound && !s.lost {
			s.lost = true
			if score = s.searchRoot(d); !s.aborted {
				best = s.rootResult(d, score)
				s.report(best)
			}
		}
		if s.enough(best.Move, best.Score) {
			break
		}
	}
	return best
}

// rootMoves lists the root's moves, best-ranked first (RootWidth of them
// unless forced; rootAll tells whether they are all, see generate).
func (s *Searcher) rootMoves(me gomoku.Player) {
	ms, all := s.generate(0, 99, me, s.cfg.RootWidth, gomoku.NoPoint)
	s.rootMv, s.rootAll, s.lost = append(s.rootMv[:0], ms...), all, false
	s.rootSc = s.rootSc[:0]
	for range s.rootMv {
		s.rootSc = append(s.rootSc, -Inf)
	}
}

// addRootRest appends the root's other moves (rest), once every move
// searched has lost: the root is lost only if they all lose too.
func (s *Searcher) addRootRest() {
	for _, m := range s.rest(0, s.pos.Board().ToMove(), s.rootMv) {
		s.rootMv = append(s.rootMv, m)
		s.rootSc = append(s.rootSc, -Inf)
	}
	s.rootAll = true
}

// searchRoot searches every root move at depth d, reorders them by score
// (stable) and returns the best score. With Limits.RootExact, and when
// the root is lost (every move loses), it searches every move once in a
// full window (before 2026-11-25 RootExact searched each move twice, in
// the window of the best score so far, then in full), and among the moves
// that hold out equally long it puts first those that make a four, then
// a three: defences the opponent must answer, that give a weaker search
// the most chances to go wrong.
func (s *Searcher) searchRoot(d int) int {
	p := s.pos
	alpha := -Inf
	for i := 0; i < len(s.rootMv); i++ {
		m := s.rootMv[i]
		p.Play(m.p)
		s.nodes++
		var sc int
		if s.lost || s.lim.RootExact { // every move's exact score
			sc = -s.pvs(d-1, 1, -Inf, Inf)
		} else if i == 0 {
			sc = -s.pvs(d-1, 1, -Inf, -alpha)
		} else {
			sc = -s.pvs(d-1, 1, -alpha-1, -alpha)
			if sc > alpha && !s.aborted {
				sc = -s.pvs(d-1, 1, -Inf, -alpha)
			}
		}
		p.Undo()
		if s.aborted {
			return alpha
		}
		s.rootSc[i] = sc
		if sc > alpha {
			alpha = sc
			s.pv[0][0] = m.p
			copy(s.pv[0][1:], s.pv[1][1:s.pvLen[1]])
			s.pvLen[0] = max(s.pvLen[1], 1)
		}
		if i == len(s.rootMv)-1 && alpha <= -mateBound && !s.rootAll {
			s.addRootRest()
		}
	}
	// stable insertion sort by score, best first
	for i := 1; i < len(s.rootMv); i++ {
		for j := i; j > 0 && s.rootBefore(j, j-1); j-- {
			s.rootSc[j], s.rootSc[j-1] = s.rootSc[j-1], s.rootSc[j]
			s.rootMv[j], s.rootMv[j-1] = s.rootMv[j-1], s.rootMv[j]
		}
	}
	return alpha
}

// rootBefore reports whether root move i goes before root move j: a
// higher score, or, on a lost root, the same score and a stronger threat
// of our own (a four, then a three).
func (s *Searcher) rootBefore(i, j int) bool {
	if s.rootSc[i] != s.rootSc[j] || !s.lost {
		return s.rootSc[i] > s.rootSc[j]
	}
	return s.threatRank(s.rootMv[i].p) > s.threatRank(s.rootMv[j].p)
}

// threatRank is 2 for a root move that makes a four for the side to
// move, 1 for one that makes a three, 0 otherwise.
func (s *Searcher) threatRank(q gomoku.Point) int {
	me := s.pos.Board().ToMove()
	switch {
	case s.pos.Has(q, patterns.MakesFour, me):
		return 2
	case s.pos.Has(q, patterns.MakesThree, me):
		return 1
	}
	return 0
}

func (s *Searcher) rootResult(d, score int) Result {
	r := Result{Move: s.rootMv[0].p, Score: score, Depth: d, PV: append([]gomoku.Point(nil), s.pv[0][:s.pvLen[0]]...)}
	if len(r.PV) == 0 || r.PV[0] != r.Move {
		r.PV = []gomoku.Point{r.Move}
	}
	for i, m := range s.rootMv {
		r.Root = append(r.Root, RootMove{Move: m.p, Score: s.rootSc[i]})
	}
	switch n := MatePlies(score); {
	case n > 0:
		r.Reason = fmt.Sprintf("wins in %d (search depth %d)", n, d)
	case n < 0:
		r.Reason = fmt.Sprintf("every move loses, in %d at best (search depth %d)", -n, d)
	default:
		r.Reason = fmt.Sprintf("search depth %d, score %+d", d, score)
	}
	return r
}

// timeUp reports whether the search must stop now (its context, the
// node limit — all threads' nodes — or the deadline; a helper's main
// thread being done); it sets aborted.
func (s *Searcher) timeUp() bool {
	if s.aborted {
		return true
	}
	nodes := s.nodes
	if s.total != nil { // several threads: the limit is on their sum
		nodes = s.total.Add(s.nodes - s.published)
		s.published = s.nodes
	}
	if s.stopped() || (s.lim.Nodes > 0 && nodes >= s.lim.Nodes) ||
		(s.clk.on && time.Now().After(s.clk.deadline)) {
		s.aborted = true
	}
	if s.lim.ReportEvery > 0 && s.id == 0 && s.reported.Move != gomoku.NoPoint && s.lim.Report != nil && time.Now().After(s.nextReport) {
		s.report(s.reported) // a long iteration: the last one's line, the nodes so far
	}
	return s.aborted
}

// report passes r, the best line so far, to Limits.Report (the main
// thread only), with the nodes and time so far.
func (s *Searcher) report(r Result) {
	if s.lim.Report == nil || s.id != 0 {
		return
	}
	s.reported = r
	r.Nodes, r.Elapsed = s.nodes, time.Since(s.started)
	if s.total != nil {
		r.Nodes = max(r.Nodes, s.total.Load())
	}
	s.nextReport = time.Now().Add(s.lim.ReportEvery)
	s.lim.Report(r)
}

// stopped reports whether the search's context is done (or, for a
// helper, its main thread).
func (s *Searcher) stopped() bool {
	if s.halt != nil && s.halt.Load() {
		return true
	}
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// pvs is the principal-variation alpha-beta: the score of the position
// for the side to move, depth plies left, ply plies from the root. Hot:
// guarded by BenchmarkSearch.
func (s *Searcher) pvs(depth, ply int, alpha, beta int) int {
	s.pvLen[ply] = ply
	if s.nodes >= s.nextCheck {
		s.nextCheck = s.nodes + 256
		if s.lim.Nodes > 0 {
			s.nextCheck = min(s.nextCheck, s.lim.Nodes)
		}
		if s.timeUp() {
			return 0
		}
	}
	if v, ok := s.endScore(ply); ok {
		return v
	}
	p, b := s.pos, s.pos.Board()
	me := b.ToMove()
	nf := p.Count(patterns.MakesFive, me.Other())
	alpha, beta = max(alpha, -(Mate-ply)), min(beta, Mate-ply-1)
	if alpha >= beta {
		return alpha
	}
	h := b.Hash()
	ttMove := gomoku.NoPoint
	s.probes++
	if e, ok := s.tt.probe(h); ok {
		s.hits++
		ttMove = e.move
		if int(e.depth) >= depth {
			sc := fromTT(int(e.score), ply)
			bound := e.flags & boundExact
			if bound == boundExact || bound == boundLower && sc >= beta || bound == boundUpper && sc <= alpha {
				return sc
			}
		}
	}
	if depth <= 0 && (nf == 0 || s.cfg.NoExtensions) {
		return s.leaf(me, ply)
	}
	if depth > 0 && s.cfg.NodeVCF > 0 && nf == 0 && !p.Set(patterns.MakesFour, me).Empty() {
		if n, ok := s.vcfWin(me, s.cfg.NodeVCF); ok {
			sc := Mate - ply - n
			s.tt.store(h, toTT(sc, ply), depth, boundExact, gomoku.NoPoint)
			return sc
		}
	}
	width := s.width(depth)
	moves, complete := s.generate(ply, depth, me, width, ttMove)
	if len(moves) == 0 {
		return 0 // no move: a full board is caught above; be safe
	}
	alphaOrig, best, bestMove := alpha, -Inf, gomoku.NoPoint
	forced := nf == 1
	first := 0 // the index of moves[0] among the node's moves
search:
	for {
		for j, m := range moves {
			i := first + j
			nd := depth - 1
			if forced && !s.cfg.NoExtensions && ply < maxPly-8 {
				nd = depth // a forced block costs no depth
			}
			red := 0
			if c := &s.cfg; !c.NoLMR && depth >= c.LMRDepth && i >= c.LMRMove && m.score < c.LMRQuiet && first+len(moves) > c.LMRMinMoves {
				red = 1
				if i >= c.LMRDeepMove && depth >= c.LMRDeepDepth {
					red = 2
				}
			}
			p.Play(m.p)
			s.nodes++
			var sc int
			if i == 0 {
				sc = -s.pvs(nd, ply+1, -beta, -alpha)
			} else {
				sc = -s.pvs(nd-red, ply+1, -alpha-1, -alpha)
				if sc > alpha && red > 0 && !s.aborted {
					sc = -s.pvs(nd, ply+1, -alpha-1, -alpha)
				}
				if sc > alpha && sc < beta && !s.aborted {
					sc = -s.pvs(nd, ply+1, -beta, -alpha)
				}
			}
			p.Undo()
			if s.aborted {
				return 0
			}
			if sc > best {
				best, bestMove = sc, m.p
				if sc > alpha {
					alpha = sc
					s.pv[ply][ply] = m.p
					copy(s.pv[ply][ply+1:], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
					s.pvLen[ply] = max(s.pvLen[ply+1], ply+1)
					if alpha >= beta {
						s.cutoff(ply, depth, me, m.p)
						break search
					}
				}
			}
			if first > 0 && best > -mateBound {
				break search // the rest: one move that does not lose ends them
			}
		}
		if complete || best > -mateBound || first > 0 {
			break
		}
		// Every move kept loses: a loss is claimed only against every
		// move, so the rest are searched too, in a window from the best
		// loss (the longest one is the node's score), until one does not
		// lose.
		first, moves, alpha = len(moves), s.rest(ply, me, moves), best
	}
	bound := boundExact
	switch {
	case best <= alphaOrig:
		bound = boundUpper
	case best >= beta:
		bound = boundLower
	}
	s.tt.store(h, toTT(best, ply), depth, bound, bestMove)
	return best
}

// leaf is the horizon: a VCF for the side to move if it has fours, else
// the static evaluation.
func (s *Searcher) leaf(me gomoku.Player, ply int) int {
	if s.cfg.LeafVCF > 0 && !s.pos.Set(patterns.MakesFour, me).Empty() &&
		s.pos.Count(patterns.MakesFive, me.Other()) == 0 {
		if n, ok := s.vcfWin(me, s.cfg.LeafVCF); ok {
			return Mate - ply - n
		}
	}
	return s.evaluate(me)
}

// vcfWin runs a bounded VCF for me and returns the line's length in plies.
func (s *Searcher) vcfWin(me gomoku.Player, nodes int) (int, bool) {
	line, ok, n := patterns.VCF(s.pos, me, patterns.Limits{MaxNodes: nodes, MaxDepth: s.cfg.NodeVCFDepth, Table: s.vcf, Line: s.vcfLine[:0]})
	s.nodes += int64(n)
	return len(line), ok
}

func (s *Searcher) width(depth int) int {
	w := s.cfg.Width
	return w[min(max(depth, 0), len(w)-1)]
}

// cutoff records a move that refuted the node.
func (s *Searcher) cutoff(ply, depth int, me gomoku.Player, q gomoku.Point) {
	if k := &s.killers[ply]; k[0] != q {
		k[1], k[0] = k[0], q
	}
	h := &s.history[me-1][q]
	*h = min(*h+int32(depth*depth), s.cfg.HistoryMax)
}

// generate lists the moves of the node at ply for me: the forced set when
// there is one (a block, the defences against open threes), otherwise the
// best width cells near stones by pattern score (ties in point order, so
// the set depends on the position only). The kept moves are then ordered:
// the TT move, killers and history first among equals. complete reports
// that the list holds every move that can change the outcome: a forced
// set (any other move loses at once), or every cell near the stones; a
// loss may be claimed only over a complete list (see rest). Hot.
func (s *Searcher) generate(ply, depth int, me gomoku.Player, width int, ttMove gomoku.Point) (moves []scored, complete bool) {
	p := s.pos
	opp := me.Other()
	buf := s.moves[ply][:0]
	complete = true
	fives := p.Set(patterns.MakesFive, opp)
	var def gomoku.Set
	if fives.Empty() && !p.Set(patterns.MakesWin, opp).Empty() {
		def = p.Defences(me)
	}
	switch blocks := s.legal(me, fives); {
	case !blocks.Empty():
		buf = append(buf, scored{blocks.First(), 1 << 20})
	case !def.Empty():
		for q := range def.All() {
			buf = append(buf, scored{q, s.moveScore(q, me)})
		}
		sortScored(buf)
	default:
		// No threat to answer — or, under Renju, Black cannot answer it
		// (the five-point or every defence is forbidden): then every
		// legal move is searched, and each loses.
		cands := s.legal(me, p.Board().CandidateSet())
		for q := range cands.All() {
			buf = topInsert(buf, scored{q, s.moveScore(q, me)}, width)
		}
		complete = cands.Len() <= width
	}
	if s.prior != nil && (ply == 0 || depth >= s.cfg.PriorDepth) && len(buf) > 1 {
		s.applyPrior(buf)
	}
	s.order(buf, ply, me, ttMove)
	return buf, complete
}

// legal is set without the points me may not play: under Renju, Black's
// forbidden points (empty under other rules).
func (s *Searcher) legal(me gomoku.Player, set gomoku.Set) gomoku.Set {
	if me == gomoku.Black {
		return set.Minus(s.pos.Fouls())
	}
	return set
}

// rest lists the cells near stones that generate's moves left out, by
// pattern score, best first (ties in point order: the list depends on the
// position only). It reuses the buffer of ply, so moves must be done with.
func (s *Searcher) rest(ply int, me gomoku.Player, moves []scored) []scored {
	var kept gomoku.Set
	for _, m := range moves {
		kept.Add(m.p)
	}
	buf := s.moves[ply][:0]
	for q := range s.legal(me, s.pos.Board().CandidateSet()).Minus(kept).All() {
		buf = append(buf, scored{q, s.moveScore(q, me)})
	}
	sortScored(buf)
	return buf
}

// topInsert keeps buf sorted by score, best first, at most width long.
func topInsert(buf []scored, m scored, width int) []scored {
	n := len(buf)
	if n == width {
		if m.score <= buf[n-1].score {
			return buf
		}
		n--
	} else {
		buf = buf[:n+1]
	}
	i := n
	for i > 0 && buf[i-1].score < m.score {
		buf[i] = buf[i-1]
		i--
	}
	buf[i] = m
	return buf
}

func sortScored(buf []scored) {
	for i := 1; i < len(buf); i++ {
		for j := i; j > 0 && buf[j].score > buf[j-1].score; j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
}

// order moves the TT move first and lets killers and history break
// nearly-equal pattern scores (Config.KillerBonus, HistoryCap). It
// changes the order, never the set.
func (s *Searcher) order(buf []scored, ply int, me gomoku.Player, ttMove gomoku.Point) {
	k := s.killers[ply]
	c := &s.cfg
	key := func(m scored) int64 {
		v := int64(m.score) << 16
		switch m.p {
		case ttMove:
			v += 1 << 46 // first, whatever its score
		case k[0]:
			v += c.KillerBonus[0]
		case k[1]:
			v += c.KillerBonus[1]
		}
		return v + int64(min(s.history[me-1][m.p], c.HistoryCap))
	}
	for i := 1; i < len(buf); i++ {
		m := buf[i]
		km := key(m)
		j := i
		for j > 0 && key(buf[j-1]) < km {
			buf[j] = buf[j-1]
			j--
		}
		buf[j] = m
	}
}

// applyPrior blends the learned prior into the pattern scores of buf
// (Config.PriorWeight), then re-sorts.
func (s *Searcher) applyPrior(buf []scored) {
	s.pointBuf = s.pointBuf[:0]
	for _, m := range buf {
		s.pointBuf = append(s.pointBuf, m.p)
	}
	s.priorBuf = append(s.priorBuf[:0], make([]float64, len(buf))...)
	s.prior.Scores(s.pos, s.pointBuf, s.priorBuf)
	s.nextCheck = s.nodes // the prior costs as much as thousands of nodes: poll the clock next
	for i := range buf {
		buf[i].score += int32(s.cfg.PriorWeight * s.priorBuf[i])
	}
	sortScored(buf)
}

// endScore is the score of a position decided without search, at ply: a
// game over, a five to make, two fives to stop, an open four to make
// with no four to answer; ok is false for the others. pvs and its slow
// twin share it.
func (s *Searcher) endScore(ply int) (int, bool) {
	p, b := s.pos, s.pos.Board()
	if b.Winner() != gomoku.Empty {
		return -(Mate - ply), true
	}
	if b.Over() || ply >= maxPly-1 {
		return 0, true
	}
	me := b.ToMove()
	if !p.Set(patterns.MakesFive, me).Empty() {
		return Mate - ply - 1, true
	}
	nf := p.Count(patterns.MakesFive, me.Other())
	if nf == 1 && s.legal(me, p.Set(patterns.MakesFive, me.Other())).Empty() {
		nf = 2 // under Renju: Black may not block the five-point (forbidden)
	}
	switch {
	case nf >= 2 && !s.room(2):
		return 0, true // our move ends the game by the ply limit: a draw
	case nf >= 2:
		return -(Mate - ply - 2), true
	case nf == 0 && !p.Set(patterns.MakesWin, me).Empty() && s.room(3):
		return Mate - ply - 3, true
	}
	return 0, false
}

// room reports whether the board's ply limit leaves room for n more
// stones: a win that needs more is a draw.
func (s *Searcher) room(n int) bool {
	b := s.pos.Board()
	mp := b.Options().MaxPly
	return mp == 0 || b.Stones()+n <= mp
}
