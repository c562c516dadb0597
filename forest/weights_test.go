package forest

import "testing"

// TestLeafClampsRounding: a split's right-side class totals are computed
// by subtraction and may come out as -1e-16 instead of 0 (a fit on
// generation-0 rows weighted wins/games once saved a leaf probability of
// -7.1e-16, which Load then refused). A leaf must hold probabilities in
// [0, 1] summing to 1.
func TestLeafClampsRounding(t *testing.T) {
	b := &builder{out: tree{feat: make([]int32, 1), child: make([]int32, 1)}}
	b.leaf(0, []float64{-7.105427357601002e-15, 3.5})
	if p := b.out.probs; len(p) != 2 || p[0] != 0 || p[1] != 1 {
		t.Errorf("leaf probabilities %v, want [0 1]", p)
	}
}
