package patterns

import (
	"math/bits"

	"ocvist/gomoku"
)

// Shape is what one stone would make on one line through its cell, for one
// side, under one rule (see the package documentation for the definitions).
// Shapes are ordered by strength except Overline, which is last but is no
// threat at all under Standard (under Freestyle a long line is a Five).
type Shape uint8

// The shapes, weakest first.
const (
	None         Shape = iota
	Two                // one move from a three of any kind
	ClosedThree        // one move from a Four, never from a StraightFour
	BrokenThree        // a three (one move from a StraightFour) whose run through the cell is not 3 long: .S.SS.
	OpenThree          // a three whose stones are a run of 3: .SSS.
	Four               // exactly one five-point: SSSS., SSS.S, SS.SS
	DoubleFour         // two five-points in this one line that are not a straight four: S.SSS.S (the seed's double4_inline)
	StraightFour       // .SSSS. with both ends five-points
	Five               // a winning line under the rule
	Overline           // Standard only: six or more in a row, which does not win
	// NumShapes is the number of shapes (for tables indexed by Shape).
	NumShapes
)

var shapeNames = [NumShapes]string{"none", "two", "closed-three", "broken-three", "open-three",
	"four", "double-four", "straight-four", "five", "overline"}

// String is the shape's name, e.g. "open-three".
func (s Shape) String() string {
	if s < NumShapes {
		return shapeNames[s]
	}
	return "shape?"
}

// IsThree reports an open or broken three (one move from a straight four).
func (s Shape) IsThree() bool { return s == OpenThree || s == BrokenThree }

// IsFour reports a shape with at least one five-point: Four, DoubleFour or
// StraightFour.
func (s Shape) IsFour() bool { return s >= Four && s <= StraightFour }

// Wins reports a shape that cannot be stopped in one move (two five-points
// in the line) or is already five.
func (s Shape) Wins() bool { return s == DoubleFour || s == StraightFour || s == Five }

// class groups shapes into strength classes: a defence point lowers the
// class, a gain point raises it.
func (s Shape) class() int {
	return [NumShapes]int{0, 1, 2, 3, 3, 4, 5, 5, 6, 0}[s]
}

// Line keys. A window (own, blocked) of gomoku.WindowBits bits around an
// empty cell is reduced to a base-3 index over its 10 neighbours (the centre
// excluded): digit 0 empty, 1 own, 2 blocked (opponent or off-board).
const (
	radius  = gomoku.WindowRadius
	centre  = uint32(1) << radius
	numKeys = 59049 // 3^10
)

// tern maps the own bits of a window to their base-3 digits (weight 1),
// ignoring the centre bit; blocked bits use weight 2, i.e. 2*tern.
var tern [1 << gomoku.WindowBits]uint16

// key is the table index of a window; own and blocked must not overlap.
func key(own, blocked uint32) uint16 { return tern[own] + 2*tern[blocked] }

// table holds, per rule and key, the shape a stone at the centre makes, and
// two 11-bit masks of window cells: gain (empty cells where another stone
// raises the shape: the five-points of a four, the straight-four points of
// a three, the four points of a closed three, the three points of a two)
// and def (empty cells where an opponent stone lowers the shape's class).
type table struct {
	shape [numKeys]Shape
	gain  [numKeys]uint16
	def   [numKeys]uint16
	reach uint32 // window bits whose cell, seen from the centre, can change the centre's shape (the centre included)
	// near is shape keyed by the 8 nearest neighbours alone (see
	// nearKey), when no shape depends on the cells 5 away (reach; so
	// under Freestyle): 6,561 entries that stay in the L1 cache, where
	// shape's 59,049 do not. Nil otherwise.
	near []Shape
}

const (
	nearMask = 1<<(gomoku.WindowBits-2) - 1
	numNear  = 6561 // 3^8
)

// ternNear is tern for the 9 middle bits of a window (the centre
// ignored): the base-3 digits of the 8 cells within 4 of the centre, the
// index into table.near.
var ternNear [1 << (gomoku.WindowBits - 2)]uint16

var tables [2]table // Freestyle's and Standard's

// sideTables returns the tables of Black's shapes and White's under rule:
// under Renju, Black's are Standard's (exactly five wins) and White's
// Freestyle's (five or more).
func sideTables(rule gomoku.Rule) [2]*table {
	switch rule {
	case gomoku.Standard:
		return [2]*table{&tables[gomoku.Standard], &tables[gomoku.Standard]}
	case gomoku.Renju:
		return [2]*table{&tables[gomoku.Standard], &tables[gomoku.Freestyle]}
	}
	return [2]*table{&tables[gomoku.Freestyle], &tables[gomoku.Freestyle]}
}

func init() {
	for m := range tern {
		t, w := 0, 1
		for i := range gomoku.WindowBits {
			if i == radius {
				continue
			}
			if m>>i&1 != 0 {
				t += w
			}
			w *= 3
		}
		tern[m] = uint16(t)
	}
	for m := range ternNear {
		ternNear[m] = tern[m<<1] / 3
	}
	for r := range tables {
		b := builder{rule: gomoku.Rule(r), t: &tables[r]}
		for k := range numKeys {
			b.build(uint16(k))
		}
		tables[r].reach = reach(&tables[r])
		tables[r].near = nearShapes(&tables[r])
	}
}

// nearShapes builds table.near when the cells 5 away are outside reach.
func nearShapes(t *table) []Shape {
	if t.reach&(1|1<<(gomoku.WindowBits-1)) != 0 {
		return nil
	}
	near := make([]Shape, numNear)
	for k := range numNear {
		near[k] = t.shape[3*k] // the same digits one place up: the far cells empty
	}
	return near
}

