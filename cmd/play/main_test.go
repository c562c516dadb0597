package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/internal/cli"
)

// TestGomocupCLI: play gomocup wires an agent to the protocol server on
// stdin and stdout. (The input ends without END: an END that comes while
// the engine thinks ends the session at once, without the move.)
func TestGomocupCLI(t *testing.T) {
	var out, errb bytes.Buffer
	in := "START 15\r\nABOUT\r\nBEGIN\r\nTURN 8,8\r\n"
	if err := Run(context.Background(), []string{"gomocup", "-agent", "random"}, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	want := `name="Ocvist", version="` + cli.Version + `", author="Ocvist developers", country="Unknown"`
	if len(lines) != 5 || lines[0] != "OK" || lines[1] != want || lines[2] != "7,7" || lines[4] != "" {
		t.Errorf("output %q", out.String())
	}
}

// TestGomocupNoPoison: play gomocup answers every command once, and no
// bad line breaks a later one: a move before START is an ERROR, a
// malformed INFO value is reported once and ignored (the generous turn
// before it stays: the machine's load plays no part), the continuous-game
// bit of INFO rule is ignored (with a MESSAGE), caro is refused until a
// valid rule comes.
func TestGomocupNoPoison(t *testing.T) {
	var out, errb bytes.Buffer
	in := strings.Join([]string{"TURN 7,7", "START 15", "INFO timeout_turn 1000000", "INFO timeout_turn abc", "BEGIN", "RESTART", "BEGIN",
		"RESTART", "INFO rule 2", "BEGIN", "RESTART", "INFO rule 8", "BEGIN", "INFO rule 0", "BEGIN", ""}, "\r\n")
	if err := Run(context.Background(), []string{"gomocup", "-agent", "random"}, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	want := []string{"ERROR TURN: no board (START comes first)", "OK",
		`MESSAGE INFO timeout_turn "abc" ignored (not an integer): the previous value stays`, "7,7", "OK", "7,7",
		"OK", "MESSAGE INFO rule 2 read as Piskvork's continuous game: freestyle (for Yixin-Board's renju, start the engine with -yixin-rules, or send rule 4)", "7,7",
		"OK", "ERROR INFO rule 8: caro is not supported; Ocvist plays freestyle (rule 0), standard (rule 1) and renju (rule 4)", "7,7"}
	if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("output\n%q\nwant\n%q", got, want)
	}
}

// TestGomocupStandard: the default engine (the search over the shipped
// models; node-limited here, so that a slow machine cannot make it late)
// plays standard games too, with the shipped freestyle models and a
// MESSAGE saying so; a model named for it is refused under standard.
func TestGomocupStandard(t *testing.T) {
	var out, errb bytes.Buffer
	// A turn limit no loaded machine reaches: the node limit ends the search.
	in := "START 15\r\nINFO timeout_turn 1000000\r\nINFO rule 1\r\nBOARD\r\n7,7,1\r\n8,8,2\r\nDONE\r\n"
	if err := Run(context.Background(), []string{"gomocup", "-agent", defaultAgent + ",nodes=5000"}, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	lines := withoutReports(out.String())
	if len(lines) != 3 || lines[0] != "OK" ||
		lines[1] != "MESSAGE search: models fitted for another rule serve this standard game (policy: the model was fitted for freestyle, not standard)" {
		t.Fatalf("output %q", out.String())
	}
	if p, err := gomoku.ParseGomocup(lines[2]); err != nil || p == gomoku.Pt(7, 7) || p == gomoku.Pt(8, 8) {
		t.Errorf("move %q (%v)", lines[2], err)
	}

	model := filepath.Join(t.TempDir(), "m.ocf")
	if err := os.WriteFile(model, data.Model, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Run(context.Background(), []string{"gomocup", "-agent", "search:" + model}, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if want := "OK\nERROR engine: policy: the model was fitted for freestyle, not standard\n"; out.String() != want {
		t.Errorf("named model under standard: output %q, want %q", out.String(), want)
	}
}

// TestGomocupRenjuModels: under renju (INFO rule 4) the default engine
// plays with the shipped renju models: no MESSAGE about models of another
// rule, and a legal move (Black's, not on a forbidden point).
func TestGomocupRenjuModels(t *testing.T) {
	var out, errb bytes.Buffer
	// Black to move; 9,7 would make a double three: forbidden.
	in := "START 15\r\nINFO timeout_turn 1000000\r\nINFO rule 4\r\nBOARD\r\n7,7,1\r\n0,0,2\r\n8,7,1\r\n0,14,2\r\n9,8,1\r\n14,0,2\r\n9,9,1\r\n14,14,2\r\nDONE\r\n"
	if err := Run(context.Background(), []string{"gomocup", "-agent", defaultAgent + ",nodes=5000"}, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	lines := withoutReports(out.String())
	if len(lines) != 2 || lines[0] != "OK" {
		t.Fatalf("output %q: want OK and a move, no MESSAGE", out.String())
	}
	b := gomoku.New(gomoku.Options{Rule: gomoku.Renju})
	for _, q := range []gomoku.Point{gomoku.Pt(7, 7), gomoku.Pt(0, 0), gomoku.Pt(8, 7), gomoku.Pt(0, 14), gomoku.Pt(9, 8), gomoku.Pt(14, 0), gomoku.Pt(9, 9), gomoku.Pt(14, 14)} {
		if err := b.Play(q); err != nil {
			t.Fatal(err)
		}
	}
	if b.Forbidden(gomoku.Pt(9, 7)) != gomoku.FoulDoubleThree {
		t.Fatal("the test position lost its forbidden point")
	}
	p, err := gomoku.ParseGomocup(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Play(p); err != nil {
		t.Errorf("move %v: %v", p, err)
	}
}

func TestTerminalCLI(t *testing.T) {
	var out, errb bytes.Buffer
	err := Run(context.Background(), []string{"-agent", "patterns", "-color", "o", "-rule", "standard"}, strings.NewReader("hint\nquit\n"), &out, &errb)
	if err != nil || !strings.Contains(out.String(), "you play o (white) against patterns, standard rule") ||
		!strings.HasSuffix(out.String(), "Bye.\n") {
		t.Errorf("error %v, output:\n%s", err, out.String())
	}
}

// TestTerminalStandard: the terminal game's default agent plays standard
// games with the shipped freestyle models and says so.
func TestTerminalStandard(t *testing.T) {
	var out, errb bytes.Buffer
	err := Run(context.Background(), []string{"-color", "x", "-rule", "standard"}, strings.NewReader("quit\n"), &out, &errb)
	want := "Note: search: models fitted for another rule serve this standard game (policy: the model was fitted for freestyle, not standard).\n"
	if err != nil || !strings.Contains(out.String(), want) || !strings.HasSuffix(out.String(), "Bye.\n") {
		t.Errorf("error %v, output:\n%s", err, out.String())
	}
}

// TestExitCodes: bad command lines exit 2, failures 1, help 0.
func TestExitCodes(t *testing.T) {
	t.Chdir(repoRoot)
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"help"}, 0},
		{[]string{"match", "-h"}, 0},
		{[]string{"gomocup", "-h"}, 0},
		{[]string{"-h"}, 0},
		{[]string{"bogus"}, 2},
		{[]string{"terminal", "-color", "red"}, 2},
		{[]string{"terminal", "-rule", "caro"}, 2},
		{[]string{"gomocup", "extra"}, 2},
		{[]string{"match", "-a", "random"}, 2},
		{[]string{"match", "-a", "random", "-b", "random", "-games", "0"}, 2},
		{[]string{"match", "-a", "random", "-b", "random", "-games", "3"}, 2},
		{[]string{"match", "-a", "random", "-b", "random", "-zzz"}, 2},
		{[]string{"match", "-a", "random", "-b", "forest:/nonexistent/model.ocf"}, 1},
		{[]string{"gomocup", "-model", "/nonexistent/model.ocf"}, 1},
		{[]string{"web", "-h"}, 0},
		{[]string{"web", "-nice", "20"}, 2},
		{[]string{"web", "-addr", "8080"}, 2},
		{[]string{"web", "-addr", "127.0.0.1:-1"}, 1},
	} {
		err := Run(context.Background(), tt.args, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		if code := cli.ExitCode(context.Background(), err); code != tt.code {
			t.Errorf("play %s: exit %d (%v), want %d", strings.Join(tt.args, " "), code, err, tt.code)
		}
	}
}

// TestWebCLI: play web says where the page is and stops when its context
// ends (here at once), with no error.
func TestWebCLI(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := Run(ctx, []string{"web", "-addr", "127.0.0.1:0"}, strings.NewReader(""), &out, &bytes.Buffer{})
	if err != nil || !regexp.MustCompile(`^Ocvist is at http://127\.0\.0\.1:\d+/ \(Ctrl-C stops\)\n$`).MatchString(out.String()) {
		t.Errorf("error %v, output %q", err, out.String())
	}
}

// TestInterruptAtPrompt: Ctrl-C (SIGINT) while the terminal game waits for
// a move ends the program at once with exit status 0 and no error line.
func TestInterruptAtPrompt(t *testing.T) {
	cmd := exec.Command(playBinary(t), "terminal", "-agent", "random")
	stdin, err := cmd.StdinPipe() // kept open: no line ever comes
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	for seen := ""; !strings.HasSuffix(seen, "Your move (x): "); {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("no prompt: %v; output %q", err, seen)
		}
		seen += string(b)
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil || errb.Len() > 0 {
		t.Errorf("after SIGINT at the prompt: %v, stderr %q; want exit 0 and nothing", err, errb.String())
	}
}

// TestBenchCLI: play bench prints one line with the node count of the
// bench positions at the depth asked (here a shallow one, for speed).
func TestBenchCLI(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run(context.Background(), []string{"bench", "-depth", "2"}, nil, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.HasPrefix(out.String(), "bench: ") || !strings.Contains(out.String(), "nodes (depth 2, ") {
		t.Errorf("output %q", out.String())
	}
	if err := Run(context.Background(), []string{"bench", "-depth", "0"}, nil, &out, &errb); err == nil {
		t.Error("play bench -depth 0 succeeded")
	}
}

// TestGomocupThreads: the search engine thinks on the threads -threads
// and INFO thread_num give it; -threads with an agent that does not
// think is refused.
func TestGomocupThreads(t *testing.T) {
	var out, errb bytes.Buffer
	in := "START 15\r\nINFO timeout_turn 1000000\r\nINFO thread_num 3\r\nBEGIN\r\nTURN 8,8\r\nTURN 9,9\r\n"
	if err := Run(context.Background(), []string{"gomocup", "-agent", "search:none,nodes=3000", "-threads", "2"}, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	lines := withoutReports(out.String())
	if len(lines) != 4 || lines[0] != "OK" || lines[1] != "7,7" {
		t.Errorf("output %q", out.String())
	}
	err := Run(context.Background(), []string{"gomocup", "-agent", "random", "-threads", "2"}, strings.NewReader(""), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "thinks on no threads") {
		t.Errorf("-threads with random: %v", err)
	}
}

// TestBenchTimedCLI: play bench -time searches each position that long
// on the threads asked and prints the speed.
func TestBenchTimedCLI(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run(context.Background(), []string{"bench", "-time", "5", "-threads", "2"}, nil, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.HasPrefix(out.String(), "bench: 2 threads, 5 ms a position: ") {
		t.Errorf("output %q", out.String())
	}
	if err := Run(context.Background(), []string{"bench", "-threads", "2"}, nil, &out, &errb); err == nil {
		t.Error("play bench -threads 2 without -time succeeded")
	}
}

// withoutReports is the engine's output lines without the search's
// realtime reports ("MESSAGE REALTIME …", "MESSAGE depth …").
func withoutReports(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "MESSAGE REALTIME ") && !strings.HasPrefix(l, "MESSAGE depth ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestGomocupAnalysis: the search engine under renju (INFO rule 4) with
// Yixin-Board's commands: YXBOARD sets a position without a move,
// YXSHOWFORBID lists Black's forbidden points, YXNBEST N with N above the
// moves near the stones answers one line per root move searched and the
// best move, not played, after the search's realtime reports; the search's
// move under renju is never forbidden.
func TestGomocupAnalysis(t *testing.T) {
	var out, errb bytes.Buffer
	in := strings.Join([]string{"INFO rule 4", "START 15", "INFO timeout_turn 1000000",
		"YXBOARD", "7,6,1", "0,0,2", "7,7,1", "0,2,2", "5,8,1", "0,4,2", "6,8,1", "0,6,2", "DONE",
		"YXSHOWFORBID", "YXNBEST 300", ""}, "\r\n")
	if err := Run(context.Background(), []string{"gomocup", "-agent", "search:none,nodes=20000"}, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	all := strings.Split(strings.TrimSpace(out.String()), "\n")
	lines := withoutReports(out.String())
	if len(lines) < 4 || lines[0] != "OK" || lines[1] != "FORBID 0708." || len(all) == len(lines) {
		t.Fatalf("output %q", out.String())
	}
	best, err := gomoku.ParseGomocup(lines[len(lines)-1])
	if err != nil || best == gomoku.Pt(7, 8) {
		t.Fatalf("YXNBEST answered %q (%v): want a legal move", lines[len(lines)-1], err)
	}
	ranked := lines[2 : len(lines)-1]
	seen := map[string]bool{}
	for i, l := range ranked {
		var rank int
		var rest string
		if _, err := fmt.Sscanf(l, "MESSAGE (%d)", &rank); err != nil || rank != i+1 {
			t.Fatalf("line %q: want rank %d", l, i+1)
		}
		_, rest, _ = strings.Cut(l, " | ")
		f := strings.Fields(rest[strings.Index(rest, "| ")+2:])
		if seen[f[0]] || f[0] == "7,8" {
			t.Errorf("line %q: move %s repeated or forbidden", l, f[0])
		}
		seen[f[0]] = true
	}
	if !strings.HasSuffix(ranked[0], " "+best.Gomocup()) && !strings.Contains(ranked[0], "| "+best.Gomocup()) {
		t.Errorf("the first line %q is not the answer %v", ranked[0], best)
	}
	if len(ranked) < 2 || len(ranked) > 224-8 {
		t.Errorf("%d ranked moves", len(ranked))
	}
}
