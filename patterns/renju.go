package patterns

import (
	"math/bits"

	"ocvist/gomoku"
)

// Renju: Black's forbidden points, read from the shape codes (see the
// package documentation). A point can be forbidden only where Black's
// flags show MakesWin, MakesDouble or overClass and not MakesFive (an
// overline, two fours or two threes, and no five): a handful of cells.
// Put tests every one of them again, not only those whose shapes the
// stone changed, because the recursion of real threes reaches past the
// stone's lines; Undo takes the set back from a journal kept beside the
// shapes'.

// Forbidden reports whether q is a point forbidden to Black: under Renju,
// an empty cell where Black's stone would make an overline, a double four
// or a double three of real threes, and no five. It reads the kept set.
func (p *Position) Forbidden(q gomoku.Point) bool { return p.foul.Has(q) }

// Fouls returns the points forbidden to Black (empty but under Renju): a
// GUI's marks (Yixin's YXSHOWFORBID), the terminal's.
func (p *Position) Fouls() gomoku.Set { return p.foul }

// Foul says why q is forbidden to Black, NoFoul if it is not.
func (p *Position) Foul(q gomoku.Point) gomoku.Foul {
	if !p.foul.Has(q) {
		return gomoku.NoFoul
	}
	var t trials
	return p.foulAt(q, &t, 1)
}

// The line of each cell in each direction (its first cell) and the cell's
// index along it: the shift of gomoku.Board.LineWords.
var (
	lineID  [4][gomoku.NumCells]gomoku.Point
	linePos [4][gomoku.NumCells]uint8
)

func init() {
	for d := range gomoku.Dirs {
		for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
			cells, i := gomoku.LineCells(q, gomoku.Dir(d))
			lineID[d][q], linePos[d][q] = cells[0], uint8(i)
		}
	}
}

// trials are the stones the forbidden test places in thought: a White
// stone a threat search asks about, then the points whose threes are
// being tested, one a level.
type trials struct {
	pt  [gomoku.FoulDepth + 1]gomoku.Point
	col [gomoku.FoulDepth + 1]gomoku.Player
	n   int
}

func (t *trials) push(q gomoku.Point, c gomoku.Player) {
	t.pt[t.n], t.col[t.n] = q, c
	t.n++
}

// lines returns the mask of directions in which a trial stone shares q's
// line.
func (t *trials) lines(q gomoku.Point) uint8 {
	var m uint8
	for i := range t.n {
		x := t.pt[i]
		for d := range 4 {
			if lineID[d][x] == lineID[d][q] {
				m |= 1 << d
			}
		}
	}
	return m
}

// blackKey is the table key of Black's window around q along d, the trial
// stones on that line added.
func (p *Position) blackKey(q gomoku.Point, d int, t *trials) (own, blocked uint32) {
	bl, wh, wall, s := p.b.LineWords(gomoku.Dir(d), q)
	for i := range t.n {
		if x := t.pt[i]; lineID[d][x] == lineID[d][q] {
			bit := uint32(1) << (uint32(linePos[d][x]) + radius)
			if t.col[i] == gomoku.Black {
				bl |= bit
			} else {
				wh |= bit
			}
		}
	}
	return bl >> s & windowMask, (wh | wall) >> s & windowMask
}

// foulAt is the forbidden test of the empty cell q with the trial stones
// t, at a level of the recursion (1: the point asked about). t is left as
// it came.
func (p *Position) foulAt(q gomoku.Point, t *trials, level int) gomoku.Foul {
	std := &tables[gomoku.Standard]
	var sh [4]Shape
	on := t.lines(q)
	for d := range 4 {
		if on>>d&1 == 0 {
			sh[d] = p.code[q][d][0]
		} else {
			own, blocked := p.blackKey(q, d, t)
			sh[d] = std.shape[key(own, blocked)]
		}
	}
	fours, threes, over := 0, 0, false
	for _, s := range sh {
		switch s {
		case Five:
			return gomoku.NoFoul // a five takes precedence
		case Overline:
			over = true
		case Four, StraightFour:
			fours++
		case DoubleFour:
			fours += 2
		case OpenThree, BrokenThree:
			threes++
		}
	}
	switch {
	case over:
		return gomoku.FoulOverline
	case fours >= 2:
		return gomoku.FoulDoubleFour
	case threes < 2:
		return gomoku.NoFoul
	}
	t.push(q, gomoku.Black)
	real := 0
	for d := 0; d < 4 && real < 2; d++ {
		if sh[d].IsThree() && p.realThree(q, d, t, level) {
			real++
		}
	}
	t.n--
	if real >= 2 {
		return gomoku.FoulDoubleThree
	}
	return gomoku.NoFoul
}

