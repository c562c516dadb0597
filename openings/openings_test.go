package openings

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/search"
)

func mustOpenings(t *testing.T, path string) []Opening {
	t.Helper()
	ops, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

func TestParseOpeningsFile(t *testing.T) {
	ops := mustOpenings(t, "../data/openings/piskvork-15.txt")
	if len(ops) != 40 {
		t.Fatalf("%d openings, want 40", len(ops))
	}
	// 0,0, 1,0, 1,3: centre, one right, then (8,10) = row 15-10 = 5.
	if got := ops[0].String(); got != "h8 i8 i5" {
		t.Errorf("opening 1 = %q, want h8 i8 i5", got)
	}
	three, five := 0, 0
	for _, o := range ops {
		switch len(o.Moves) {
		case 3:
			three++
		case 5:
			five++
		}
	}
	if three != 22 || five != 18 {
		t.Errorf("%d three-stone and %d five-stone openings, want 22 and 18", three, five)
	}
}

// TestFormat: the text of two openings, exactly, and Parse reads back the
// same stones (the Piskvork set, whole, too).
func TestFormat(t *testing.T) {
	ops := []Opening{{Moves: []gomoku.Point{gomoku.Center, gomoku.Pt(8, 7), gomoku.Pt(8, 10)}},
		{Moves: []gomoku.Point{gomoku.Pt(6, 6), gomoku.Pt(0, 14)}}}
	if got, want := string(Format("two", ops)), "# two\n0,0, 1,0, 1,3\n-1,-1, -7,7\n"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	if got := string(Format("", ops[:1])); got != "0,0, 1,0, 1,3\n" {
		t.Errorf("Format without a header = %q", got)
	}
	all := mustOpenings(t, "../data/openings/piskvork-15.txt")
	back, err := Parse(strings.NewReader(string(Format("the Piskvork set", all))))
	if err != nil || len(back) != len(all) {
		t.Fatalf("read back %d openings, %v; want %d", len(back), err, len(all))
	}
	for i := range all {
		if !reflect.DeepEqual(back[i].Moves, all[i].Moves) {
			t.Errorf("opening %d read back as %v, want %v", i+1, back[i], all[i])
		}
	}
}

func TestParseOpenings(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{"offsets", "0,0, 1,0, 1,3\n", "h8 i8 i5", ""},
		{"spaces and trailing comma", " 0 , 0 ,-1,-1 ,\n", "h8 g9", ""},
		{"pos", "h8i9j7\n", "h8 i7 j9", ""},
		{"comment and blank", "# c\n\n0,0\n", "h8", ""},
		{"odd", "0,0, 1\n", "", "openings line 1: odd number of offsets"},
		{"not a number", "0,0\n0,x\n", "", "openings line 2: stone 1"},
		{"off board", "0,0, 8,0\n", "", "openings line 1: stone 2: offset 8,0 is off the board"},
		{"occupied", "0,0, 1,1, 0,0\n", "", "openings line 1: stone 3 (h8): cell is occupied"},
		{"bad pos", "h8z\n", "", "openings line 1: stone 2"},
		{"empty", "\n", "", "no openings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := Parse(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err = %v, want prefix %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ops[0].String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGenerateOpenings: the same seed gives the same openings; each has 3
// to 5 legal stones, no three or four on the board, a balanced score and
// no forced win, and no two are the same position up to symmetry.
func TestGenerateOpenings(t *testing.T) {
	ops, err := Generate(5, 12, gomoku.Freestyle)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Generate(5, 12, gomoku.Freestyle)
	if len(ops) != 12 || !reflect.DeepEqual(ops, again) {
		t.Fatalf("%d openings, same again %v", len(ops), reflect.DeepEqual(ops, again))
	}
	seen := map[string]bool{}
	s := search.New(search.DefaultConfig())
	for i, o := range ops {
		pos := patterns.NewPosition(gomoku.Options{})
		for _, p := range o.Moves {
			if err := pos.Play(p); err != nil {
				t.Fatalf("opening %d %v: %v", i, o, err)
			}
		}
		if n := len(o.Moves); n < 3 || n > 5 {
			t.Errorf("opening %d has %d stones", i, n)
		}
		for _, pl := range []gomoku.Player{gomoku.Black, gomoku.White} {
			if pos.Count(patterns.MakesFive, pl) > 0 || pos.Count(patterns.MakesWin, pl) > 0 {
				t.Errorf("opening %d: %v has a four or a three", i, pl)
			}
		}
		key := canon.Of(pos.Board()).Key
		if seen[key] {
			t.Errorf("opening %d repeats a position", i)
		}
		seen[key] = true
		res, err := s.Search(context.Background(), pos, search.Limits{Nodes: 4000})
		if err != nil || search.IsMate(res.Score) {
			t.Errorf("opening %d: %v (score %d)", i, err, res.Score)
		}
	}
	if _, err := Generate(5, 0, gomoku.Freestyle); err == nil {
		t.Error("0 openings accepted")
	}
}

// TestContestedSet: data/openings/contested-freestyle.txt holds the 243
// openings its first line names, each of 3 to 5 stones and no two the same
// position up to symmetry, and it begins with the 23 chosen from the first
// 200 openings generated from gen-seed 1433 (the screening's), in their
// order (all 2,000 take half a minute to generate).
func TestContestedSet(t *testing.T) {
	const path = "../data/openings/contested-freestyle.txt"
	ops := mustOpenings(t, path)
	head, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(head), "# the 243 openings of 2000 pairs the colour did not decide:") || len(ops) != 243 {
		t.Fatalf("%d openings; first line %.80q", len(ops), head)
	}
	seen := map[string]bool{}
	for i, o := range ops {
		b, err := o.Board(gomoku.Options{})
		if n := len(o.Moves); err != nil || n < 3 || n > 5 {
			t.Fatalf("opening %d (%v): %d stones, %v", i+1, o, n, err)
		}
		if key := canon.Of(b).Key; seen[key] {
			t.Errorf("opening %d (%v) repeats an earlier one up to symmetry", i+1, o)
		} else {
			seen[key] = true
		}
	}
	gen, err := Generate(1433, 200, gomoku.Freestyle)
	if err != nil {
		t.Fatal(err)
	}
	j := 0
	for _, o := range gen {
		if j < len(ops) && reflect.DeepEqual(o.Moves, ops[j].Moves) {
			j++
		}
	}
	if j != 23 {
		t.Errorf("the first %d openings of the set are among gen-seed 1433's first 200, in order; want 23", j)
	}
}
