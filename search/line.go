package search

import (
	"time"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// mateLine returns pv, the principal variation of a win the alpha-beta
// proved at the root, completed to the winner's five: a variation stops
// where its last node was settled by the table, a VCF or an end rule.
// Past pv's end, the winner plays what settles the node (winningMove);
// the loser the table's best move (of a lost node: the longest defence
// the search found), or its first ranked move. The line is what the
// search believes and gomoku's referee accepts, not a proof of its own:
// the proof is the search's. If it cannot be completed within Config.LineNodes
// nodes (Config.LineNodes; or the deadline), pv is returned as it is.
func (s *Searcher) mateLine(pv []gomoku.Point) []gomoku.Point {
	p := s.pos
	winner := p.Board().ToMove()
	played := 0
	defer func() {
		for range played {
			p.Undo()
		}
	}()
	line := append([]gomoku.Point(nil), pv...)
	for _, m := range pv {
		if p.Play(m) != nil {
			return pv
		}
		played++
	}
	saved := s.lim
	defer func() { s.lim = saved }()
	s.lim = Limits{Nodes: s.nodes + int64(s.cfg.LineNodes)} // and the search's clock
	s.aborted, s.nextCheck = false, s.nodes
	for !p.Board().Over() && len(line) < 2*MaxDepth+maxPly {
		m := gomoku.NoPoint
		if p.Board().ToMove() != winner {
			m = s.lineDefence()
		} else if m = s.ruledMove(); m == gomoku.NoPoint {
			budget := s.lineVCFNodes()
			if budget == 0 {
				return pv // the deadline has passed
			}
			vl, ok, n := patterns.VCF(p, winner, patterns.Limits{MaxNodes: budget, MaxDepth: s.cfg.RootVCFDepth, Table: s.vcf})
			s.nodes += int64(n)
			if ok {
				for _, m := range vl {
					p.Play(m)
					played++
				}
				line = append(line, vl...)
				break
			}
			if m = s.deepenedWin(); m == gomoku.NoPoint {
				return pv
			}
		}
		if p.Play(m) != nil {
			return pv
		}
		played++
		line = append(line, m)
	}
	if p.Board().Winner() != winner {
		return pv
	}
	return line
}

// lineVCFNodes bounds a VCF of mateLine, which cannot be stopped: the
// line's budget, and in a timed search what the time left allows at
// Config.ThreatNodesPerMS (none once the deadline has passed).
func (s *Searcher) lineVCFNodes() int {
	n := s.cfg.LineNodes
	if s.clk.on {
		n = min(n, int(max(time.Until(s.clk.deadline).Milliseconds(), 0))*s.cfg.ThreatNodesPerMS)
	}
	return n
}

// ruledMove is the winner's move at a node past the principal variation
// when a rule or the table settles it: a five, a forced block, an open
// four, the table's move of a won node; NoPoint otherwise.
func (s *Searcher) ruledMove() gomoku.Point {
	p := s.pos
	me := p.Board().ToMove()
	switch {
	case !p.Set(patterns.MakesFive, me).Empty():
		return p.Set(patterns.MakesFive, me).First()
	case !s.legal(me, p.Set(patterns.MakesFive, me.Other())).Empty():
		return s.legal(me, p.Set(patterns.MakesFive, me.Other())).First()
	case !p.Set(patterns.MakesWin, me).Empty() && s.room(3):
		return p.Set(patterns.MakesWin, me).First()
	}
	if e, ok := s.tt.probe(p.Board().Hash()); ok && e.flags&boundLower != 0 && int(e.score) >= mateBound && s.playable(e.move) {
		return e.move
	}
	return gomoku.NoPoint
}

// deepenedWin runs the alpha-beta at this node, deepening, until it shows
// a win for the side to move, and returns its move (NoPoint if the line's
// budget runs out first).
func (s *Searcher) deepenedWin() gomoku.Point {
	for d := 1; d <= MaxDepth && !s.aborted; d++ {
		if sc := s.pvs(d, 0, mateBound-1, Inf); sc >= mateBound && !s.aborted && s.pvLen[0] > 0 {
			return s.pv[0][0]
		}
	}
	return gomoku.NoPoint
}

// lineDefence is the loser's move at a node past the principal
// variation: the block of a five-point, else the table's best move, else
// the first ranked.
func (s *Searcher) lineDefence() gomoku.Point {
	p := s.pos
	me := p.Board().ToMove()
	if f := s.legal(me, p.Set(patterns.MakesFive, me.Other())).First(); f != gomoku.NoPoint {
		return f
	}
	if e, ok := s.tt.probe(p.Board().Hash()); ok && s.playable(e.move) {
		return e.move
	}
	moves, _ := s.generate(0, 1, me, 1, gomoku.NoPoint)
	return moves[0].p
}

// playable reports whether the side to move may play q: an empty cell,
// not forbidden to it (Renju).
func (s *Searcher) playable(q gomoku.Point) bool {
	b := s.pos.Board()
	return q.Valid() && b.At(q) == gomoku.Empty && !(b.ToMove() == gomoku.Black && s.pos.Forbidden(q))
}
