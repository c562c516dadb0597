package patterns

import (
	"ocvist/gomoku"
)

// The slow twin of the Renju rule: the RIF definitions read literally off
// a plain grid, with no line words, no tables and no bound on the
// recursion of real threes (it ends by itself: every level places a
// stone). Written apart from gomoku.Board.Forbidden and Position.foulAt.
//
//   - five: exactly five black stones in a row through the stone;
//   - overline: six or more;
//   - a four: five consecutive cells through the stone holding four black
//     stones and one empty cell, the cells just outside them not black
//     (so the empty cell makes exactly five); the fours of a line are its
//     distinct such empty cells, but a straight four (.xxxx.) is one;
//   - a three: one more stone on an empty cell of the line makes a
//     straight four with the stone (four in a row through both, the two
//     cells beyond empty and each making exactly five); it is real when
//     that cell is not forbidden, the stone standing;
//   - forbidden: no five, and an overline, two fours or two real threes.

const (
	cEmpty int8 = iota
	cBlack
	cWhite
	cWall
)

// rgrid is the board with a wall around it, wide enough that no look
// from a cell of the board leaves it: (x, y) is at [y+border][x+border].
type rgrid [gomoku.Size + 2*border][gomoku.Size + 2*border]int8

const border = 7

func gridOf(b *gomoku.Board) *rgrid {
	var g rgrid
	for y := range g {
		for x := range g[y] {
			g[y][x] = cWall
		}
	}
	for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
		g.set(q.X(), q.Y(), int8(b.At(q)))
	}
	return &g
}

func (g *rgrid) at(x, y int) int8     { return g[y+border][x+border] }
func (g *rgrid) set(x, y int, c int8) { g[y+border][x+border] = c }

var naiveSteps = [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}

// naiveStats are what the twin saw on the way.
type naiveStats struct {
	deepest    int  // the deepest level of the recursion reached
	falseThree bool // a three of a tested point (level 1) whose straight-four points are all forbidden
	calls      int
}

// run is the number of black stones in a row through (x, y) along step d.
func (g *rgrid) run(x, y int, d [2]int) int {
	n := 1
	for k := 1; g.at(x+k*d[0], y+k*d[1]) == cBlack; k++ {
		n++
	}
	for k := 1; g.at(x-k*d[0], y-k*d[1]) == cBlack; k++ {
		n++
	}
	return n
}

// fours counts the fours through the black stone at (x, y) along d.
func (g *rgrid) fours(x, y int, d [2]int) int {
	var empties []int // offsets along d of the cells that make five
	for start := -4; start <= 0; start++ {
		black, gap := 0, 0
		ok := true
		for i := start; i < start+5; i++ {
			switch g.at(x+i*d[0], y+i*d[1]) {
			case cBlack:
				black++
			case cEmpty:
				gap = i
			default:
				ok = false
			}
		}
		before := g.at(x+(start-1)*d[0], y+(start-1)*d[1])
		after := g.at(x+(start+5)*d[0], y+(start+5)*d[1])
		if ok && black == 4 && before != cBlack && after != cBlack {
			seen := false
			for _, e := range empties {
				seen = seen || e == gap
			}
			if !seen {
				empties = append(empties, gap)
			}
		}
	}
	if len(empties) == 2 && g.straightFour(x, y, d) {
		return 1
	}
	return len(empties)
}

// straightFour reports whether the black stones through (x, y) along d
// are four in a row with both cells beyond them empty and each making
// exactly five.
func (g *rgrid) straightFour(x, y int, d [2]int) bool {
	lo, hi := 0, 0
	for g.at(x+(lo-1)*d[0], y+(lo-1)*d[1]) == cBlack {
		lo--
	}
	for g.at(x+(hi+1)*d[0], y+(hi+1)*d[1]) == cBlack {
		hi++
	}
	cell := func(i int) int8 { return g.at(x+i*d[0], y+i*d[1]) }
	return hi-lo+1 == 4 && cell(lo-1) == cEmpty && cell(hi+1) == cEmpty &&
		cell(lo-2) != cBlack && cell(hi+2) != cBlack
}

// naiveFoul is the rule's verdict on Black's stone at the empty (x, y).
func (g *rgrid) naiveFoul(x, y, level int, st *naiveStats) gomoku.Foul {
	st.calls++
	st.deepest = max(st.deepest, level)
	g.set(x, y, cBlack)
	defer g.set(x, y, cEmpty)
	for _, d := range naiveSteps {
		if g.run(x, y, d) == 5 {
			return gomoku.NoFoul
		}
	}
	for _, d := range naiveSteps {
		if g.run(x, y, d) > 5 {
			return gomoku.FoulOverline
		}
	}
	fours := 0
	for _, d := range naiveSteps {
		fours += g.fours(x, y, d)
	}
	if fours >= 2 {
		return gomoku.FoulDoubleFour
	}
	threes := 0
	for _, d := range naiveSteps {
		if g.realThree(x, y, d, level, st) {
			threes++
		}
	}
	if threes >= 2 {
		return gomoku.FoulDoubleThree
	}
	return gomoku.NoFoul
}

// realThree: does the black stone at (x, y) make a real three along d?
func (g *rgrid) realThree(x, y int, d [2]int, level int, st *naiveStats) bool {
	three := false
	for k := -5; k <= 5; k++ {
		ex, ey := x+k*d[0], y+k*d[1]
		if k == 0 || g.at(ex, ey) != cEmpty {
			continue
		}
		g.set(ex, ey, cBlack)
		sf := between(k, x, y, d, g) && g.straightFour(x, y, d)
		g.set(ex, ey, cEmpty)
		if !sf {
			continue
		}
		three = true
		if g.naiveFoul(ex, ey, level+1, st) == gomoku.NoFoul {
			return true
		}
	}
	if three && level == 1 {
		st.falseThree = true
	}
	return false
}

// between reports whether the cells from (x, y) to k steps along d are all
// black: the stone and the added one are in one run.
func between(k, x, y int, d [2]int, g *rgrid) bool {
	lo, hi := min(0, k), max(0, k)
	for i := lo; i <= hi; i++ {
		if g.at(x+i*d[0], y+i*d[1]) != cBlack {
			return false
		}
	}
	return true
}

// naiveNear counts, for every cell, the black stones within 4 cells of it
// along its four lines. A forbidden point needs at least four: a double
// three two more stones in each of two lines, a double four three in
// each, an overline five in one (at most one of them 5 away).
func (g *rgrid) naiveNear() *[gomoku.Size][gomoku.Size]int8 {
	var n [gomoku.Size][gomoku.Size]int8
	for y := range gomoku.Size {
		for x := range gomoku.Size {
			if g.at(x, y) != cBlack {
				continue
			}
			for _, d := range naiveSteps {
				for k := -4; k <= 4; k++ {
					if cx, cy := x+k*d[0], y+k*d[1]; k != 0 && gomoku.OnBoard(cx, cy) {
						n[cy][cx]++
					}
				}
			}
		}
	}
	return &n
}
