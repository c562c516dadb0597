package gomocup

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ocvist/gomoku"
)

// scriptEngine writes a shell-script engine that appends every line it
// reads to the file log and answers with the case arms given (sh "case"
// syntax on the line read).
func scriptEngine(t *testing.T, log, arms string) []string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	path := filepath.Join(t.TempDir(), "pbrain-fake")
	script := "#!/bin/sh\nwhile IFS= read -r line; do\n  printf '%s\\n' \"$line\" >> '" + log + "'\n  case \"$line\" in\n" +
		arms + "\n  esac\ndone\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{path}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClientTranscript drives a scripted engine through a game, a new
// position and a new game, and checks every line the client sent.
func TestClientTranscript(t *testing.T) {
	log := filepath.Join(t.TempDir(), "sent.log")
	argv := scriptEngine(t, log, `
    START*|RESTART*) echo OK ;;
    ABOUT*) echo 'name="Fake", version="1"' ;;
    BEGIN*) echo "MESSAGE thinking"; echo "7,7" ;;
    TURN*) echo "SUGGEST 9,9" ;;
    PLAY*) echo "9,9" ;;
    DONE*) echo "DEBUG depth 1"; echo "1,1" ;;
    END*) exit 0 ;;`)
	var engineLog syncBuffer
	c, err := StartClient(argv, ClientOptions{Turn: 1500 * time.Millisecond, Log: &engineLog})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "engine:Fake" {
		t.Errorf("name %q, want engine:Fake (from ABOUT)", c.Name())
	}
	move := func(b *gomoku.Board, clk gomoku.Clock, want gomoku.Point) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if p, err := c.Move(ctx, b, clk); err != nil || p != want {
			t.Fatalf("move %v, %v; want %v", p, err, want)
		}
		b.Play(want)
	}
	if err := c.NewGame(gomoku.Freestyle); err != nil {
		t.Fatal(err)
	}
	b := gomoku.New(gomoku.Options{})
	const s = time.Second
	move(b, gomoku.Clock{Turn: 1500 * time.Millisecond}, gomoku.Center)          // BEGIN; the engine knows the limit
	b.Play(gomoku.Pt(8, 8))                                                      // the opponent's stone
	move(b, gomoku.Clock{Turn: s, Match: 60 * s, Left: 59 * s}, gomoku.Pt(9, 9)) // the limits, time_left, TURN, answered by SUGGEST and PLAY
	b = gomoku.New(gomoku.Options{})                                             // another position
	for _, p := range []gomoku.Point{gomoku.Pt(3, 3), gomoku.Pt(4, 4), gomoku.Pt(5, 5)} {
		b.Play(p)
	}
	move(b, gomoku.Clock{Match: 60 * s, Left: 58500 * time.Millisecond}, gomoku.Pt(1, 1)) // RESTART, INFO rule, the match alone (its time as the turn's), BOARD
	if err := c.NewGame(gomoku.Standard); err != nil {
		t.Fatal(err)
	}
	c.Close()
	sent, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := `START 15
INFO timeout_turn 1500
INFO timeout_match 0
INFO max_memory 0
INFO game_type 1
ABOUT
INFO rule 0
BEGIN
INFO timeout_turn 1000
INFO timeout_match 60000
INFO time_left 59000
TURN 8,8
PLAY 9,9
RESTART
INFO rule 0
INFO timeout_turn 60000
INFO time_left 58500
BOARD
3,3,2
4,4,1
5,5,2
DONE
RESTART
INFO rule 1
END
`
	if got := strings.ReplaceAll(string(sent), "\r\n", "\n"); got != want {
		t.Errorf("the client sent:\n%s\nwant:\n%s", got, want)
	}
	if n := strings.Count(string(sent), "\r\n"); n != strings.Count(want, "\n") {
		t.Errorf("%d of %d lines end in CR LF", n, strings.Count(want, "\n"))
	}
	if engineLog.String() != "MESSAGE thinking\nDEBUG depth 1\n" {
		t.Errorf("engine log %q", engineLog.String())
	}
}

