package patterns

import (
	"ocvist/gomoku"
)

// The slow twin: shapes from the definitions, by scanning the whole line
// through a cell as an array (no windows, no tables, no memoisation).
// Values: 0 empty, 1 own, 2 opponent; cells beyond the line's ends do not
// exist (they block).

// lineOf returns the values of the full line through q along d for side,
// and q's index in it.
func lineOf(b *gomoku.Board, q gomoku.Point, d gomoku.Dir, side gomoku.Player) ([]int8, int) {
	cells, i := gomoku.LineCells(q, d)
	v := make([]int8, len(cells))
	for k, c := range cells {
		switch b.At(c) {
		case side:
			v[k] = 1
		case side.Other():
			v[k] = 2
		}
	}
	return v, i
}

// naiveRun is the first index and length of the run of own stones through j.
func naiveRun(v []int8, j int) (lo, n int) {
	lo, hi := j, j
	for lo > 0 && v[lo-1] == 1 {
		lo--
	}
	for hi < len(v)-1 && v[hi+1] == 1 {
		hi++
	}
	return lo, hi - lo + 1
}

func isWinLen(n int, rule gomoku.Rule) bool {
	return n == 5 || n > 5 && rule == gomoku.Freestyle
}

// naiveFivePoints lists the empty cells where one more stone makes a five
// (under rule) whose run contains i. Only cells within 4 of i can share a
// run of five with it.
func naiveFivePoints(v []int8, i int, rule gomoku.Rule) []int {
	var fp []int
	for e := max(0, i-4); e <= min(len(v)-1, i+4); e++ {
		if v[e] != 0 {
			continue
		}
		v[e] = 1
		lo, n := naiveRun(v, e)
		v[e] = 0
		if isWinLen(n, rule) && lo <= i && i < lo+n {
			fp = append(fp, e)
		}
	}
	return fp
}

// naiveFourShape classifies fives and fours of the own stone at i.
func naiveFourShape(v []int8, i int, rule gomoku.Rule) (Shape, []int) {
	lo, n := naiveRun(v, i)
	if n >= 5 {
		if isWinLen(n, rule) {
			return Five, nil
		}
		return Overline, nil
	}
	fp := naiveFivePoints(v, i, rule)
	switch {
	case len(fp) >= 2 && n == 4 && len(fp) == 2 && fp[0] == lo-1 && fp[1] == lo+4:
		return StraightFour, fp
	case len(fp) >= 2:
		return DoubleFour, fp
	case len(fp) == 1:
		return Four, fp
	}
	return None, nil
}

// naiveShape is the shape of an own stone at i (v[i] must be 1).
func naiveShape(v []int8, i int, rule gomoku.Rule) Shape {
	if s, _ := naiveFourShape(v, i, rule); s != None {
		return s
	}
	three, closed := naiveThreeKind(v, i, rule)
	switch {
	case three:
		if _, n := naiveRun(v, i); n == 3 {
			return OpenThree
		}
		return BrokenThree
	case closed:
		return ClosedThree
	}
	// A two needs, after two more stones, four own stones within 4 of i.
	near := 0
	for e := max(0, i-4); e <= min(len(v)-1, i+4); e++ {
		if v[e] == 1 && e != i {
			near++
		}
	}
	if near == 0 {
		return None
	}
	for e := max(0, i-4); e <= min(len(v)-1, i+4); e++ {
		if v[e] != 0 {
			continue
		}
		v[e] = 1
		t, c := false, false
		if s, _ := naiveFourShape(v, i, rule); s == None {
			t, c = naiveThreeKind(v, i, rule)
		}
		v[e] = 0
		if t || c {
			return Two
		}
	}
	return None
}

// naiveThreeKind reports whether one more stone can make two five-points
// (a three) or only one (a closed three).
func naiveThreeKind(v []int8, i int, rule gomoku.Rule) (three, closed bool) {
	for e := max(0, i-4); e <= min(len(v)-1, i+4); e++ {
		if v[e] != 0 {
			continue
		}
		v[e] = 1
		s, _ := naiveFourShape(v, i, rule)
		v[e] = 0
		switch s {
		case StraightFour, DoubleFour:
			three = true
		case Four:
			closed = true
		}
	}
	return three, closed
}

// naiveCell is the shape a stone of side at empty q would make along d.
func naiveCell(b *gomoku.Board, q gomoku.Point, d gomoku.Dir, side gomoku.Player) Shape {
	v, i := lineOf(b, q, d, side)
	return naiveAt(v, i, b.Rule())
}

// naiveAt is the shape of an own stone placed at empty index i of v.
func naiveAt(v []int8, i int, rule gomoku.Rule) Shape {
	v[i] = 1
	s := naiveShape(v, i, rule)
	v[i] = 0
	return s
}

// naiveDefence lists the cells of the line where an opponent stone lowers
// the class of the shape at i.
func naiveDefence(b *gomoku.Board, q gomoku.Point, d gomoku.Dir, side gomoku.Player) []gomoku.Point {
	v, i := lineOf(b, q, d, side)
	cells, _ := gomoku.LineCells(q, d)
	v[i] = 1
	s := naiveShape(v, i, b.Rule())
	var def []gomoku.Point
	for e := range v {
		if v[e] != 0 {
			continue
		}
		v[e] = 2
		if naiveShape(v, i, b.Rule()).class() < s.class() {
			def = append(def, cells[e])
		}
		v[e] = 0
	}
	return def
}
