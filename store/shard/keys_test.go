package shard

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/store"
)

// keysCfg is the configuration of the runs these tests write.
var keysCfg = store.Config{Rule: gomoku.Freestyle, KeyVersion: 1, BoardSize: 15}

// randomBoard is a board of 1 to 60 stones placed at random, each player in
// turn, without a five.
func randomBoard(rng *rand.Rand) *gomoku.Board {
	b := gomoku.New(gomoku.Options{Rule: gomoku.Freestyle})
	for n := 1 + rng.IntN(60); n > 0; n-- {
		p := gomoku.Point(rng.IntN(gomoku.NumCells))
		if b.At(p) == gomoku.Empty {
			b.Put(p, gomoku.Player(1+n%2))
			if b.Over() {
				b.Undo()
			}
		}
	}
	return b
}

// image is b under the board symmetry s.
func image(t *testing.T, b *gomoku.Board, s canon.Sym) *gomoku.Board {
	t.Helper()
	out := gomoku.New(b.Options())
	for p := range gomoku.Point(gomoku.NumCells) {
		if c := b.At(p); c != gomoku.Empty {
			x, y := s.Apply(p.X(), p.Y(), gomoku.Size, gomoku.Size)
			if err := out.Put(gomoku.Pt(x, y), c); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// TestKeysThroughRuns: the key format is canon's alone. For 400 random
// positions, each of the 8 images of the board gets one key from canon;
// written by the store into a run (packed by canon) and read back, every
// key is the text canon made, and its stones are the position's (Decode,
// placed on an empty board, give the same key).
func TestKeysThroughRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	keys := map[string]bool{}
	for range 400 {
		b := randomBoard(rng)
		key := canon.Of(b).Key
		for s := range canon.Sym(canon.NumSyms) {
			if k := canon.Of(image(t, b, s)).Key; k != key {
				t.Fatalf("image %v has key %q, the board %q", s, k, key)
			}
		}
		keys[key] = true
	}
	ps := make([]Position, 0, len(keys))
	for key := range keys {
		ps = append(ps, Position{ID: canon.ID(key), key: []byte(key), hasKey: true, Moves: []MoveRow{{WSum: 1, Games: 1}}})
	}
	slices.SortFunc(ps, func(p, q Position) int { return ComparePositions(&p, &q) })
	path := filepath.Join(t.TempDir(), "keys.run")
	w, err := Create(path, Header{Kind: KindShard, Config: keysCfg, ID: "keys"})
	if err != nil {
		t.Fatal(err)
	}
	packed := 0
	for i := range ps {
		if ps[i].Encoded()[0] == keyPacked {
			packed++
		}
		if err := w.Position(&ps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := w.Seal(Counts{}); err != nil {
		t.Fatal(err)
	}
	if packed != len(ps) {
		t.Errorf("%d of %d keys packed; every key of a board packs", packed, len(ps))
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; ; i++ {
		p, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			if i != len(ps) {
				t.Fatalf("read %d positions, wrote %d", i, len(ps))
			}
			break
		}
		got := string(p.Text())
		if got != string(ps[i].key) || p.ID != canon.ID(got) {
			t.Fatalf("position %d read as %q (id %d), written %q (id %d)", i, got, p.ID, ps[i].key, ps[i].ID)
		}
		stones, _, _, err := canon.Decode(got)
		if err != nil {
			t.Fatal(err)
		}
		if k, err := canon.Key(stones); err != nil || k != got {
			t.Fatalf("the stones of %q give the key %q, %v", got, k, err)
		}
	}
}

// TestUnpackableKeys: keys that do not pack (out of order, more than 255
// stones, a cell off the 16x16 grid) are written as text and read back as
// they were.
func TestUnpackableKeys(t *testing.T) {
	for _, key := range []string{
		"0100x0000o",                 // out of order
		strings.Repeat("0000x", 256), // too many (and not a position: the run does not care)
		"1600x",                      // column 16
		"0000x0000o",                 // one cell twice
		"00a0x",                      // not digits
	} {
		enc := AppendKey(nil, []byte(key))
		if enc[0] != keyText {
			t.Errorf("%.20q… packed: %x", key, enc[:min(len(enc), 8)])
		}
		if got := string(DecodeKey(nil, enc)); got != key {
			t.Errorf("%.20q… read back as %.20q…", key, got)
		}
	}
}

// TestKeyEncoding: canonical keys are packed and read back exactly; other
// keys (and keys of stones out of order or beyond 15) stay text.
func TestKeyEncoding(t *testing.T) {
	for _, tc := range []struct {
		key    string
		packed bool
	}{
		{"0000x", true},
		{"0000x0101o0201x0301x0002o0202o0302o0402x0303o0503x", true},
		{"1515o", true},
		{"", false},
		{"a", false},
		{"0101x0000o", false}, // out of order
		{"1600x", false},      // column 16
		{"0000y", false},
		{"k2345", false},
	} {
		b := AppendKey(nil, []byte(tc.key))
		if (b[0] == keyPacked) != tc.packed {
			t.Errorf("%q: packed %v, want %v", tc.key, b[0] == keyPacked, tc.packed)
		}
		r := &Reader{buf: append(b, make([]byte, 16)...), w: len(b) + 16}
		enc, err := r.rawKey(nil)
		if err != nil || string(enc) != string(b) || r.r != len(b) {
			t.Errorf("%q: read back %q, %v (%d of %d bytes)", tc.key, enc, err, r.r, len(b))
		} else if got := DecodeKey(nil, enc); string(got) != tc.key {
			t.Errorf("%q: decoded %q", tc.key, got)
		}
	}
}
