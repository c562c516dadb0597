package search

import (
	"ocvist/gomoku"
	"ocvist/patterns"
)

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
	// The cuts by the evaluation (Config.RFPDepth, RazorDepth), in a null
	// window clear of the mate scores: never while a mate is searched for.
	if c := &s.cfg; depth <= max(c.RFPDepth, c.RazorDepth) && beta-alpha == 1 && nf == 0 && alpha > -mateBound && beta < mateBound &&
		p.Set(patterns.MakesWin, me.Other()).Empty() && p.Set(patterns.MakesDouble, me.Other()).Empty() {
		ev := s.evaluate(me)
		if depth <= c.RFPDepth && ev-c.RFPMargin*depth >= beta {
			return ev
		}
		if depth <= c.RazorDepth && ev+c.RazorMargin*depth <= alpha {
			return s.horizon(me, ply, ev)
		}
	}
	if depth > 0 && s.cfg.NodeVCF > 0 && nf == 0 && !p.Set(patterns.MakesFour, me).Empty() {
		if n, ok := s.vcfWin(me, s.cfg.NodeVCF); ok {
			sc := Mate - ply - n
			s.tt.store(h, toTT(sc, ply), depth, boundExact, gomoku.NoPoint)
			return sc
		}
	}
	// The fail-high reduction (Config.FHRDepth, FHRMargin), on the cuts'
	// terms: a node whose evaluation is far over beta searches its quiet
	// moves a ply shallower; a four is searched in full.
	fhr := false
	if c := &s.cfg; c.FHRMargin > 0 && depth >= c.FHRDepth && beta-alpha == 1 && nf == 0 && alpha > -mateBound && beta < mateBound &&
		p.Set(patterns.MakesWin, me.Other()).Empty() && p.Set(patterns.MakesDouble, me.Other()).Empty() {
		fhr = s.evaluate(me)-c.FHRMargin*depth >= beta
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
			} else if fhr && !p.Has(m.p, patterns.MakesFour, me) {
				nd--
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
	if n, ok := s.leafVCF(me); ok {
		return Mate - ply - n
	}
	return s.evaluate(me)
}

// Evaluated reports whether a search of c asks its evaluation about pos
// at the horizon: the side to move has no five to make and none to
// block, no cell that wins outright (endScore scores these, and a five
// to block is searched a ply further), and no VCF that the horizon's
// finds (leafVCF: LeafVCF nodes of at most NodeVCFDepth fours, searched
// here without the search's table). A third of a teacher game's
// positions are not, and the learning loop fits its value model on the
// others (loop.Config.ValueQuiet; loop/TUNING.md, "The positions the
// search asks about").
func (c Config) Evaluated(pos *patterns.Position) bool {
	b := pos.Board()
	me := b.ToMove()
	switch {
	case b.Over(), !pos.Set(patterns.MakesFive, me).Empty(), !pos.Set(patterns.MakesFive, me.Other()).Empty(),
		!pos.Set(patterns.MakesWin, me).Empty():
		return false
	case c.LeafVCF > 0 && !pos.Set(patterns.MakesFour, me).Empty():
		_, won, _ := patterns.VCF(pos, me, patterns.Limits{MaxNodes: c.LeafVCF, MaxDepth: c.NodeVCFDepth})
		return !won
	}
	return true
}

// horizon is leaf for a node whose static evaluation ev is known.
func (s *Searcher) horizon(me gomoku.Player, ply, ev int) int {
	if n, ok := s.leafVCF(me); ok {
		return Mate - ply - n
	}
	return ev
}

// leafVCF is the horizon's VCF: the side to move's, when it has fours to
// make and no five to block.
func (s *Searcher) leafVCF(me gomoku.Player) (int, bool) {
	if s.cfg.LeafVCF > 0 && !s.pos.Set(patterns.MakesFour, me).Empty() &&
		s.pos.Count(patterns.MakesFive, me.Other()) == 0 {
		return s.vcfWin(me, s.cfg.LeafVCF)
	}
	return 0, false
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
// (Config.PriorWeight), then re-sorts. The prior's scores are remembered
// (priorCache): a node is ranked again at every iteration.
func (s *Searcher) applyPrior(buf []scored) {
	h := s.pos.Board().Hash()
	if cap(s.priorBuf) < 2*len(buf) {
		s.priorBuf = make([]float64, 2*len(buf))
	}
	// score[i] is buf[i]'s prior; out, the scores of the moves not remembered.
	score, out := s.priorBuf[:len(buf)], s.priorBuf[len(buf):2*len(buf)]
	s.pointBuf = s.pointBuf[:0]
	for i, m := range buf {
		if v, ok := s.priorMem.get(h, m.p); ok {
			score[i] = v
		} else {
			s.pointBuf = append(s.pointBuf, m.p)
		}
	}
	if n := len(s.pointBuf); n > 0 {
		out = out[:n]
		clear(out)
		s.prior.Scores(s.pos, s.pointBuf, out)
		s.nextCheck = s.nodes // the prior costs as much as thousands of nodes: poll the clock next
		j := 0
		for i, m := range buf {
			if j < n && s.pointBuf[j] == m.p {
				score[i] = out[j]
				s.priorMem.put(h, m.p, out[j])
				j++
			}
		}
	}
	for i := range buf {
		buf[i].score += int32(s.cfg.PriorWeight * score[i])
	}
	sortScored(buf)
}

// priorCache remembers the prior's scores by position (the board's hash)
// and move, in a table of 2^priorCacheBits slots where a new score
// replaces the old. A prior's score is a function of the position and the
// move, so the search is the same with the cache as without, only faster
// (BenchmarkSearchModels); it is emptied with the other tables (Clear)
// and when the prior changes.
type priorCache struct {
	keys []uint64 // 0: empty
	vals []float64
	off  bool // tests: remember nothing
}

const priorCacheBits = 16

func priorKey(h uint64, q gomoku.Point) uint64 {
	return (h^uint64(q+1)*0x9e3779b97f4a7c15)*0xbf58476d1ce4e5b9 | 1
}

func (c *priorCache) get(h uint64, q gomoku.Point) (float64, bool) {
	if c.keys == nil || c.off {
		return 0, false
	}
	k := priorKey(h, q)
	i := k >> (64 - priorCacheBits)
	return c.vals[i], c.keys[i] == k
}

func (c *priorCache) put(h uint64, q gomoku.Point, v float64) {
	if c.keys == nil {
		c.keys, c.vals = make([]uint64, 1<<priorCacheBits), make([]float64, 1<<priorCacheBits)
	}
	k := priorKey(h, q)
	i := k >> (64 - priorCacheBits)
	c.keys[i], c.vals[i] = k, v
}

func (c *priorCache) clear() { clear(c.keys) }

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
