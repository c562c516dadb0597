package young

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIDIndex checks the index's sorted merge updates against a map:
// random sorted streams of ids (repeats included, as two keys of one id
// give) take and put values.
func TestIDIndex(t *testing.T) {
	x, ref := &Index{}, map[int64]int64{}
	rng := rand.New(rand.NewPCG(5, 5))
	for round := range 200 {
		ids := make([]int64, rng.IntN(500))
		for i := range ids {
			ids[i] = rng.Int64N(2000) - 1000
		}
		slices.Sort(ids)
		c := x.Cursor()
		for _, id := range ids {
			if got := c.Take(id); got != ref[id] {
				t.Fatalf("round %d: take %d = %d, want %d", round, id, got, ref[id])
			}
			v := rng.Int64N(4) - 1 // promoted, absent or a count
			c.Put(id, v)
			if v == 0 {
				delete(ref, id)
			} else {
				ref[id] = v
			}
		}
		old := x.s
		x.Replace(c.Done())
		if len(old) > 0 && &x.spare[0] != &old[0] {
			t.Fatalf("round %d: the old array is not the spare", round)
		}
		var mature int64
		for id, v := range ref {
			if x.Get(id) != v {
				t.Fatalf("round %d: get %d = %d, want %d", round, id, x.Get(id), v)
			}
			if v == Promoted {
				mature++
			}
		}
		if x.Len() != len(ref) || x.mature != mature || !slices.IsSortedFunc(x.s, func(a, b slot) int { return cmp.Compare(a.id, b.id) }) {
			t.Fatalf("round %d: %d entries (%d promoted), want %d (%d)", round, x.Len(), x.mature, len(ref), mature)
		}
	}
}
