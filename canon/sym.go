package canon

import "math/bits"

// Sym is one of the 8 symmetries of a rectangular box: the 4 rotations
// (clockwise, on the board as drawn: Gomocup rows grow downwards), each
// optionally preceded by a left-right mirror. Valid values are 0..7.
type Sym uint8

// The symmetries. MirrorRotN mirrors left-right first, then rotates.
const (
	Identity Sym = iota
	Rot90
	Rot180
	Rot270
	Mirror
	MirrorRot90
	MirrorRot180
	MirrorRot270
)

// NumSyms is the number of symmetries.
const NumSyms = 8

// symOp describes a symmetry as "swap the axes, then flip the columns
// and/or the rows", which is how the key scanner walks a box.
type symOp struct{ swap, flipX, flipY bool }

// symOps is the table behind Apply; the order matches the constants above.
var symOps = [NumSyms]symOp{
	Identity:     {},
	Rot90:        {swap: true, flipX: true},
	Rot180:       {flipX: true, flipY: true},
	Rot270:       {swap: true, flipY: true},
	Mirror:       {flipX: true},
	MirrorRot90:  {swap: true, flipX: true, flipY: true},
	MirrorRot180: {flipY: true},
	MirrorRot270: {swap: true},
}

var (
	symNames = [NumSyms]string{"identity", "rot90", "rot180", "rot270",
		"mirror", "mirror+rot90", "mirror+rot180", "mirror+rot270"}
	inverses [NumSyms]Sym // built at initialisation from symOps
)

func init() {
	// Find each inverse by trying: on a 3x2 box every symmetry moves the
	// corners differently, so the first t with t(s(p)) = p for all six
	// cells is the inverse.
	for s := range Sym(NumSyms) {
		for t := range Sym(NumSyms) {
			if undoes(t, s, 3, 2) {
				inverses[s] = t
				break
			}
		}
	}
}

func undoes(t, s Sym, w, h int) bool {
	sw, sh := s.Dims(w, h)
	for y := range h {
		for x := range w {
			a, b := s.Apply(x, y, w, h)
			if c, d := t.Apply(a, b, sw, sh); c != x || d != y {
				return false
			}
		}
	}
	return true
}

// Apply maps column x and row y of a w-by-h box to the same cell's column
// and row in the box's image under s, whose size is s.Dims(w, h). It is an
// affine map, so points outside the box map consistently too.
func (s Sym) Apply(x, y, w, h int) (int, int) {
	op := symOps[s&7]
	if op.swap {
		x, y, w, h = y, x, h, w
	}
	if op.flipX {
		x = w - 1 - x
	}
	if op.flipY {
		y = h - 1 - y
	}
	return x, y
}

// Unapply is the inverse of Apply: given column x and row y in the image
// under s of a w-by-h box (w, h are the original box's size), it returns
// the column and row in the original box.
func (s Sym) Unapply(x, y, w, h int) (int, int) {
	iw, ih := s.Dims(w, h)
	return s.Inverse().Apply(x, y, iw, ih)
}

// Dims is the size of the image of a w-by-h box under s.
func (s Sym) Dims(w, h int) (int, int) {
	if symOps[s&7].swap {
		return h, w
	}
	return w, h
}

// Inverse returns the symmetry that undoes s.
func (s Sym) Inverse() Sym { return inverses[s&7] }

// String names the symmetry, e.g. "mirror+rot90".
func (s Sym) String() string { return symNames[s&7] }

// SymSet is a set of symmetries: bit s is set when Sym s is a member.
type SymSet uint8

// AllSyms holds all 8 symmetries.
const AllSyms SymSet = 0xff

// Has reports whether s is in the set.
func (ss SymSet) Has(s Sym) bool { return ss&(1<<(s&7)) != 0 }

// Len is the number of symmetries in the set.
func (ss SymSet) Len() int { return bits.OnesCount8(uint8(ss)) }
