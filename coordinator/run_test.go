package coordinator

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/sqlite"
)

// The coordinator starts its workers as copies of the running program
// with the arguments "worker …": in this package's tests, the test binary.
// TestMain makes it a worker then, shaped by OCVIST_TEST_WORKER:
// "delay=D" loads D longer before it plays (a large blacklist, a slow
// server); "idle" never plays, and exits when stopped, as a worker stopped
// while loading does; "die-at-played=N" is killed (SIGKILL) as soon as it
// has said "played N" (a teacher worker says it after every game);
// otherwise it is the real worker.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(testWorker(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func testWorker(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	mode := os.Getenv("OCVIST_TEST_WORKER")
	if mode == "idle" {
		fmt.Fprintln(os.Stderr, "test worker: idle")
		<-ctx.Done()
		return 0
	}
	if d, ok := strings.CutPrefix(mode, "delay="); ok {
		wait, _ := time.ParseDuration(d)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return 0
		}
	}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	config := WorkerFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	w, input, err := config()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var out io.Writer = os.Stdout
	if n, ok := strings.CutPrefix(mode, "die-at-played="); ok {
		out = dieAt{os.Stdout, "played " + n + "\n"}
	}
	if input {
		w.In = stdinLines()
	}
	if err := Work(ctx, w, out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// stdinLines delivers the lines of stdin, as the train command's worker
// does.
func stdinLines() <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		for sc := bufio.NewScanner(os.Stdin); sc.Scan(); {
			ch <- sc.Text()
		}
	}()
	return ch
}

// dieAt passes a worker's lines on and kills the worker once it has
// written the line at.
type dieAt struct {
	w  io.Writer
	at string
}

func (d dieAt) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if string(p) == d.at {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return n, err
}

// testConfig is a one-worker run into a new database in a temporary
// directory.
func testConfig(t *testing.T, db string) Config {
	t.Helper()
	c := DefaultConfig("test")
	c.DB, c.Workers, c.Seed = db, 1, 1
	c.Progress = 100 * time.Millisecond
	c.Game.ShardGames, c.Game.FlushEvery = 50, 100*time.Millisecond
	return c
}

// syncBuffer is a bytes buffer safe for the coordinator's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.WriteString(string(p))
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func mustRun(t *testing.T, ctx context.Context, c Config) (out, log string) {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	var o, l syncBuffer
	if err := Run(ctx, c, &o, &l); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, o.String(), l.String())
	}
	return o.String(), l.String()
}

// TestDurationCountsPlay: -duration is the time the workers play, from
// when they have loaded what they play with: workers that take 1.5 s to
// load still play a 1 s run (they used to play nothing, the start-up
// counting against the duration), and the summary says how long start-up
// and play took.
func TestDurationCountsPlay(t *testing.T) {
	t.Setenv("OCVIST_TEST_WORKER", "delay=1500ms")
	c := testConfig(t, filepath.Join(t.TempDir(), "d.db"))
	c.Duration = time.Second
	out, log := mustRun(t, context.Background(), c)
	m := regexp.MustCompile(`games this run (\d+):.*\ntime: start-up ([0-9.]+)s .*, play ([0-9.]+)s, finishing`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no games and times in the summary:\n%s\n%s", out, log)
	}
	games, _ := strconv.Atoi(m[1])
	startup, _ := strconv.ParseFloat(m[2], 64)
	play, _ := strconv.ParseFloat(m[3], 64)
	// The worker's clock starts just before it says "playing", a pipe
	// away from the coordinator's: a tenth of a second of slack.
	if games == 0 || startup < 1.5 || play < 0.9 {
		t.Errorf("%d games, start-up %.1f s, play %.1f s; want games, start-up ≥ 1.5 s, play ≥ 1 s:\n%s", games, startup, play, out)
	}
}

// TestStoppedBeforePlayLeavesDB: a run stopped before its workers played a
// game neither prunes nor concludes: the database stays in the state it
// was merged elsewhere in, so merging it again there is a no-op, not a
// refusal (a run used to prune at its start and at its end whatever it
// played).
func TestStoppedBeforePlayLeavesDB(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	c := testConfig(t, db)
	c.Games, c.Prune.Age = 200, 1<<40 // young runs stay
	c.Duration = 0                    // the games alone
	mustRun(t, context.Background(), c)
	other, err := sqlite.Open(filepath.Join(dir, "b.db"), store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	if res, err := other.Merge(ctx, db); err != nil || res.Games != 200 {
		t.Fatalf("merge: %+v, %v", res, err)
	}

	t.Setenv("OCVIST_TEST_WORKER", "idle")
	c = testConfig(t, db)
	c.Duration, c.Prune.Age = time.Minute, 0 // everything due
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	stopCtx, stop := context.WithCancel(ctx)
	var o, l syncBuffer
	done := make(chan error, 1)
	go func() { done <- Run(stopCtx, c, &o, &l) }()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(l.String(), "test worker: idle"); {
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not start in a minute:\n%s", l.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("stopped run: %v\n%s", err, l.String())
	}
	if !strings.Contains(l.String(), "no games merged: the database is left as it was") {
		t.Errorf("the stopped run does not say it left the database alone:\n%s", l.String())
	}
	if res, err := other.Merge(ctx, db); err != nil || !res.AlreadyMerged {
		t.Errorf("merging the database again after a run that played nothing: %+v, %v; want already merged", res, err)
	}
}
