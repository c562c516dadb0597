package gomoku

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDiagramRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 2000 {
		b := randomPosition(rng, Options{Rule: Rule(i % 2)}, rng.IntN(120))
		s := b.String()
		c, err := ParseDiagram(s, b.Options())
		if err != nil {
			t.Fatalf("parse of printed board: %v\n%s", err, s)
		}
		if c.String() != s || c.cells != b.cells || c.Hash() != b.Hash() {
			t.Fatalf("round trip differs:\n%s\n%s", s, c)
		}
		if err := c.Verify(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiagramMargins(t *testing.T) {
	b := New(Options{})
	for _, s := range []string{"h8", "i9", "a1", "o15"} {
		p, _ := ParsePoint(s)
		must(t, b.Play(p))
	}
	var sb strings.Builder
	sb.WriteString("   a b c d e f g h i j k l m n o\n")
	for y := range Size {
		row := Size - y
		fmt.Fprintf(&sb, "%2d ", row)
		for x := range Size {
			sb.WriteByte(b.At(Pt(x, y)).Char())
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%d\r\n", row)
	}
	sb.WriteString("   A B C D E F G H I J K L M N O\n\n")
	c, err := ParseDiagram(sb.String(), Options{})
	if err != nil {
		t.Fatalf("margins: %v\n%s", err, sb.String())
	}
	if c.String() != b.String() {
		t.Errorf("margins parsed to\n%s", c)
	}
}

func TestDiagramErrors(t *testing.T) {
	row := strings.Repeat(".", Size) + "\n"
	full := strings.Repeat(row, Size)
	for _, tc := range []struct {
		name, in string
		line     int
	}{
		{"TooFewRows", strings.Repeat(row, 14), 0},
		{"TooManyRows", full + row, 16},
		{"ShortRow", row + "....\n" + strings.Repeat(row, 13), 2},
		{"BadChar", strings.Repeat(row, 3) + "..#............\n" + strings.Repeat(row, 11), 4},
		{"WrongRowNumber", "14 " + row + strings.Repeat(row, 14), 1},
		{"BothWin", "xxxxx..........\nooooo..........\n" + strings.Repeat(row, 13), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDiagram(tc.in, Options{})
			var de *DiagramError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a *DiagramError", err)
			}
			if de.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", de.Line, tc.line, err)
			}
		})
	}
}

// FuzzDiagram: no panic on any input; whatever parses prints to a diagram
// that parses back to the same board, byte for byte.
func FuzzDiagram(f *testing.F) {
	f.Add(strings.Repeat(strings.Repeat(".", Size)+"\n", Size))
	f.Add("15 x o . . . . . . . . . . . . . 15\n")
	f.Add(strings.Repeat("xo.xo.xo.xo.xo.\n", Size))
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseDiagram(s, Options{Rule: Standard})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		out := b.String()
		c, err := ParseDiagram(out, Options{Rule: Standard})
		if err != nil || c.String() != out {
			t.Fatalf("printed board does not parse back: %v\n%s", err, out)
		}
	})
}
