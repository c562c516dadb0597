package patterns

import (
	"math/bits"
	"slices"

	"ocvist/gomoku"
)

// Threat is one shape of one side on the board, found through the empty
// cells that complete it (never by rescanning the board).
//
//   - Shape Four: stones that make five with one more stone; Points holds
//     the five-point, Defence the same cell (under Renju, none for White's
//     four whose five-point is forbidden to Black: it cannot be blocked).
//     Broken tells SSS.S and SS.SS (the seed's closed4_incompl) from
//     SSSS. (half_closed4).
//   - Shape StraightFour: .SSSS., both ends in Points; it cannot be defended.
//   - Shape OpenThree / BrokenThree: stones that become a straight four
//     or a double four with a stone on one of Points; Defence holds every
//     cell where an opponent stone stops that. Three stones (.SSS., .S.SS.)
//     are the seed's open3 and open3_incompl; four stones (S.S.S.S, the
//     seed's double4_inline before its move) can only become a double four
//     and are reported by Double4Inline, not by the seed's three detectors.
//   - Shape DoubleFour: a move, Points[0], that would make two fours in
//     one line (the seed's double4_inline); Stones are the stones it joins
//     and Defence the cells that stop it beforehand.
type Threat struct {
	Side   gomoku.Player
	Shape  Shape
	Dir    gomoku.Dir
	Broken bool // the stones are not one run

	stones  [6]gomoku.Point
	points  [4]gomoku.Point
	defence [8]gomoku.Point
	ns, np  uint8
	nd      uint8
}

// Stones are the side's stones that form the threat, in line order.
func (t *Threat) Stones() []gomoku.Point { return t.stones[:t.ns] }

// Points are the empty cells that complete the threat.
func (t *Threat) Points() []gomoku.Point { return t.points[:t.np] }

// Defence are the empty cells where an opponent stone stops the threat.
func (t *Threat) Defence() []gomoku.Point { return t.defence[:t.nd] }

func (t *Threat) addPoint(q gomoku.Point) {
	for _, r := range t.points[:t.np] {
		if r == q {
			return
		}
	}
	if int(t.np) < len(t.points) {
		t.points[t.np] = q
		t.np++
	}
}

// Threats appends every four and three of side on the board (see Threat).
// Under Renju a Black threat completed only on forbidden points is none,
// and Black's forbidden points are no defence against White's.
func (p *Position) Threats(dst []Threat, side gomoku.Player) []Threat {
	dst = p.fours(dst, side)
	return p.threes(dst, side)
}

// fours appends side's fours and straight fours, found through its
// five-points.
func (p *Position) fours(dst []Threat, side gomoku.Player) []Threat {
	first := len(dst)
	set := p.sets[side-1][MakesFive]
	for f := range set.All() {
		for _, d := range gomoku.Dirs {
			if p.code[f][d][side-1] == Five {
				dst = p.addLine(dst, first, side, f, d, Four)
			}
		}
	}
	for i := first; i < len(dst); i++ {
		if t := &dst[i]; t.Shape == Four {
			t.nd = 0
			for _, f := range t.points[:t.np] {
				if p.mayPlay(side.Other(), f) {
					t.defence[t.nd] = f
					t.nd++
				}
			}
			if t.np >= 2 {
				t.Shape = StraightFour
			}
		}
	}
	return dst
}

// threes appends side's threes, found through the cells where a stone
// makes a straight four or a double four.
func (p *Position) threes(dst []Threat, side gomoku.Player) []Threat {
	first := len(dst)
	set := p.sets[side-1][MakesWin]
	for e := range set.All() {
		for _, d := range gomoku.Dirs {
			if s := p.code[e][d][side-1]; s == StraightFour || s == DoubleFour {
				dst = p.addLine(dst, first, side, e, d, OpenThree)
			}
		}
	}
	for i := first; i < len(dst); i++ {
		p.threeDefence(&dst[i])
	}
	return dst
}

// addLine records the threat that point q completes along d. For a four
// (q a five-point) the stones are the run through q; for a three (q a
// straight-four or double-four point) they are side's stones strictly
// between the outermost five-points a stone at q would make. Threats with
// the same stones and direction are merged, collecting their points; only
// dst[first:] is searched, so the caller's earlier threats (perhaps of
// another position) are never merged into.
func (p *Position) addLine(dst []Threat, first int, side gomoku.Player, q gomoku.Point, d gomoku.Dir, shape Shape) []Threat {
	own, blocked := p.b.Window(q, d, side)
	var m uint32
	if shape == Four {
		lo, n := runStart(own|centre, radius)
		m = (1<<n - 1) << lo &^ centre
	} else {
		m = fourStones(own|centre, uint32(p.tab[side-1].gain[key(own, blocked)]))
	}
	t := Threat{Side: side, Shape: shape, Dir: d}
	if r := m >> bits.TrailingZeros32(m); r&(r+1) != 0 {
		t.Broken = true
		if shape == OpenThree {
			t.Shape = BrokenThree
		}
	}
	for ; m != 0 && int(t.ns) < len(t.stones); m &= m - 1 {
		t.stones[t.ns] = step(q, d, bits.TrailingZeros32(m)-radius)
		t.ns++
	}
	for i := first; i < len(dst); i++ {
		if o := &dst[i]; o.Side == side && o.Dir == d && o.ns == t.ns && o.stones == t.stones {
			o.addPoint(q)
			return dst
		}
	}
	t.addPoint(q)
	return append(dst, t)
}

