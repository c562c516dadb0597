package search

import "testing"

// TestSetTableBytes: the table takes the largest power of two of buckets
// within the bytes given (64 bytes a bucket), and 0 gives back the size
// the searcher was made with.
func TestSetTableBytes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TTBits = 15
	s := New(cfg)
	for _, c := range []struct {
		bytes int64
		bits  int
	}{
		{183_500_800, 21}, // half of Gomocup's usual 350 MB: 128 MiB
		{128 << 20, 21},
		{128<<20 - 1, 20},
		{1 << 10, 4},
		{0, 15},
	} {
		s.SetTableBytes(c.bytes)
		if s.cfg.TTBits != c.bits || len(s.tt.slots) != bucketSize<<c.bits {
			t.Errorf("SetTableBytes(%d): %d bits, %d slots; want %d bits, %d slots", c.bytes, s.cfg.TTBits, len(s.tt.slots), c.bits, bucketSize<<c.bits)
		}
	}
}
