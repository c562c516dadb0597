package canon

import (
	"math/rand/v2"
	"slices"
	"testing"

	"ocvist/gomoku"
)

// propStats counts what the property test exercised.
type propStats struct {
	positions, symmetric, boards, copies, cells, refused int
	bySyms                                               [NumSyms + 1]int
}

// TestProperties checks, on seeded random positions with 1 to 80 stones
// (many pushed into corners and onto edges, many built symmetric), that
// the fast key equals the naive one, that every symmetry and on-board
// translation of the board gives the same key and the same canonical move
// for every cell carried along, and that ToCanon/FromCanon are exact up
// to the position's own symmetry.
func TestProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 7))
	var st propStats
	n := 12_000
	if testing.Short() {
		n = 1_000
	}
	for i := range n {
		var stones []Stone
		if i%3 == 0 {
			stones = symmetricStones(rng)
		} else {
			stones = randomStones(rng)
		}
		checkPosition(t, rng, stones, &st)
		if t.Failed() {
			t.Fatalf("position %d: %v", i, stones)
		}
	}
	t.Logf("%d positions (%d symmetric; by number of symmetries %v), %d boards, %d copies, %d cells; %d refused by gomoku (both have five)",
		st.positions, st.symmetric, st.bySyms[1:], st.boards, st.copies, st.cells, st.refused)
	if st.symmetric < n/4 || st.boards < n*85/100 {
		t.Errorf("too few symmetric positions (%d) or boards (%d) to be a real check", st.symmetric, st.boards)
	}
}

// placeBox returns a corner for a w-by-h box: a board corner a quarter of
// the time, touching an edge another quarter, anywhere otherwise.
func placeBox(rng *rand.Rand, w, h int) (int, int) {
	x, y := rng.IntN(gomoku.Size-w+1), rng.IntN(gomoku.Size-h+1)
	ends := func(n int) int { return rng.IntN(2) * (gomoku.Size - n) }
	switch rng.IntN(4) {
	case 0:
		x, y = ends(w), ends(h)
	case 1:
		if rng.IntN(2) == 0 {
			x = ends(w)
		} else {
			y = ends(h)
		}
	}
	return x, y
}

// randomStones puts 1 to 80 stones, alternately black and white, in a
// random region.
func randomStones(rng *rand.Rand) []Stone {
	n := 1 + rng.IntN(80)
	w, h := 1+rng.IntN(gomoku.Size), 1+rng.IntN(gomoku.Size)
	for w*h < n {
		w, h = min(w+1, gomoku.Size), min(h+1, gomoku.Size)
	}
	x0, y0 := placeBox(rng, w, h)
	var used [gomoku.NumCells]bool
	stones := make([]Stone, 0, n)
	for len(stones) < n {
		x, y := x0+rng.IntN(w), y0+rng.IntN(h)
		if !used[gomoku.Pt(x, y)] {
			used[gomoku.Pt(x, y)] = true
			stones = append(stones, Stone{x, y, gomoku.Player(1 + len(stones)%2)})
		}
	}
	return stones
}

// symmetricStones builds a position invariant under the group generated
// by one or two random symmetries: random seed cells around the board's
// centre, each completed to its orbit in one colour, then moved to a
// random place. The maps are the naive ones, not the package's tables.
func symmetricStones(rng *rand.Rand) []Stone {
	gens := [][2]int{{rng.IntN(2), rng.IntN(4)}}
	if rng.IntN(3) == 0 {
		gens = append(gens, [2]int{rng.IntN(2), rng.IntN(4)})
	}
	const c = gomoku.Size / 2
	r := 1 + rng.IntN(c)
	if rng.IntN(2) == 0 {
		r = min(r, 3)
	}
	var used [gomoku.NumCells]bool
	var stones []Stone
	for seeds := 1 + rng.IntN(12); seeds > 0 && len(stones) < 80; seeds-- {
		x, y := c-r+rng.IntN(2*r+1), c-r+rng.IntN(2*r+1)
		if used[gomoku.Pt(x, y)] {
			continue
		}
		color := gomoku.Player(1 + rng.IntN(2))
		orbit := []Stone{{x, y, color}}
		used[gomoku.Pt(x, y)] = true
		for i := 0; i < len(orbit); i++ {
			for _, g := range gens {
				gx, gy := naiveMap(g[0], g[1], orbit[i].X-c, orbit[i].Y-c)
				if p := gomoku.Pt(gx+c, gy+c); !used[p] {
					used[p] = true
					orbit = append(orbit, Stone{gx + c, gy + c, color})
				}
			}
		}
		stones = append(stones, orbit...)
	}
	x0, y0, x1, y1 := box(stones)
	x, y := placeBox(rng, x1-x0+1, y1-y0+1)
	return translate(stones, x, y)
}

