package terminal

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ocvist/agent"
	"ocvist/arena"
	"ocvist/gomoku"
	"ocvist/patterns"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// feed returns a closed channel holding the lines of input.
func feed(input string) <-chan string {
	lines := strings.Split(strings.TrimSuffix(input, "\n"), "\n")
	c := make(chan string, len(lines))
	for _, l := range lines {
		c <- l
	}
	close(c)
	return c
}

// TestPlay drives sessions with scripted input and compares the whole
// screen output with testdata/terminal_NAME.golden (rewrite them with go
// test -update after checking the change by eye).
func TestPlay(t *testing.T) {
	tests := []struct {
		name  string
		agent agent.Agent
		cfg   Config
		input string
		want  []string // must appear in the output, besides the golden match
	}{
		{"win_undo_hint_bad_input", agent.NewRandom(1), Config{Human: gomoku.Black},
			"zz\nh8\np3\nh8\nh9\nhint\nh10\nundo\nh10\nh11\nh12\nh7\nhint\nundo\nnew\nquit\n",
			[]string{`"zz" is not a move`, "h8 is taken", "Took back j7 and h10.", "x (you) wins with h12 h11 h10 h9 h8.",
				"Took back h12.", "New game.", "Bye."}},
		{"agent_wins_as_black", arena.NewPatterns(3, patterns.Config{}), Config{Human: gomoku.White},
			"a15 c15 e15 g15 i15 k15 m15 o15 a13 c13 e13 g13 i13 k13 m13 o13 a11 c11 e11 g11 i11 k11\nundo\nhint\n",
			[]string{"x (patterns) wins with f15 f14 f13 f12 f11.", "patterns suggests:"}},
		{"hint_levels", arena.NewPatterns(4, patterns.Config{}), Config{Human: gomoku.Black, Rule: gomoku.Standard},
			"h8\nhint\nquit\n", []string{"standard rule", "equal moves (radius)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			in := feed(strings.ReplaceAll(tt.input, " ", "\n"))
			if err := Play(context.Background(), tt.agent, tt.cfg, in, &out); err != nil {
				t.Fatal(err)
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

// TestPlayStopped: a cancelled context ends the session at the prompt,
// though no line ever comes.
func TestPlayStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := Play(ctx, agent.NewRandom(1), Config{Human: gomoku.Black}, make(chan string), &out)
	if !errors.Is(err, context.Canceled) || !strings.HasSuffix(out.String(), "Your move (x): \n") {
		t.Errorf("error %v, output ends %q", err, out.String()[max(0, out.Len()-40):])
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
	got := Render(b)
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
