package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ocvist/gomoku"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestTerminal drives the terminal game with scripted input and compares
// the whole screen output with testdata/terminal_NAME.golden (rewrite them
// with go test -update after checking the change by eye).
func TestTerminal(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		input string
		want  []string // must appear in the output, besides the golden match
	}{
		{"win_undo_hint_bad_input", []string{"-agent", "random", "-seed", "1"},
			"zz\nh8\np3\nh8\nh9\nhint\nh10\nundo\nh10\nh11\nh12\nh7\nhint\nundo\nnew\nquit\n",
			[]string{`"zz" is not a move`, "h8 is taken", "Took back j7 and h10.", "x (you) wins with h12 h11 h10 h9 h8.",
				"Took back h12.", "New game.", "Bye."}},
		{"agent_wins_as_black", []string{"-agent", "patterns", "-color", "o", "-seed", "3"},
			"a15 c15 e15 g15 i15 k15 m15 o15 a13 c13 e13 g13 i13 k13 m13 o13 a11 c11 e11 g11 i11 k11\nundo\nhint\n",
			[]string{"x (patterns) wins with f15 f14 f13 f12 f11.", "patterns suggests:"}},
		{"hint_levels", []string{"-agent", "patterns", "-color", "x", "-seed", "4", "-rule", "standard"},
			"h8\nhint\nquit\n", []string{"standard rule", "equal moves (radius)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			in := strings.ReplaceAll(tt.input, " ", "\n")
			if err := Run(context.Background(), append([]string{"terminal"}, tt.args...), strings.NewReader(in), &out, &errb); err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q", w)
				}
			}
			golden := filepath.Join("testdata", "terminal_"+tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if out.String() != string(want) {
				t.Errorf("output differs from %s (go test -update rewrites it):\n%s", golden, out.String())
			}
		})
	}
}

func TestRender(t *testing.T) {
	b, err := gomoku.ParseDiagram(strings.Repeat("...............\n", 10)+
		"x..............\n"+
		"ooooo..........\n"+
		"xxx............\n"+
		"...............\n"+
		"..............x\n", gomoku.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := render(b)
	for _, want := range []string{
		" 4  O O O O O . . . . . . . . . .  4\n",
		" 1  . . . . . . . . . . . . . .[x] 1\n", // the last stone read is the last placed
		"    a b c d e f g h i j k l m n o\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}
}