// reach finds the window cells a shape depends on: bit i is set unless
// every key's shape is the same whatever cell i holds. Under Freestyle the
// cells at distance 5 never matter (a long line is a five too), so a stone
// needs not update the cells 5 away from it. The mask is symmetric in
// practice; it is mirrored anyway, as update reads it from the stone's side.
func reach(t *table) uint32 {
	dep := centre
	w := 1
	for j := range 10 {
		bit := uint32(1) << j
		if j >= radius {
			bit <<= 1
		}
		for k := range numKeys {
			if d := k / w % 3; d != 0 && t.shape[k] != t.shape[k-d*w] {
				dep |= bit
				break
			}
		}
		w *= 3
	}
	return bits.Reverse32(dep) >> (32 - gomoku.WindowBits)
}

// decode returns the window masks of key k, the centre counted as own.
func decode(k uint16) (own, blocked uint32) {
	own = centre
	for j := range 10 {
		bit := uint32(1) << j
		if j >= radius {
			bit <<= 1
		}
		switch k % 3 {
		case 1:
			own |= bit
		case 2:
			blocked |= bit
		}
		k /= 3
	}
	return own, blocked
}

// builder fills one rule's table; build memoises on done so that a key's
// shape can be derived from the keys with one more stone.
type builder struct {
	rule gomoku.Rule
	t    *table
	done [numKeys]bool
}

func (b *builder) build(k uint16) Shape {
	if b.done[k] {
		return b.t.shape[k]
	}
	own, blocked := decode(k)
	s, gain, def := b.classify(own, blocked)
	b.t.shape[k], b.t.gain[k], b.t.def[k], b.done[k] = s, gain, def, true
	return s
}

// classify derives the shape of a stone at the centre of (own, blocked)
// from the definitions; own includes the centre. It runs while the tables
// are built, not in play.
func (b *builder) classify(own, blocked uint32) (s Shape, gain, def uint16) {
	const all = 1<<gomoku.WindowBits - 1
	free := all &^ (own | blocked)
	if n := runLen(own, radius); n >= 5 {
		if n == 5 || b.rule == gomoku.Freestyle {
			return Five, 0, 0
		}
		return Overline, 0, 0
	}
	if fp := b.fivePoints(own, free); fp != 0 {
		s = fourShape(own, fp)
		return s, uint16(fp), b.defence(own, blocked, free, s)
	}
	if s, gain = b.lesserShape(own, blocked, free); s == None {
		return None, 0, 0
	}
	return s, gain, b.defence(own, blocked, free, s)
}

// fourShape names a four by its five-points fp: two of them make a double
// four, a straight four when they close an unbroken run of four.
func fourShape(own, fp uint32) Shape {
	if bits.OnesCount32(fp) < 2 {
		return Four
	}
	lo, n := runStart(own, radius)
	if n == 4 && lo >= 1 && lo+4 < gomoku.WindowBits && fp == 1<<(lo-1)|1<<(lo+4) {
		return StraightFour
	}
	return DoubleFour
}

// lesserShape names a shape without a five-point by the strongest class
// one more own stone reaches, and returns the cells that reach it (the
// gain): a three makes a straight or double four (an open three when its
// stones are one unbroken run), a closed three a four, a two a three.
func (b *builder) lesserShape(own, blocked, free uint32) (Shape, uint16) {
	var threePts, fourPts, twoPts uint32
	for f := free; f != 0; f &= f - 1 {
		e := uint32(bits.TrailingZeros32(f))
		switch b.build(key(own|1<<e, blocked)).class() {
		case 5:
			threePts |= 1 << e
		case 4:
			fourPts |= 1 << e
		case 3, 2:
			twoPts |= 1 << e
		}
	}
	switch {
	case threePts != 0:
		if _, n := runStart(own, radius); n == 3 {
			return OpenThree, uint16(threePts)
		}
		return BrokenThree, uint16(threePts)
	case fourPts != 0:
		return ClosedThree, uint16(fourPts)
	case twoPts != 0:
		return Two, uint16(twoPts)
	}
	return None, 0
}

// fivePoints are the free cells where one more stone makes a five (under
// the rule) whose run contains the centre.
func (b *builder) fivePoints(own, free uint32) uint32 {
	var fp uint32
	for f := free; f != 0; f &= f - 1 {
		e := bits.TrailingZeros32(f)
		o := own | 1<<e
		lo, n := runStart(o, e)
		if (n == 5 || n > 5 && b.rule == gomoku.Freestyle) && lo <= radius && radius < lo+n {
			fp |= 1 << e
		}
	}
	return fp
}

// defence is the set of free cells where an opponent stone lowers the
// class of shape s.
func (b *builder) defence(own, blocked, free uint32, s Shape) uint16 {
	var def uint32
	for f := free; f != 0; f &= f - 1 {
		e := uint32(bits.TrailingZeros32(f))
		if b.build(key(own, blocked|1<<e)).class() < s.class() {
			def |= 1 << e
		}
	}
	return uint16(def)
}

// runStart returns the lowest bit and the length of the run of set bits of
// w through bit i (which must be set).
func runStart(w uint32, i int) (lo, n int) {
	up := bits.TrailingZeros32(^(w >> i))
	down := bits.LeadingZeros32(^(w << (31 - i))) // includes bit i
	return i - down + 1, up + down - 1
}

// runLen is the length of the run of set bits of w through bit i.
func runLen(w uint32, i int) int { _, n := runStart(w, i); return n }
