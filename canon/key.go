package canon

import (
	"math/bits"

	"ocvist/gomoku"
)

// Move is a move in the canonical frame of a Position: column X and row Y
// counted from the corner of the canonical image of the stones' box, as in
// the key's tokens. It may lie outside the box (negative or beyond it).
type Move struct{ X, Y int8 }

// Position is the canonical form of a board: its key, the symmetries that
// produce the key, and the box needed to map moves. It is a small value,
// independent of the board it came from; the zero Position is not usable —
// get one from Of.
type Position struct {
	// Key is the canonical key (format Version; see the package comment).
	Key string
	// Sym is the lowest-numbered symmetry whose image of the box is Key.
	Sym Sym
	// Syms holds every symmetry whose image is Key; it always contains
	// Sym and has more members exactly when the position is symmetric.
	Syms SymSet

	x0, y0, w, h int8 // the stones' box on the board (whole board when empty)
}

// Of computes the canonical form of the stones on b. It allocates once,
// for the key. Guarded by BenchmarkKey40 (target: 2 µs for 40 stones).
func Of(b *gomoku.Board) Position {
	var g grid
	for _, p := range b.History() {
		g.add(p.X(), p.Y(), b.At(p) == gomoku.Black)
	}
	if g.n == 0 {
		return Position{Sym: Identity, Syms: AllSyms, w: gomoku.Size, h: gomoku.Size}
	}
	x0, y0 := g.trim()
	pos := Position{x0: int8(x0), y0: int8(y0), w: int8(g.w), h: int8(g.h)}
	pos.Key, pos.Sym, pos.Syms = g.canonical()
	return pos
}

// Box returns the stones' bounding box on the board: left column x, top
// (Gomocup) row y, width w and height h. For the empty board it is the
// whole board.
func (pos Position) Box() (x, y, w, h int) {
	return int(pos.x0), int(pos.y0), int(pos.w), int(pos.h)
}

// ToCanon maps board cell p into the canonical frame. For a symmetric
// position it returns the smallest image — least Y, then least X — of p
// over all symmetries in Syms, so cells that a symmetry of the position
// maps onto each other get the same Move and all others get different
// Moves. p must be on the board (a caller bug otherwise: ToCanon panics).
// Guarded by BenchmarkToCanon.
func (pos Position) ToCanon(p gomoku.Point) Move {
	if !p.Valid() {
		panic("canon: ToCanon of a point off the board")
	}
	u, v, w, h := p.X()-int(pos.x0), p.Y()-int(pos.y0), int(pos.w), int(pos.h)
	bx, by := pos.Sym.Apply(u, v, w, h)
	for ss := pos.Syms &^ (1 << pos.Sym); ss != 0; ss &= ss - 1 {
		s := Sym(bits.TrailingZeros8(uint8(ss)))
		if x, y := s.Apply(u, v, w, h); y < by || (y == by && x < bx) {
			bx, by = x, y
		}
	}
	return Move{X: int8(bx), Y: int8(by)}
}

// FromCanon maps a canonical move back onto the board. For a position with
// one symmetry it is the exact inverse of ToCanon: FromCanon(ToCanon(p))
// is p. For a symmetric position a move stands for a class of cells that
// the position's symmetries map onto each other; FromCanon returns the
// first of them, trying the symmetries in Syms in increasing order, that
// lies on the board, so FromCanon(ToCanon(p)) is p or an image of p under
// a symmetry of the stones, and always on the board. ok is false when no
// cell of the class is on the board.
func (pos Position) FromCanon(m Move) (p gomoku.Point, ok bool) {
	x, y, w, h := int(m.X), int(m.Y), int(pos.w), int(pos.h)
	for ss := pos.Syms; ss != 0; ss &= ss - 1 {
		s := Sym(bits.TrailingZeros8(uint8(ss)))
		u, v := s.Unapply(x, y, w, h)
		if p = gomoku.Pt(u+int(pos.x0), v+int(pos.y0)); p != gomoku.NoPoint {
			return p, true
		}
	}
	return gomoku.NoPoint, false
}

// grid holds stones as bitmasks, by row and by column, so each symmetry's
// token order is a walk over lines and set bits.
type grid struct {
	rows, rowsX [gomoku.Size]uint16 // rows[y] has bit x set for a stone at (x, y); rowsX for Black
	cols, colsX [gomoku.Size]uint16 // the same, transposed
	w, h, n     int
}