// threeDefence fills the defence of a three: the cells that, occupied by
// the opponent, leave none of its points a straight-four or double-four
// point along its line: the common stops of its points (see stopSets).
func (p *Position) threeDefence(t *Threat) {
	all, _ := p.stopSets(slices.Values(t.Points()), t.Side, 1<<t.Dir)
	all = p.legal(t.Side.Other(), all)
	var buf [8]gomoku.Point
	t.nd = uint8(copy(t.defence[:], all.AppendTo(buf[:0])))
}

// fourStones are the stones of the fives that the five-points in gain
// would complete, given own with the centre placed (centre excluded).
func fourStones(own, gain uint32) uint32 {
	var m uint32
	for g := gain; g != 0; g &= g - 1 {
		f := bits.TrailingZeros32(g)
		lo, n := runStart(own|1<<f, f)
		m |= (1<<n - 1) << lo
	}
	return m &^ gain &^ centre
}

// step is the cell k steps from q along d (q must be such that it exists).
func step(q gomoku.Point, d gomoku.Dir, k int) gomoku.Point {
	dx, dy := d.Step()
	return gomoku.Pt(q.X()+k*dx, q.Y()+k*dy)
}

// Open3 is the seed's open3: side's threes of three stones in one run
// (.SSS.), with the cells that defend against them.
func Open3(pos *Position, side gomoku.Player, dst []Threat) []Threat {
	return pos.pick(dst, side, OpenThree, false, false)
}

// Open3Incompl is the seed's open3_incompl: side's threes of three stones
// with a gap (.S.SS., .SS.S.), with their defence cells. Four stones that
// one move turns into two fours in one line (x o . . o o . o x) are no
// three: see Double4Inline.
func Open3Incompl(pos *Position, side gomoku.Player, dst []Threat) []Threat {
	return pos.pick(dst, side, BrokenThree, true, false)
}

// HalfClosed4 is the seed's half_closed4: side's fours whose stones are one
// run with a single five-point (xSSSS.), the five-point being the defence.
func HalfClosed4(pos *Position, side gomoku.Player, dst []Threat) []Threat {
	return pos.pick(dst, side, Four, false, true)
}

// Closed4Incompl is the seed's closed4_incompl: side's fours with a gap in
// their stones (SSS.S, SS.SS); the gap is the five-point and the defence.
func Closed4Incompl(pos *Position, side gomoku.Player, dst []Threat) []Threat {
	return pos.pick(dst, side, Four, true, true)
}

// pick appends the threats of one kind. It allocates only if dst is short.
func (p *Position) pick(dst []Threat, side gomoku.Player, shape Shape, broken, four bool) []Threat {
	first := len(dst)
	if four {
		dst = p.fours(dst, side)
	} else {
		dst = p.threes(dst, side)
	}
	out := dst[:first]
	for _, t := range dst[first:] {
		if t.Shape == shape && t.Broken == broken && (four || t.ns == 3) {
			out = append(out, t)
		}
	}
	return out
}

// Double4Inline is the seed's double4_inline: the moves of side that make
// two fours in one line (S.SSS.S, SS.SS.SS, SSS.S.SSS). Each threat holds
// the move in Points, the stones it joins, and its defence: the move and
// the cells that would become its five-points.
func Double4Inline(pos *Position, side gomoku.Player, dst []Threat) []Threat {
	set := pos.sets[side-1][MakesWin]
	for q := range set.All() {
		for _, d := range gomoku.Dirs {
			if pos.code[q][d][side-1] != DoubleFour {
				continue
			}
			own, blocked := pos.b.Window(q, d, side)
			gain := uint32(pos.tab[side-1].gain[key(own, blocked)])
			t := Threat{Side: side, Shape: DoubleFour, Dir: d, Broken: true}
			for m := fourStones(own|centre, gain); m != 0 && int(t.ns) < len(t.stones); m &= m - 1 {
				t.stones[t.ns] = step(q, d, bits.TrailingZeros32(m)-radius)
				t.ns++
			}
			t.addPoint(q)
			t.nd = 0
			if pos.mayPlay(side.Other(), q) {
				t.defence[0], t.nd = q, 1
			}
			for m := gain; m != 0; m &= m - 1 {
				if f := step(q, d, bits.TrailingZeros32(m)-radius); pos.mayPlay(side.Other(), f) {
					t.defence[t.nd] = f
					t.nd++
				}
			}
			dst = append(dst, t)
		}
	}
	return dst
}
