package splitmix

import "testing"

// The first outputs of SplitMix64 seeded with 0, from the reference
// implementation (splitmix64.c by Sebastiano Vigna).
func TestSourceReference(t *testing.T) {
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	var s Source
	for i, w := range want {
		if got := s.Next(); got != w {
			t.Fatalf("output %d: %#x, want %#x", i, got, w)
		}
	}
}

func TestDeriveDistinct(t *testing.T) {
	seen := map[uint64]string{}
	for seed := range uint64(4) {
		for a := range uint64(16) {
			for b := range uint64(16) {
				z := Derive(seed, a, b)
				if prev, ok := seen[z]; ok {
					t.Fatalf("Derive(%d, %d, %d) = Derive(%s)", seed, a, b, prev)
				}
				seen[z] = string(rune('0'+seed)) + "," + string(rune('a'+a)) + "," + string(rune('a'+b))
			}
		}
	}
	if Derive(7, 1, 2) == Derive(7, 2, 1) {
		t.Fatal("Derive ignores the order of its labels")
	}
	if Derive(9) != Mix(9) {
		t.Fatal("Derive(seed) must be Mix(seed)")
	}
}