func box(stones []Stone) (x0, y0, x1, y1 int) {
	x0, y0, x1, y1 = stones[0].X, stones[0].Y, stones[0].X, stones[0].Y
	for _, s := range stones {
		x0, y0, x1, y1 = min(x0, s.X), min(y0, s.Y), max(x1, s.X), max(y1, s.Y)
	}
	return
}

func checkPosition(t *testing.T, rng *rand.Rand, stones []Stone, st *propStats) {
	t.Helper()
	st.positions++
	imgs := naiveImages(stones)
	key := slices.Min(imgs[:])
	if got, err := Key(stones); got != key || err != nil {
		t.Fatalf("Key = %q, %v; naive %q", got, err, key)
	}
	if err := Validate(key); err != nil {
		t.Fatalf("Validate(%q): %v", key, err)
	}
	if dec, _, _, err := Decode(key); err != nil {
		t.Fatal(err)
	} else if enc, err := Encode(dec); enc != key || err != nil {
		t.Fatalf("Encode(Decode(%q)) = %q, %v", key, enc, err)
	}
	b, ok := boardOf(stones)
	if !ok {
		st.refused++
		return
	}
	st.boards++
	pos := Of(b)
	var want SymSet
	for s, img := range imgs {
		if img == key {
			want |= 1 << s
		}
	}
	if pos.Key != key || pos.Syms != want || !want.Has(pos.Sym) || want&(1<<pos.Sym-1) != 0 {
		t.Fatalf("Of: %q %v %08b; want %q %08b", pos.Key, pos.Sym, pos.Syms, key, want)
	}
	x0, y0, x1, y1 := box(stones)
	if bx, by, bw, bh := pos.Box(); bx != x0 || by != y0 || bw != x1-x0+1 || bh != y1-y0+1 {
		t.Fatalf("Box = %d,%d %dx%d", bx, by, bw, bh)
	}
	st.bySyms[want.Len()]++
	if want.Len() > 1 {
		st.symmetric++
	}
	checkStabilizer(t, b, pos)
	moves := checkCells(t, b, pos, st)

	// Every symmetry of the board, each at a random place, then every
	// on-board translation: same key, and each cell carried along keeps
	// its canonical move.
	type cellMap func(x, y int) (int, int)
	var maps []cellMap
	for s := range 8 {
		// Map around the centre; no stone leaves the board.
		const c = gomoku.Size / 2
		img := make([]Stone, len(stones))
		for i, s0 := range stones {
			x, y := naiveMap(s/4, s%4, s0.X-c, s0.Y-c)
			img[i] = Stone{x + c, y + c, s0.P}
		}
		ix0, iy0, ix1, iy1 := box(img)
		tx, ty := placeBox(rng, ix1-ix0+1, iy1-iy0+1)
		maps = append(maps, func(x, y int) (int, int) {
			x, y = naiveMap(s/4, s%4, x-c, y-c)
			return x + c - ix0 + tx, y + c - iy0 + ty
		})
	}
	for dy := -y0; dy < gomoku.Size-y1; dy++ {
		for dx := -x0; dx < gomoku.Size-x1; dx++ {
			maps = append(maps, func(x, y int) (int, int) { return x + dx, y + dy })
		}
	}
	for _, f := range maps {
		img := make([]Stone, len(stones))
		for i, s := range stones {
			x, y := f(s.X, s.Y)
			img[i] = Stone{x, y, s.P}
		}
		cb := mustBoard(t, img)
		cp := Of(cb)
		st.copies++
		if cp.Key != key || cp.Syms.Len() != pos.Syms.Len() {
			t.Fatalf("copy %v: key %q syms %08b; want %q", img, cp.Key, cp.Syms, key)
		}
		for p := gomoku.Point(0); p < gomoku.NumCells; p++ {
			if b.At(p) != gomoku.Empty {
				continue
			}
			x, y := f(p.X(), p.Y())
			if q := gomoku.Pt(x, y); q != gomoku.NoPoint && cp.ToCanon(q) != moves[p] {
				t.Fatalf("copy %v: cell %v carried to %v maps to %v, want %v", img, p, q, cp.ToCanon(q), moves[p])
			}
		}
	}
}

