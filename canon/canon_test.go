package canon

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"ocvist/gomoku"
)

// designVector is the key's reference test vector, from Ocvist's design
// notes: 8 images of one position.
var designVector = []string{
	"0500x0201x0301x0401o0102x0202o0302o0502o0003x0203o",
	"0000x0200o0101o0102x0202o0103x0203o0303o0204x0305x",
	"0300o0500x0001o0201o0301o0401x0102o0202x0302x0003x",
	"0000x0101x0002o0102o0202x0103o0203x0204o0105o0305x",
	"0300x0201x0102x0202o0302o0103x0203o0104o0005x0205o",
	"0000x0101o0201x0301x0002o0202o0302o0402x0303o0503x",
	"0100o0300x0201o0102o0202x0003o0103o0203x0104x0005x",
	"0000x0200o0101x0201o0301o0501o0202x0302x0402o0503x",
}

const designKey = "0000x0101o0201x0301x0002o0202o0302o0402x0303o0503x"

func TestDesignVector(t *testing.T) {
	for i, s := range designVector {
		stones, w, h, err := Decode(s)
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		if enc, err := Encode(stones); enc != s || err != nil {
			t.Errorf("image %d: Encode(Decode) = %q, %v", i, enc, err)
		}
		for _, at := range [][2]int{{0, 0}, {3, 7}, {gomoku.Size - w, gomoku.Size - h}} {
			b := mustBoard(t, translate(stones, at[0], at[1]))
			if got := Of(b).Key; got != designKey {
				t.Errorf("image %d at %v: key %q, want %q", i, at, got, designKey)
			}
		}
		if want := naiveKey(stones); want != designKey {
			t.Errorf("image %d: naive reference key %q", i, want)
		}
	}
	stones, _, _, err := Decode(designKey)
	if err != nil {
		t.Fatal(err)
	}
	if enc, err := Encode(stones); enc != designKey || err != nil {
		t.Errorf("Encode(Decode(key)) = %q, %v", enc, err)
	}
	if err := Validate(designKey); err != nil {
		t.Error(err)
	}
	for i, s := range designVector {
		if err := Validate(s); (err == nil) != (s == designKey) {
			t.Errorf("Validate(image %d) = %v", i, err)
		}
	}
}

func TestEmptyAndSmall(t *testing.T) {
	pos := Of(gomoku.New(gomoku.Options{}))
	if pos.Key != "" || pos.Syms != AllSyms {
		t.Errorf("empty board: %q %08b", pos.Key, pos.Syms)
	}
	classes := map[Move]bool{}
	for p := gomoku.Point(0); p < gomoku.NumCells; p++ {
		m := pos.ToCanon(p)
		classes[m] = true
		if q, ok := pos.FromCanon(m); !ok || pos.ToCanon(q) != m {
			t.Errorf("empty board: %v -> %v -> %v", p, m, q)
		}
	}
	if len(classes) != 36 { // cells with x <= y <= 7 in the canonical corner: 8*9/2
		t.Errorf("empty board: %d first-move classes, want 36", len(classes))
	}
	b := gomoku.New(gomoku.Options{})
	if err := b.Play(gomoku.Pt(0, 14)); err != nil {
		t.Fatal(err)
	}
	pos = Of(b)
	if pos.Key != "0000x" || pos.Syms != AllSyms || pos.ToCanon(gomoku.Pt(1, 13)) != (Move{-1, -1}) {
		t.Errorf("one stone: %q %08b %v", pos.Key, pos.Syms, pos.ToCanon(gomoku.Pt(1, 13)))
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ key, msg string }{
		{"0000", "length 4"},
		{"0a00x", "column is not two digits"},
		{"00-1x", "row is not two digits"},
		{"1500x", "column 15 is off"},
		{"0015o", "row 15 is off"},
		{"0000b", `stone 'b'`},
		{"0000x0000o", "cell already has a stone"},
	} {
		_, _, _, err := Decode(tc.key)
		if !errors.Is(err, ErrBadKey) || !strings.HasPrefix(err.Error(), "canon: bad key: ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Decode(%q) = %v; want ErrBadKey mentioning %q", tc.key, err, tc.msg)
		}
	}
	for _, tc := range []struct{ key, msg string }{
		{"0001x0000o", "not sorted"},
		{"0101x", "box starts at column 1, row 1"},
		{"0100x0001o", "smallest image"},
	} {
		if err := Validate(tc.key); !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Validate(%q) = %v; want ErrBadKey mentioning %q", tc.key, err, tc.msg)
		}
	}
	for _, st := range [][]Stone{{{0, 0, gomoku.Empty}}, {{0, 0, gomoku.Black}, {15, 0, gomoku.White}}, {{1, 1, gomoku.Black}, {1, 1, gomoku.White}}} {
		if _, err := Encode(st); !errors.Is(err, ErrBadKey) {
			t.Errorf("Encode(%v) = %v; want ErrBadKey", st, err)
		}
	}
}