// realThree reports whether the three of Black's trial stone q (the last
// of t) along d is real: one of its straight-four points is not forbidden
// with the trial stones placed.
func (p *Position) realThree(q gomoku.Point, d int, t *trials, level int) bool {
	std := &tables[gomoku.Standard]
	own, blocked := p.blackKey(q, d, t)
	for g := uint32(std.gain[key(own, blocked)]); g != 0; g &= g - 1 {
		e := bits.TrailingZeros32(g)
		if std.shape[key(own|1<<e, blocked)] != StraightFour {
			continue // a double-four point: two fours are no straight four
		}
		if level == gomoku.FoulDepth {
			return true // presumed not forbidden
		}
		if p.foulAt(gomoku.Point(int(q)+(e-radius)*lineStep[d]), t, level+1) == gomoku.NoFoul {
			return true
		}
	}
	return false
}

// suspect reports whether Black's codes at the empty cell q could make it
// forbidden: an overline, two fours or two threes, and no five. A White
// stone only lowers Black's codes, so a cell that is no suspect stays
// none after one.
func (p *Position) suspect(q gomoku.Point) bool {
	f := p.flags[q][0]
	return f&(1<<MakesFive) == 0 && f&(1<<MakesWin|1<<MakesDouble|1<<overClass) != 0
}

// refreshFouls recomputes Black's forbidden points after the shapes
// changed; prev is the set before, whose points the class sets leave out.
func (p *Position) refreshFouls(prev gomoku.Set) {
	s := &p.sets[0]
	cand := s[MakesWin].Union(s[MakesDouble]).Union(s[overClass]).Union(prev).Minus(s[MakesFive])
	var next gomoku.Set
	var t trials
	for q := range cand.All() {
		if p.b.At(q) == gomoku.Empty && p.suspect(q) && p.foulAt(q, &t, 1) != gomoku.NoFoul {
			next.Add(q)
		}
	}
	p.foul = next
	p.maskFouls(prev, next)
}

// maskFouls makes Black's class sets leave out the points of next rather
// than those of prev (the flags hold every cell's classes).
func (p *Position) maskFouls(prev, next gomoku.Set) {
	for c := range numClasses {
		p.sets[0][c] = p.sets[0][c].Minus(next)
	}
	for q := range prev.Minus(next).All() {
		for f := p.flags[q][0] & classMask; f != 0; f &= f - 1 {
			p.sets[0][bits.TrailingZeros8(f)].Add(q)
		}
	}
}

// legal returns the cells of set side may play: under Renju, Black's
// less its forbidden points.
func (p *Position) legal(side gomoku.Player, set gomoku.Set) gomoku.Set {
	if side == gomoku.Black {
		return set.Minus(p.foul)
	}
	return set
}

// mayPlay reports whether side may play the empty cell q: not Black on a
// forbidden point.
func (p *Position) mayPlay(side gomoku.Player, q gomoku.Point) bool {
	return side != gomoku.Black || !p.foul.Has(q)
}

// forcingFours are White's moves under Renju that make a four whose one
// five-point is forbidden to Black once the four stands: Black cannot
// block it, and White wins as with an open four.
func (p *Position) forcingFours() gomoku.Set {
	var out gomoku.Set
	w := &p.sets[1]
	for q := range w[MakesFour].Minus(w[MakesWin]).Minus(w[MakesFive]).All() {
		d := 0
		for p.code[q][d][1] != Four {
			d++
		}
		f := p.fivePoint(q, d, gomoku.White)
		if !p.suspect(f) {
			continue
		}
		var t trials
		t.push(q, gomoku.White)
		if p.foulAt(f, &t, 1) != gomoku.NoFoul {
			out.Add(q)
		}
	}
	return out
}

// winCells are side's moves that win unless a five comes first: the
// MakesWin cells (two five-points) and, under Renju, White's forcing
// fours.
func (p *Position) winCells(side gomoku.Player) gomoku.Set {
	if p.renju && side == gomoku.White {
		return p.sets[1][MakesWin].Union(p.forcingFours())
	}
	return p.sets[side-1][MakesWin]
}

// legalReply is a point Black may play other than the cells of not: the
// lowest candidate, else the lowest empty cell; NoPoint if there is none.
// It is Black's reply, in a line, to a four it cannot block (any reply
// loses).
func (p *Position) legalReply(not gomoku.Set) gomoku.Point {
	if q := p.b.CandidateSet().Minus(p.foul).Minus(not).First(); q != gomoku.NoPoint {
		return q
	}
	for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
		if p.b.At(q) == gomoku.Empty && !p.foul.Has(q) && !not.Has(q) {
			return q
		}
	}
	return gomoku.NoPoint
}
