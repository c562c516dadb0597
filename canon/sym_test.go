package canon

import "testing"

// TestSymTables checks Apply against the rotations and mirror written out
// by hand, and Unapply/Inverse/Dims against Apply, on boxes of every shape
// and on points outside the box.
func TestSymTables(t *testing.T) {
	rot := func(x, y, w, h int) (int, int, int, int) { return h - 1 - y, x, h, w } // 90° clockwise, y down
	for w := 1; w <= 6; w++ {
		for h := 1; h <= 6; h++ {
			for s := range Sym(NumSyms) {
				for y := -3; y < h+3; y++ {
					for x := -3; x < w+3; x++ {
						ex, ey, ew, eh := x, y, w, h
						if s >= Mirror {
							ex = w - 1 - x
						}
						for range s % 4 {
							ex, ey, ew, eh = rot(ex, ey, ew, eh)
						}
						gx, gy := s.Apply(x, y, w, h)
						if gx != ex || gy != ey {
							t.Fatalf("%v.Apply(%d,%d,%d,%d) = %d,%d; want %d,%d", s, x, y, w, h, gx, gy, ex, ey)
						}
						if dw, dh := s.Dims(w, h); dw != ew || dh != eh {
							t.Fatalf("%v.Dims(%d,%d) = %d,%d; want %d,%d", s, w, h, dw, dh, ew, eh)
						}
						if ux, uy := s.Unapply(gx, gy, w, h); ux != x || uy != y {
							t.Fatalf("%v.Unapply(%d,%d,%d,%d) = %d,%d; want %d,%d", s, gx, gy, w, h, ux, uy, x, y)
						}
						if ix, iy := s.Inverse().Apply(gx, gy, ew, eh); ix != x || iy != y {
							t.Fatalf("%v.Inverse() = %v does not undo it", s, s.Inverse())
						}
					}
				}
			}
		}
	}
	if AllSyms.Len() != NumSyms || !AllSyms.Has(MirrorRot270) || SymSet(1<<Rot90).Has(Rot270) {
		t.Error("SymSet")
	}
}