// naiveImages is the slow twin of the key: it writes the 8 images with fmt
// (image k+4m is mirrored when m = 1, then rotated k times clockwise).
func naiveImages(stones []Stone) [NumSyms]string {
	var out [NumSyms]string
	if len(stones) == 0 {
		return out // all "" for the empty board
	}
	for m := range 2 {
		for k := range 4 {
			img := make([]Stone, len(stones))
			for i, s := range stones {
				img[i] = s
				img[i].X, img[i].Y = naiveMap(m, k, s.X, s.Y)
			}
			x0, y0 := img[0].X, img[0].Y
			for _, s := range img {
				x0, y0 = min(x0, s.X), min(y0, s.Y)
			}
			slices.SortFunc(img, func(a, b Stone) int { return (a.Y-b.Y)*1000 + a.X - b.X })
			var sb strings.Builder
			for _, s := range img {
				fmt.Fprintf(&sb, "%02d%02d%c", s.X-x0, s.Y-y0, s.P.Char())
			}
			out[k+4*m] = sb.String()
		}
	}
	return out
}

// naiveMap mirrors (x -> -x) when m = 1, then rotates k times by 90°
// clockwise as drawn ((x, y) -> (-y, x), rows growing downwards).
func naiveMap(m, k, x, y int) (int, int) {
	if m == 1 {
		x = -x
	}
	for range k {
		x, y = -y, x
	}
	return x, y
}

func naiveKey(stones []Stone) string {
	imgs := naiveImages(stones)
	return slices.Min(imgs[:])
}

func translate(stones []Stone, x, y int) []Stone {
	x0, y0 := stones[0].X, stones[0].Y
	for _, s := range stones {
		x0, y0 = min(x0, s.X), min(y0, s.Y)
	}
	out := make([]Stone, len(stones))
	for i, s := range stones {
		out[i] = Stone{s.X - x0 + x, s.Y - y0 + y, s.P}
	}
	return out
}

// boardOf builds a board holding stones (board coordinates). ok is false
// when gomoku refuses the position (both players have five).
func boardOf(stones []Stone) (*gomoku.Board, bool) {
	b := gomoku.New(gomoku.Options{Rule: gomoku.Standard})
	for _, s := range stones {
		if b.Put(gomoku.Pt(s.X, s.Y), s.P) != nil {
			return diagramBoard(stones) // a five stops Put; the diagram takes it
		}
	}
	return b, true
}

func diagramBoard(stones []Stone) (*gomoku.Board, bool) {
	var d [gomoku.Size * (gomoku.Size + 1)]byte
	for y := range gomoku.Size {
		for x := range gomoku.Size {
			d[y*(gomoku.Size+1)+x] = '.'
		}
		d[y*(gomoku.Size+1)+gomoku.Size] = '\n'
	}
	for _, s := range stones {
		d[s.Y*(gomoku.Size+1)+s.X] = s.P.Char()
	}
	b, err := gomoku.ParseDiagram(string(d[:]), gomoku.Options{Rule: gomoku.Standard})
	return b, err == nil
}

func mustBoard(t testing.TB, stones []Stone) *gomoku.Board {
	t.Helper()
	b, ok := boardOf(stones)
	if !ok {
		t.Fatalf("no board for %v", stones)
	}
	return b
}
