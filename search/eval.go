package search

import (
	"math"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// Scores. A win n plies from the root scores Mate-n, a loss -(Mate-n);
// every other score lies strictly inside ±mateBound.
const (
	Inf       = 30000
	Mate      = 29000
	mateBound = Mate - 1000
)

// IsMate reports whether score announces a forced win or loss.
func IsMate(score int) bool { return score >= mateBound || score <= -mateBound }

// MatePlies is the number of plies to the announced end of a mate score
// (positive for a win, negative for a loss), 0 for other scores.
func MatePlies(score int) int {
	switch {
	case score >= mateBound:
		return Mate - score
	case score <= -mateBound:
		return -(Mate + score)
	}
	return 0
}

// Weights are the evaluation's and the move ranking's numbers. Own and
// Their weigh, per Shape, the (cell, direction) pairs where the side to
// move (Own) or the other side (Their) would make that shape
// (patterns.Position.ShapeCounts): a cell where we make a Four means we
// have a three. Double counts the cells of the class MakesDouble
// (four-three or double-three points). Attack and Defend rank a move by
// the shapes it makes for the mover and takes from the opponent; the
// Double bonuses add when the cell is a double-threat point.
type Weights struct {
	Own, Their              [patterns.NumShapes]int32
	OwnDouble, TheirDouble  int32
	Tempo                   int32
	Attack, Defend          [patterns.NumShapes]int32
	AttackDouble, DefendDbl int32
}

// DefaultWeights are hand-set from the shapes' meaning: threes and fours
// in the making count most, the side to move's a little more (it moves
// first).
func DefaultWeights() Weights {
	return Weights{
		//           none two ct  bt  ot  four d4  s4  five over
		Own:          [patterns.NumShapes]int32{0, 4, 10, 26, 30, 46, 60, 60, 0, 0},
		Their:        [patterns.NumShapes]int32{0, 4, 9, 22, 26, 40, 70, 70, 0, 0},
		OwnDouble:    400,
		TheirDouble:  150,
		Tempo:        20,
		Attack:       [patterns.NumShapes]int32{0, 4, 12, 40, 50, 70, 600, 600, 10000, 0},
		Defend:       [patterns.NumShapes]int32{0, 3, 10, 32, 40, 55, 300, 300, 5000, 0},
		AttackDouble: 300,
		DefendDbl:    200,
	}
}

// valueTerm is what a value model's p adds to the evaluation
// (Config.ValueScale, ValueLogit).
func (s *Searcher) valueTerm(p float64) int32 {
	l := s.cfg.ValueLogit
	if l <= 0 {
		return int32(s.cfg.ValueScale * (p - 0.5))
	}
	z := l // p = 1, or a logit beyond l
	if p < 1 {
		z = math.Log(p / (1 - p))
	}
	return int32(s.cfg.ValueScale * max(min(z, l), -l) / 4)
}

// evaluate is the static score of the position for the side to move, me:
// the tempo, the shapes (with a value model, Config.ShapeShare of them)
// and the value model's term. It reads the shape histograms patterns
// keeps incrementally: a few dozen multiply-adds. Hot: guarded by
// BenchmarkSearch.
func (s *Searcher) evaluate(me gomoku.Player) int {
	v := s.cfg.Weights.Tempo
	if s.value == nil {
		v += s.shapes(me)
	} else {
		if s.cfg.ShapeShare != 0 {
			v += int32(s.cfg.ShapeShare * float64(s.shapes(me)))
		}
		v += s.valueTerm(s.value.Value(s.pos))
	}
	return int(max(min(v, mateBound-1), -(mateBound - 1)))
}

// shapes is the hand-set shape evaluation for the side to move, me
// (Weights' Own, Their, OwnDouble and TheirDouble).
func (s *Searcher) shapes(me gomoku.Player) int32 {
	w := &s.cfg.Weights
	opp := me.Other()
	cm, co := s.pos.ShapeCounts(me), s.pos.ShapeCounts(opp)
	var v int32
	for sh := patterns.Two; sh < patterns.NumShapes; sh++ {
		v += w.Own[sh]*cm[sh] - w.Their[sh]*co[sh]
	}
	return v + w.OwnDouble*int32(s.pos.Count(patterns.MakesDouble, me)) - w.TheirDouble*int32(s.pos.Count(patterns.MakesDouble, opp))
}

// moveScore ranks empty cell q for the mover me: what a stone there makes
// for me plus what it takes from the opponent.
func (s *Searcher) moveScore(q gomoku.Point, me gomoku.Player) int32 {
	w := &s.cfg.Weights
	codes := s.pos.Codes(q)
	i, o := me-1, 2-me
	v := w.Attack[codes[0][i]] + w.Attack[codes[1][i]] + w.Attack[codes[2][i]] + w.Attack[codes[3][i]] +
		w.Defend[codes[0][o]] + w.Defend[codes[1][o]] + w.Defend[codes[2][o]] + w.Defend[codes[3][o]]
	if s.pos.Flags(q, me)&(1<<patterns.MakesDouble) != 0 {
		v += w.AttackDouble
	}
	if s.pos.Flags(q, me.Other())&(1<<patterns.MakesDouble) != 0 {
		v += w.DefendDbl
	}
	return v
}
