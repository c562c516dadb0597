package search

import (
	"fmt"
	"time"

	"ocvist/gomoku"
	"ocvist/patterns"
)

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
		} else if line, plies := s.vct.kept(p, me, s.vcf); plies > 0 && line[0] == q {
			// A counter-four in a win by threats already proved: the
			// block goes on along the proof, and the win is announced.
			r.Score, r.PV = Mate-plies, line
			r.Reason = fmt.Sprintf("blocks the four at %v: wins by continuous threats (VCT) in %d", q, plies)
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
// its node budget (see threatBudgets), or, failing both, by threats and
// quiet moves that threaten a VCF (the proof-number search, within
// proofBudget).
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
	if nodes, until := s.proofBudget(); nodes > 0 && !s.stopped() {
		stop := func() bool { return s.timeUp() || s.clk.on && time.Now().After(until) }
		line, plies, n := s.prover.run(p, me, nodes, s.vcf, stop)
		s.nodes += int64(n)
		if plies > 0 {
			return Result{Move: line[0], Score: Mate - plies, PV: line,
				Reason: fmt.Sprintf("wins by threats (proof-number search) in %d", plies)}, true
		}
	}
	return Result{}, false
}

// proofBudget is the root proof search's node budget and, in a timed
// search, the time it stops at: Config.RootProof, cut to a share
// (Config.ThreatShare) of a node limit, and stopped at that share of the
// time left; none in a search bounded by depth alone, nor when the budget
// (in a timed search, the time's share at Config.ThreatNodesPerMS) is
// under Config.ProofMinNodes.
func (s *Searcher) proofBudget() (nodes int, until time.Time) {
	c := &s.cfg
	nodes = c.RootProof
	if s.lim.Nodes > 0 {
		nodes = min(nodes, int(s.lim.Nodes/int64(c.ThreatShare)))
	}
	if s.clk.on {
		left := time.Until(s.clk.deadline)
		until = time.Now().Add(left / time.Duration(c.ThreatShare))
		if int(max(left.Milliseconds(), 0))*c.ThreatNodesPerMS/c.ThreatShare < c.ProofMinNodes {
			return 0, until
		}
	} else if s.lim.Nodes == 0 && s.lim.Depth > 0 {
		return 0, until
	}
	if nodes < c.ProofMinNodes {
		return 0, until
	}
	return nodes, until
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
// q, the block of the first five-point the opponent may play, the five at
// another. It leaves the position as it found it.
func (s *Searcher) openFourLine(q gomoku.Point) []gomoku.Point {
	p := s.pos
	me := p.Board().ToMove()
	if p.Play(q) != nil {
		return []gomoku.Point{q}
	}
	defer p.Undo()
	// Under Renju Black may block neither five-point (both forbidden): it
	// plays any legal move, and the five follows all the same.
	block := s.legal(me.Other(), p.Set(patterns.MakesFive, me)).First()
	if block == gomoku.NoPoint {
		block = s.legal(me.Other(), p.Board().CandidateSet()).First()
	}
	if block == gomoku.NoPoint || p.Play(block) != nil {
		return []gomoku.Point{q}
	}
	five := p.Set(patterns.MakesFive, me).First()
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
			if r, ok := s.partialResult(d, score); ok {
				best = r
				s.report(best)
			}
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
	s.rootNew = -1
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
			if i > 0 {
				s.rootNew = i
			}
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

// partialResult is the result of iteration d, cut short with score the
// best so far, when a move other than the first beat it (each searched to
// the end at depth d) with a score short of a win (a win is announced
// from a finished iteration only): that move, at the last finished
// iteration's Depth, first in Root (the others in the iteration's order,
// their scores of this depth or the last). Config.PartialRoot.
func (s *Searcher) partialResult(d, score int) (Result, bool) {
	if !s.cfg.PartialRoot || s.rootNew <= 0 || s.lost || s.lim.RootExact || score >= mateBound {
		return Result{}, false
	}
	m := s.rootMv[s.rootNew].p
	r := Result{Move: m, Score: score, Depth: d - 1, PV: s.rootPV(m),
		Reason: fmt.Sprintf("search depth %d cut short, score %+d", d, score)}
	r.Root = append(r.Root, RootMove{Move: m, Score: score}) // the move played first, as after an iteration
	for i, rm := range s.rootMv {
		if i != s.rootNew {
			r.Root = append(r.Root, RootMove{Move: rm.p, Score: s.rootSc[i]})
		}
	}
	return r, true
}

// rootPV is a copy of the root's principal variation if it starts with
// root move m, else m alone.
func (s *Searcher) rootPV(m gomoku.Point) []gomoku.Point {
	if s.pvLen[0] == 0 || s.pv[0][0] != m {
		return []gomoku.Point{m}
	}
	return append([]gomoku.Point(nil), s.pv[0][:s.pvLen[0]]...)
}

func (s *Searcher) rootResult(d, score int) Result {
	r := Result{Move: s.rootMv[0].p, Score: score, Depth: d, PV: s.rootPV(s.rootMv[0].p)}
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