// images returns the on-board images of cell p under the symmetries of
// the position (pos.Sym⁻¹ ∘ s for s in Syms), p itself first.
func images(pos Position, p gomoku.Point) []gomoku.Point {
	bx, by, w, h := pos.Box()
	out := []gomoku.Point{p}
	for s := range Sym(NumSyms) {
		if !pos.Syms.Has(s) || s == pos.Sym {
			continue
		}
		x, y := s.Apply(p.X()-bx, p.Y()-by, w, h)
		x, y = pos.Sym.Unapply(x, y, w, h)
		if q := gomoku.Pt(x+bx, y+by); q != gomoku.NoPoint {
			out = append(out, q)
		}
	}
	return out
}

// checkStabilizer checks that each symmetry in Syms, taken back through
// Sym, maps the stones onto stones of the same colour.
func checkStabilizer(t *testing.T, b *gomoku.Board, pos Position) {
	t.Helper()
	bx, by, w, h := pos.Box()
	for s := range Sym(NumSyms) {
		if !pos.Syms.Has(s) {
			continue
		}
		for _, p := range b.History() {
			x, y := s.Apply(p.X()-bx, p.Y()-by, w, h)
			x, y = pos.Sym.Unapply(x, y, w, h)
			if q := gomoku.Pt(x+bx, y+by); q == gomoku.NoPoint || b.At(q) != b.At(p) {
				t.Fatalf("%v in Syms but moves stone %v to %v", s, p, q)
			}
		}
	}
}

// checkCells checks ToCanon/FromCanon on every empty cell and returns the
// canonical moves by cell.
func checkCells(t *testing.T, b *gomoku.Board, pos Position, st *propStats) [gomoku.NumCells]Move {
	t.Helper()
	var moves [gomoku.NumCells]Move
	var first [43][43]gomoku.Point // by move + 14: the first cell seen with it
	for i := range first {
		for j := range first[i] {
			first[i][j] = gomoku.NoPoint
		}
	}
	for p := gomoku.Point(0); p < gomoku.NumCells; p++ {
		if b.At(p) != gomoku.Empty {
			continue
		}
		st.cells++
		m := pos.ToCanon(p)
		moves[p] = m
		if want := smallestImage(pos, p); m != want {
			t.Fatalf("ToCanon(%v) = %v; smallest image by Y then X is %v", p, m, want)
		}
		imgs := images(pos, p)
		for _, q := range imgs[1:] {
			if pos.ToCanon(q) != m {
				t.Fatalf("equivalent cells %v and %v map to %v and %v", p, q, m, pos.ToCanon(q))
			}
		}
		q, ok := pos.FromCanon(m)
		if !ok || (pos.Syms.Len() == 1 && q != p) || !contains(imgs, q) {
			t.Fatalf("FromCanon(ToCanon(%v) = %v) = %v, %v; images of %v: %v", p, m, q, ok, p, imgs)
		}
		f := &first[int(m.Y)+14][int(m.X)+14]
		if *f == gomoku.NoPoint {
			*f = p
		} else if !contains(images(pos, *f), p) {
			t.Fatalf("inequivalent cells %v and %v both map to %v", *f, p, m)
		}
	}
	return moves
}

func contains(ps []gomoku.Point, p gomoku.Point) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// smallestImage is ToCanon's contract written out: the least image of p,
// by Y then X, over the symmetries in Syms.
func smallestImage(pos Position, p gomoku.Point) Move {
	bx, by, w, h := pos.Box()
	var best Move
	found := false
	for s := range Sym(NumSyms) {
		if pos.Syms.Has(s) {
			x, y := s.Apply(p.X()-bx, p.Y()-by, w, h)
			if m := (Move{int8(x), int8(y)}); !found || m.Y < best.Y || (m.Y == best.Y && m.X < best.X) {
				best, found = m, true
			}
		}
	}
	return best
}
