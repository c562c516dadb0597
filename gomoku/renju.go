package gomoku

import "math/bits"

// Foul says why a point is forbidden to Black under Renju.
type Foul uint8

// The fouls, in the order Forbidden looks for them.
const (
	NoFoul          Foul = iota // the point is not forbidden
	FoulOverline                // six or more in a row
	FoulDoubleFour              // two fours at once, also two in one line
	FoulDoubleThree             // two real threes at once
)

var foulNames = [...]string{"no foul", "overline", "double-four", "double-three"}

// String names the foul, e.g. "double-three".
func (f Foul) String() string {
	if int(f) < len(foulNames) {
		return foulNames[f]
	}
	return "foul?"
}

// FoulDepth bounds the recursion of real threes: the point asked about is
// level 1; a three of it is real if one of its straight-four points, a
// level deeper, is not forbidden; at level FoulDepth a straight-four point
// is presumed not forbidden (overlines and double fours are still seen
// there). Package patterns uses the same bound, so that its fast test and
// this one agree on every position.
const FoulDepth = 4

// Forbidden reports whether Black may not play the empty cell p under
// Renju, and why (RIF): a stone there that makes a five (exactly five in
// a row) is never forbidden; otherwise it is if it makes an overline, two
// fours (a straight four is one four; two fours may lie in one line, as in
// x.xxx.x), or two real threes (a three is a line that one more stone, on
// a point that is not itself forbidden, turns into a straight four of
// exactly four: .xxxx. whose both ends make exactly five). The recursion
// of real threes is bounded by FoulDepth. It is NoFoul under the other
// rules and for an occupied or off-board p.
//
// It reads the board's line words and places trial stones on a scratch
// copy, never on b. It is the rule's referee, for Play and for tests; a
// search asks package patterns, whose Position keeps Black's forbidden
// points as the shapes change.
func (b *Board) Forbidden(p Point) Foul {
	if b.opts.Rule != Renju || !p.Valid() || b.cells[p] != Empty {
		return NoFoul
	}
	r := *b
	return r.foul(p, 1)
}

// foul is Forbidden's test of the empty cell p at a level of the recursion:
// it places a trial black stone at p, reads its four lines and takes it
// back.
func (b *Board) foul(p Point, level int) Foul {
	b.set(p, Black)
	defer b.clear(p)
	var own, blocked [4]uint32
	var open [4]bool // no five-point nor overline: the line may hold a three
	fours, over := 0, false
	for d := range Dirs {
		own[d], blocked[d] = b.Window(p, Dir(d), Black)
		switch n := runLen(own[d]); {
		case n == 5:
			return NoFoul // a five takes precedence
		case n > 5:
			over = true
		default:
			switch fp := fivePoints(own[d], blocked[d]); {
			case fp == 0:
				open[d] = true
			case straightFour(own[d], fp):
				fours++
			default:
				fours += bits.OnesCount32(fp)
			}
		}
	}
	switch {
	case over:
		return FoulOverline
	case fours >= 2:
		return FoulDoubleFour
	}
	threes := 0
	for d := range Dirs {
		if open[d] && b.realThree(p, Dir(d), own[d], blocked[d], level) {
			if threes++; threes == 2 {
				return FoulDoubleThree
			}
		}
	}
	return NoFoul
}

// realThree reports whether Black's stone at p (placed, with the window
// own/blocked along d, which has no five-point) makes a real three along
// d: one more stone, on a point that is not forbidden with p placed, makes
// a straight four through p. Such a point is next to p's run, within 3 of
// p. (A line with a five-point holds no three: its four takes every
// stone a three would need.)
func (b *Board) realThree(p Point, d Dir, own, blocked uint32, level int) bool {
	free := windowMask &^ (own | blocked)
	for e := WindowRadius - 3; e <= WindowRadius+3; e++ {
		if free>>e&1 == 0 {
			continue
		}
		o := own | 1<<e
		if _, n := runAt(o, WindowRadius); n != 4 || !straightFour(o, fivePoints(o, blocked)) {
			continue
		}
		if level == FoulDepth {
			return true
		}
		dx, dy := d.Step()
		k := e - WindowRadius
		if b.foul(Pt(p.X()+k*dx, p.Y()+k*dy), level+1) == NoFoul {
			return true
		}
	}
	return false
}

// fivePoints are the free cells of a window where one more black stone
// makes exactly five in a row through the centre (own includes the
// centre). Such a cell lies within 4 of the centre; the run's end cells,
// which decide "exactly", within 5, inside the window.
func fivePoints(own, blocked uint32) uint32 {
	var fp uint32
	free := windowMask &^ (own | blocked)
	for e := WindowRadius - 4; e <= WindowRadius+4; e++ {
		if free>>e&1 == 0 {
			continue
		}
		if lo, n := runAt(own|1<<e, e); n == 5 && lo <= WindowRadius && WindowRadius < lo+5 {
			fp |= 1 << e
		}
	}
	return fp
}

// straightFour reports whether the window's stones through the centre are
// a straight four: an unbroken run of exactly four whose two ends are its
// five-points fp.
func straightFour(own, fp uint32) bool {
	lo, n := runAt(own, WindowRadius)
	return n == 4 && lo >= 1 && fp == 1<<(lo-1)|1<<(lo+4)
}

// runAt returns the first bit and the length of the run of set bits of w
// through bit i (which must be set).
func runAt(w uint32, i int) (lo, n int) {
	up := bits.TrailingZeros32(^(w >> i))
	down := bits.LeadingZeros32(^(w << (31 - i)))
	return i - down + 1, up + down - 1
}