// TestClientHangAndRestart: an engine that does not answer is killed after
// its deadline and the grace, and started again for the next game; one
// that answers RESTART with UNKNOWN is started again too.
func TestClientHangAndRestart(t *testing.T) {
	argv := scriptEngine(t, filepath.Join(t.TempDir(), "log"), `
    START*) echo OK ;;
    ABOUT*) echo 'name="Fake", version="1"' ;;
    RESTART*) echo "UNKNOWN RESTART" ;;
    BEGIN*) echo "0,0" ;;
    TURN*) sleep 30 ;;
    END*) exit 0 ;;`)
	c, err := StartClient(argv, ClientOptions{Turn: 100 * time.Millisecond, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := gomoku.New(gomoku.Options{})
	move := func() (gomoku.Point, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		return c.Move(ctx, b, gomoku.Clock{})
	}
	if err := c.NewGame(gomoku.Freestyle); err != nil {
		t.Fatal(err)
	}
	if p, err := move(); err != nil || p != gomoku.Pt(0, 0) {
		t.Fatalf("BEGIN: %v %v", p, err)
	}
	b.Play(gomoku.Pt(0, 0))
	b.Play(gomoku.Center)
	if _, err := move(); err == nil || !strings.Contains(err.Error(), "did not answer in time") {
		t.Fatalf("TURN to a hanging engine: %v", err)
	}
	if c.p != nil {
		t.Errorf("the hanging engine was not killed")
	}
	if _, err := move(); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("a move without an engine: %v", err)
	}
	// The next game starts a new process.
	if err := c.NewGame(gomoku.Freestyle); err != nil {
		t.Fatal(err)
	}
	b = gomoku.New(gomoku.Options{})
	if p, err := move(); err != nil || p != gomoku.Pt(0, 0) {
		t.Fatalf("BEGIN after the restart: %v %v", p, err)
	}
	// RESTART answered UNKNOWN: the client starts the engine again.
	old := c.p
	if err := c.NewGame(gomoku.Freestyle); err != nil {
		t.Fatal(err)
	}
	if c.p == old || c.p == nil {
		t.Errorf("engine not started again after RESTART was answered UNKNOWN")
	}
}

// TestClientCancel: a cancelled context stops the wait for a move at once
// (no need for the deadline) and the engine is killed.
func TestClientCancel(t *testing.T) {
	argv := scriptEngine(t, filepath.Join(t.TempDir(), "log"), `
    START*) echo OK ;;
    BEGIN*) sleep 30 ;;`)
	c, err := StartClient(argv, ClientOptions{Greet: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Name() != "engine:pbrain-fake" {
		t.Errorf("name %q without an ABOUT answer", c.Name())
	}
	c.NewGame(gomoku.Freestyle)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	cancel()
	if _, err := c.Move(ctx, gomoku.New(gomoku.Options{}), gomoku.Clock{}); err != context.Canceled || c.p != nil {
		t.Errorf("move with a cancelled context: %v, engine still running %v", err, c.p != nil)
	}
}

func TestClientStartErrors(t *testing.T) {
	if _, err := StartClient(nil, ClientOptions{}); err == nil || !strings.Contains(err.Error(), "no command") {
		t.Errorf("no command: %v", err)
	}
	if _, err := StartClient([]string{"/nonexistent/pbrain"}, ClientOptions{}); err == nil || !strings.Contains(err.Error(), `engine "/nonexistent/pbrain"`) {
		t.Errorf("no such program: %v", err)
	}
	argv := scriptEngine(t, filepath.Join(t.TempDir(), "log"), `
    START*) echo "ERROR only 20x20" ;;`)
	if _, err := StartClient(argv, ClientOptions{}); err == nil || !strings.Contains(err.Error(), "START 15: engine: ERROR only 20x20") {
		t.Errorf("START refused: %v", err)
	}
}
