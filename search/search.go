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
// (microseconds a move). It must not change pos, and a move's score must
// depend on the position and the move alone: the search remembers it.
type Prior interface {
	Scores(pos *patterns.Position, moves []gomoku.Point, out []float64)
}

// Value estimates the chance that the side to move wins (in [0, 1]); the
// evaluation adds Config.ValueScale·(v − ½) (or its logit's share:
// Config.ValueLogit) and keeps Config.ShapeShare of the shapes' own
// evaluation. It must not change pos.
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
	prover   proofSearch
	prior    Prior
	priorBuf []float64
	priorMem priorCache
	value    Value

	newPrior  func() Prior
	newValue  func() Value
	helpers   []*Searcher       // the other threads (main thread only), made when needed
	ttBits0   int               // the table's size New was given (SetTableBytes(0) restores it)
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
	rootNew   int  // the root move that beat the first one in this iteration (-1: none)
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
	s := &Searcher{cfg: cfg, tt: newTable(cfg.TTBits, cfg.TTAgeWeight), vcf: patterns.NewVCFTable(cfg.VCFTableBits), ttBits0: cfg.TTBits}
	s.vct.vcfNodes, s.vct.vcfDepth = cfg.VCTVCFNodes, cfg.VCTVCFDepth
	s.prover = newProofSearch(&cfg)
	return s
}

// SetPrior makes the search rank moves with a learned prior at the root
// and at nodes with at least Config.PriorDepth plies left: newPrior makes
// one for each thread (a Prior may keep scratch of its own); nil removes
// it.
func (s *Searcher) SetPrior(newPrior func() Prior) {
	s.newPrior, s.prior, s.helpers = newPrior, nil, nil
	s.priorMem.clear()
	if newPrior != nil {
		s.prior = newPrior()
	}
}

// SetValue adds a value model's v to every evaluation (Config.ValueScale,
// ValueLogit): newValue makes one for each thread; nil removes it.
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
// least 4 and at most 2^28 buckets), empty; n ≤ 0 restores the size New
// was given (Config.TTBits, by default 18). Not during a search.
func (s *Searcher) SetTableBytes(n int64) {
	bits := 4
	for bits < 28 && int64(16*bucketSize)<<(bits+1) <= n {
		bits++
	}
	if n <= 0 {
		bits = s.ttBits0
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
	s.prover.forget()
	s.vct.forget()
	for _, t := range append([]*Searcher{s}, s.helpers...) {
		t.vcf.Clear()
		t.priorMem.clear()
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
