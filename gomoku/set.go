package gomoku

import (
	"iter"
	"math/bits"
)

// Set is a set of points as a bitset over the NumCells cells: bit p%64 of
// word p/64 is set when p is a member. It is a small value: copying it
// gives an independent set. The zero value is the empty set.
//
// Set is the one bit-set type of Ocvist: the board's candidate cells and
// the class sets of package patterns are Sets, and All is the one way to
// walk one.
type Set [4]uint64

// Add puts p in the set.
func (s *Set) Add(p Point) { s[p>>6] |= 1 << (p & 63) }

// Remove takes p out of the set.
func (s *Set) Remove(p Point) { s[p>>6] &^= 1 << (p & 63) }

// Has reports whether p is in the set.
func (s Set) Has(p Point) bool { return s[p>>6]&(1<<(p&63)) != 0 }

// Len is the number of points in the set.
func (s Set) Len() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

// Empty reports whether the set has no points.
func (s Set) Empty() bool { return s[0]|s[1]|s[2]|s[3] == 0 }

// First returns the lowest point of the set, or NoPoint if it is empty.
func (s Set) First() Point {
	for w, word := range s {
		if word != 0 {
			return Point(w*64 + bits.TrailingZeros64(word))
		}
	}
	return NoPoint
}

// All yields the points of the set in increasing order. The set is a
// value, copied when All is called, so the loop body may change the
// original.
func (s Set) All() iter.Seq[Point] {
	return func(yield func(Point) bool) {
		for w, word := range s {
			for ; word != 0; word &= word - 1 {
				if !yield(Point(w*64 + bits.TrailingZeros64(word))) {
					return
				}
			}
		}
	}
}

// AppendTo appends the points of the set to dst in increasing order and
// returns it.
func (s Set) AppendTo(dst []Point) []Point {
	for p := range s.All() {
		dst = append(dst, p)
	}
	return dst
}

// Union returns the points in s or t.
func (s Set) Union(t Set) Set { return Set{s[0] | t[0], s[1] | t[1], s[2] | t[2], s[3] | t[3]} }

// Intersect returns the points in both s and t.
func (s Set) Intersect(t Set) Set { return Set{s[0] & t[0], s[1] & t[1], s[2] & t[2], s[3] & t[3]} }

// Minus returns the points of s that are not in t.
func (s Set) Minus(t Set) Set { return Set{s[0] &^ t[0], s[1] &^ t[1], s[2] &^ t[2], s[3] &^ t[3]} }

// Grow returns the cells within Chebyshev distance r of a point of s (the
// points of s included): r steps sideways, then r steps up and down, each
// a shift of the whole set with the cells that would wrap to another row
// masked off. Guarded by BenchmarkCandidates.
func (s Set) Grow(r int) Set {
	for range r {
		up, down := s.shiftUp(1), s.shiftDown(1)
		for i := range s {
			s[i] |= up[i]&notFirstColumn[i] | down[i]&notLastColumn[i]
		}
	}
	for range r {
		up, down := s.shiftUp(Size), s.shiftDown(Size)
		for i := range s {
			s[i] |= up[i] | down[i]
		}
	}
	s[3] &= allCells[3]
	return s
}

// shiftUp moves every point p to p+k (0 < k < 64); points past the last
// word are dropped, points past the last cell are kept (mask them).
func (s Set) shiftUp(k uint) Set {
	return Set{s[0] << k, s[1]<<k | s[0]>>(64-k), s[2]<<k | s[1]>>(64-k), s[3]<<k | s[2]>>(64-k)}
}

// shiftDown moves every point p to p-k (0 < k < 64); points below 0 are
// dropped.
func (s Set) shiftDown(k uint) Set {
	return Set{s[0]>>k | s[1]<<(64-k), s[1]>>k | s[2]<<(64-k), s[2]>>k | s[3]<<(64-k), s[3] >> k}
}

// Masks of Grow: every cell, and every cell but those of the first or the
// last column.
var allCells, notFirstColumn, notLastColumn Set

func init() {
	for p := Point(0); p < NumCells; p++ {
		allCells.Add(p)
		if p.X() != 0 {
			notFirstColumn.Add(p)
		}
		if p.X() != Size-1 {
			notLastColumn.Add(p)
		}
	}
}

// Distance is the Chebyshev distance between p and q: the number of king
// steps from one to the other, the measure of the board's candidate radius.
func (p Point) Distance(q Point) int {
	return max(absInt(p.X()-q.X()), absInt(p.Y()-q.Y()))
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
