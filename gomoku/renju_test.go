package gomoku

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// marked parses a renju diagram in which '?' marks the point under test
// (an empty cell) and returns the board and that point.
func marked(t *testing.T, diagram string) (*Board, Point) {
	t.Helper()
	q := NoPoint
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(diagram), "\n") {
		line = strings.TrimSpace(line)
		if i := strings.IndexByte(line, '?'); i >= 0 {
			q = Pt(i, len(rows))
			line = strings.Replace(line, "?", ".", 1)
		}
		rows = append(rows, line)
	}
	b, err := ParseDiagram(strings.Join(rows, "\n"), Options{Rule: Renju})
	if err != nil {
		t.Fatal(err)
	}
	if q == NoPoint {
		t.Fatal("no ? in the diagram")
	}
	return b, q
}

// renjuCase is a hand-picked position of testdata/renju.txt with the
// verdict of Forbidden at '?'.
type renjuCase struct {
	name, diagram string
	want          Foul
}

// readRenjuGolden reads testdata/renju.txt: the classic cases of the RIF
// rules, each "== name: verdict" and a diagram (see the file's head).
func readRenjuGolden(t *testing.T) []renjuCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "renju.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []renjuCase
	for _, part := range strings.Split(string(data), "\n== ")[1:] {
		head, diagram, _ := strings.Cut(part, "\n")
		i := strings.LastIndex(head, ": ")
		name, verdict, ok := head[:max(i, 0)], head[i+2:], i > 0
		want := Foul(len(foulNames))
		for f, s := range foulNames {
			if s == verdict {
				want = Foul(f)
			}
		}
		if !ok || want == Foul(len(foulNames)) {
			t.Fatalf("testdata/renju.txt: bad case head %q", head)
		}
		var rows []string
		for _, line := range strings.Split(diagram, "\n") {
			if line != "" && !strings.HasPrefix(line, "#") {
				rows = append(rows, line)
			}
		}
		cases = append(cases, renjuCase{name, strings.Join(rows, "\n"), want})
	}
	if len(cases) < 15 {
		t.Fatalf("testdata/renju.txt: %d cases", len(cases))
	}
	return cases
}

// TestForbiddenGolden: the hand-picked renju cases. Under the
// other rules nothing is forbidden, and Put places a stone anywhere.
func TestForbiddenGolden(t *testing.T) {
	for _, tc := range readRenjuGolden(t) {
		t.Run(tc.name, func(t *testing.T) {
			b, q := marked(t, tc.diagram)
			if got := b.Forbidden(q); got != tc.want {
				t.Fatalf("Forbidden(%v) = %v, want %v\n%s", q, got, tc.want, b)
			}
			for _, rule := range []Rule{Freestyle, Standard} {
				o, err := ParseDiagram(b.String(), Options{Rule: rule})
				if err != nil {
					t.Fatal(err)
				}
				if got := o.Forbidden(q); got != NoFoul {
					t.Errorf("%v: Forbidden(%v) = %v", rule, q, got)
				}
			}
			before := b.String()
			must(t, b.Put(q, Black))
			if b.At(q) != Black {
				t.Fatal("Put did not place the stone")
			}
			if _, err := b.Undo(); err != nil || b.String() != before {
				t.Fatalf("undo: %v", err)
			}
		})
	}
}

// TestRenjuPlay: Play, the game's move, refuses Black's forbidden point
// with ErrForbidden naming the foul and leaves the board as it was; the
// same point is White's to take, and Black's after White made it allowed.
func TestRenjuPlay(t *testing.T) {
	b, q := marked(t, `
...............
...............
...............
...............
...............
...............
.......x.......
.......x.......
.....xx?.......
...............
...............
...............
...............
o.o.o.o........
...............`)
	if b.ToMove() != Black {
		t.Fatal("Black is not to move")
	}
	before, hash := b.String(), b.Hash()
	err := b.Play(q)
	if !errors.Is(err, ErrForbidden) || err.Error() != "forbidden point: double-three at h7" {
		t.Fatalf("Play(%v) = %v, want the double-three refused", q, err)
	}
	if b.String() != before || b.Hash() != hash || b.Stones() != 8 {
		t.Fatal("the refused move changed the board")
	}
	must(t, b.Play(Pt(14, 14))) // Black elsewhere
	must(t, b.Play(Pt(4, 8)))   // White's e7 closes the row's three
	if f := b.Forbidden(q); f != NoFoul {
		t.Fatalf("h7 is still forbidden (%v) after e7\n%s", f, b)
	}
	must(t, b.Play(q))
	if b.At(q) != Black {
		t.Fatal("h7 not played")
	}
	// Under Standard the same move is a plain one.
	s, err := ParseDiagram(before, Options{Rule: Standard})
	must(t, err)
	must(t, s.Play(q))
}

// TestRenjuWins: Black wins with exactly five only, White with five or
// more; a five wins even where the stone also makes an overline.
func TestRenjuWins(t *testing.T) {
	for _, tc := range []struct {
		name, diagram string
		who           Player
		win           bool
	}{
		{"black five", "xxxx?", Black, true},
		{"black overline", "xxx?xx", Black, false},
		{"white five", "oooo?", White, true},
		{"white overline", "ooo?oo", White, true},
		{"black seven", "xxx?xxx", Black, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := tc.diagram + strings.Repeat(".", Size-len(tc.diagram))
			lines := make([]string, Size)
			for y := range lines {
				lines[y] = strings.Repeat(".", Size)
			}
			lines[7] = row
			b, q := marked(t, strings.Join(lines, "\n"))
			if got := b.MakesFive(q, tc.who); got != tc.win {
				t.Errorf("MakesFive = %v, want %v", got, tc.win)
			}
			must(t, b.Put(q, tc.who))
			if got := b.Winner() == tc.who; got != tc.win {
				t.Errorf("wins = %v, want %v", got, tc.win)
			}
		})
	}
	// A five beside an overline: the five wins.
	for _, tc := range readRenjuGolden(t) {
		if tc.name != "a five beside an overline" {
			continue
		}
		b, q := marked(t, tc.diagram)
		must(t, b.Put(q, Black))
		if b.Winner() != Black || len(b.WinLine()) != 5 {
			t.Errorf("winner %v, line %v", b.Winner(), b.WinLine())
		}
	}
}

// TestRules: every rule's name parses back to it, in any case.
func TestRules(t *testing.T) {
	for r := range NumRules {
		for _, s := range []string{r.String(), strings.ToUpper(r.String()), " " + r.String() + " "} {
			if got, err := ParseRule(s); err != nil || got != r {
				t.Errorf("ParseRule(%q) = %v, %v", s, got, err)
			}
		}
		if !r.Valid() || (Options{Rule: r}).Validate() != nil {
			t.Errorf("%v not valid", r)
		}
	}
	if _, err := ParseRule("caro"); err == nil || err.Error() != `unknown rule "caro" (want freestyle, standard or renju)` {
		t.Errorf("ParseRule(caro): %v", err)
	}
	if NumRules.Valid() || (Options{Rule: NumRules}).Validate() == nil || NumRules.String() != "rule(3)" {
		t.Error("rule 3 accepted")
	}
}
