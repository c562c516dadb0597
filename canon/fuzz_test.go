package canon

import (
	"errors"
	"strings"
	"testing"
)

// FuzzDecode: Decode never panics; bad input gets an ErrBadKey error
// prefixed "canon: "; good input re-encodes, and its canonical key
// validates and round-trips.
func FuzzDecode(f *testing.F) {
	for _, s := range append(designVector, "", "0000x", "0000", "1500x", "0000x0000o", "14140o0000x", "0a00x") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		stones, w, h, err := Decode(in)
		verr := Validate(in)
		if err != nil {
			if !errors.Is(err, ErrBadKey) || !strings.HasPrefix(err.Error(), "canon: ") || verr == nil {
				t.Fatalf("Decode(%q): error %v (Validate: %v)", in, err, verr)
			}
			return
		}
		if len(stones)*tokenLen != len(in) || (len(stones) == 0) != (w == 0 && h == 0) {
			t.Fatalf("Decode(%q) = %d stones, %dx%d", in, len(stones), w, h)
		}
		enc, err := Encode(stones)
		if err != nil {
			t.Fatalf("Encode(Decode(%q)): %v", in, err)
		}
		if (verr == nil) != (enc == in && in == naiveKey(stones)) {
			t.Fatalf("Validate(%q) = %v; Encode gives %q, naive key %q", in, verr, enc, naiveKey(stones))
		}
		if verr != nil && !errors.Is(verr, ErrBadKey) {
			t.Fatalf("Validate(%q) = %v, not ErrBadKey", in, verr)
		}
		key, err := Key(stones)
		if err != nil || key != naiveKey(stones) || Validate(key) != nil {
			t.Fatalf("Key(Decode(%q)) = %q, %v; naive %q", in, key, err, naiveKey(stones))
		}
		again, _, _, err := Decode(key)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := Encode(again); back != key || err != nil {
			t.Fatalf("Encode(Decode(%q)) = %q, %v", key, back, err)
		}
	})
}

// FuzzPacked: a key packs when it is a canonical-order token list of at
// most MaxPackedStones stones on the 16x16 grid, and then unpacks to
// itself with PackedLen its whole length; PackedLen never panics and reads
// any bytes either as a packed key that round-trips or as ErrBadKey.
func FuzzPacked(f *testing.F) {
	for _, s := range append(designVector, "", "0000x", "0100x0000o", "1515o", "1600x", "0000x0000o", "0a00x") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, ok := AppendPacked([]byte{0xee}, []byte(in))
		if p[0] != 0xee {
			t.Fatal("AppendPacked changed dst's bytes")
		}
		if !ok {
			if len(p) != 1 {
				t.Fatalf("AppendPacked(%q) failed but appended %x", in, p[1:])
			}
		} else {
			n, err := PackedLen(p[1:])
			if err != nil || n != len(p)-1 {
				t.Fatalf("PackedLen of %q's packing %x: %d, %v", in, p[1:], n, err)
			}
			if back := string(AppendUnpacked(nil, p[1:])); back != in {
				t.Fatalf("%q packed as %x unpacks to %q", in, p[1:], back)
			}
		}
		if Validate(in) == nil && in != "" && !ok {
			t.Fatalf("the valid key %q does not pack", in)
		}
		// The same bytes read as a packed key.
		n, err := PackedLen([]byte(in))
		if err != nil {
			if !errors.Is(err, ErrBadKey) {
				t.Fatalf("PackedLen(%x): %v", in, err)
			}
			return
		}
		text := AppendUnpacked(nil, []byte(in))
		again, ok := AppendPacked(nil, text)
		if !ok || string(again) != in[:n] {
			t.Fatalf("%x reads as %q, which packs as %x, %v", in[:n], text, again, ok)
		}
	})
}