// add puts a stone at (x, y), 0 <= x, y < gomoku.Size, on an empty cell.
func (g *grid) add(x, y int, black bool) {
	g.rows[y] |= 1 << x
	g.cols[x] |= 1 << y
	if black {
		g.rowsX[y] |= 1 << x
		g.colsX[x] |= 1 << y
	}
	g.n++
}

// trim moves the stones (at least one) to the box corner, sets w and h and
// returns the corner's old position.
func (g *grid) trim() (x0, y0 int) {
	var xs, ys uint16
	for i := range gomoku.Size {
		xs |= g.rows[i]
		ys |= g.cols[i]
	}
	x0, y0 = bits.TrailingZeros16(xs), bits.TrailingZeros16(ys)
	g.w, g.h = bits.Len16(xs)-x0, bits.Len16(ys)-y0
	shift(&g.rows, &g.rowsX, y0, x0)
	shift(&g.cols, &g.colsX, x0, y0)
	return x0, y0
}

func shift(lines, linesX *[gomoku.Size]uint16, by, n int) {
	for i := range gomoku.Size {
		var l, lx uint16
		if i+by < gomoku.Size {
			l, lx = lines[i+by]>>n, linesX[i+by]>>n
		}
		lines[i], linesX[i] = l, lx
	}
}

// canonical finds the smallest image of the (trimmed, non-empty) grid and
// returns its key, the first symmetry giving it and all that do.
//
// Each image is a list of token codes, column<<5 | row<<1 | black, in
// token order (row, then column). Comparing codes compares tokens exactly
// as bytes would: column digits first, then row digits, then 'o' < 'x'.
// Images are generated one at a time and abandoned at their first token
// greater than the best so far; only the winner becomes a string.
func (g *grid) canonical() (string, Sym, SymSet) {
	var buf [2][gomoku.NumCells]uint16
	best, cur := buf[0][:g.n], buf[1][:g.n]
	g.scan(Identity, best, nil)
	sym, set := Identity, SymSet(1)
	for s := Sym(1); s < NumSyms; s++ {
		switch g.scan(s, cur, best) {
		case -1:
			best, cur = cur, best
			sym, set = s, 1<<s
		case 0:
			set |= 1 << s
		}
	}
	return keyString(best), sym, set
}

// scan writes the token codes of the image under s into dst, comparing
// them with best on the way. It returns -1 when the image is smaller than
// best (or best is nil), 0 when equal and +1 when greater, in which case
// it stops early and dst is incomplete. Hot loop: kept in one piece.
func (g *grid) scan(s Sym, dst, best []uint16) int {
	op := symOps[s]
	lines, linesX, outer, inner := &g.rows, &g.rowsX, g.h, g.w
	if op.swap {
		lines, linesX, outer, inner = &g.cols, &g.colsX, g.w, g.h
	}
	cmp := 0
	if best == nil {
		cmp = -1
	}
	i := 0
	for r := range outer {
		o := r
		if op.flipY {
			o = outer - 1 - r
		}
		m, mx := lines[o], linesX[o]
		for m != 0 {
			var at, c int
			if op.flipX { // walk the line's bits downwards
				at = 15 - bits.LeadingZeros16(m)
				m &^= 1 << at
				c = inner - 1 - at
			} else {
				at = bits.TrailingZeros16(m)
				m &= m - 1
				c = at
			}
			code := uint16(c<<5 | r<<1 | int(mx>>at&1))
			if cmp == 0 && code != best[i] {
				if code > best[i] {
					return 1
				}
				cmp = -1
			}
			dst[i] = code
			i++
		}
	}
	return cmp
}

// keyString formats token codes as a key, allocating once (the string).
func keyString(codes []uint16) string {
	var buf [tokenLen * gomoku.NumCells]byte
	for i, code := range codes {
		c, r, t := code>>5, code>>1&15, buf[tokenLen*i:tokenLen*i+tokenLen]
		t[0], t[1] = byte('0'+c/10), byte('0'+c%10)
		t[2], t[3] = byte('0'+r/10), byte('0'+r%10)
		t[4] = "ox"[code&1]
	}
	return string(buf[:tokenLen*len(codes)])
}
