package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"ocvist/internal/pgtest"
)

// pgMaintLock is the store's advisory lock of prune and conclude.
const pgMaintLock = 208754433

// TestPostgresPruneStops: a prune whose batch is running on the server
// (held up here by a lock on the moves table, so that the signal surely
// arrives in the middle of its statement) is stopped by SIGTERM: exit 0
// within 2 s, the server no longer runs its statement nor holds the
// maintenance lock; killed with SIGKILL, the server notices its client is
// gone within seconds and ends the statement and the lock too. Either way
// a second prune finishes the work and nothing is lost (with -min 1 a prune
// promotes everything: the export is unchanged).
func TestPostgresPruneStops(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) { pruneStops(t, sig) })
	}
}

func pruneStops(t *testing.T, sig syscall.Signal) {
	ctx := context.Background()
	u := pgtest.SchemaURL(t)
	dir := t.TempDir()
	if out, errOut, code := trainIn(t, dir, "run", "-db", u, "-workers", "1", "-games", "300", "-shard-games", "100", "-seed", "9"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	before := mustTrainIn(t, dir, "export", "-db", u)
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The lock is held in a transaction of its own connection; the server's
	// views are read on another (a transaction sees them as of its start).
	locker, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE moves IN EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	app := fmt.Sprintf("ocvist-prune-%d", time.Now().UnixNano())
	cmd := trainCmd(t, "prune", "-db", u+"&application_name="+app, "-age", "0", "-min", "1")
	cmd.Dir = dir
	var errOut syncBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	backend := waitPG(t, conn, "the prune's batch waiting to write moves", `SELECT coalesce(max(pid), 0) FROM pg_stat_activity
		WHERE application_name = $1 AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO moves%'`, app)
	if n := pgCount(t, conn, "SELECT count(*) FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND objid = $2 AND granted", backend, pgMaintLock); n != 1 {
		t.Fatalf("the prune's backend holds %d maintenance locks, want 1", n)
	}
	sent := time.Now()
	cmd.Process.Signal(sig)
	err = cmd.Wait()
	took := time.Since(sent)
	if sig == syscall.SIGTERM {
		if err != nil || took > 2*time.Second {
			t.Fatalf("after SIGTERM: %v after %v, want exit 0 within 2 s\n%s", err, took, errOut.String())
		}
		if !strings.Contains(errOut.String(), "prune stopped: 0 young run(s) expired before the stop") {
			t.Errorf("stderr does not say the prune stopped:\n%s", errOut.String())
		}
	}
	// The server ends the statement (a cancel request; a client found
	// gone) and releases the lock with the rollback.
	waitPG(t, conn, "the prune's statement and lock gone", `SELECT CASE WHEN
		(SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active') = 0 AND
		(SELECT count(*) FROM pg_locks WHERE pid = $1 AND locktype = 'advisory') = 0 THEN 1 ELSE 0 END`, backend)
	t.Logf("%v: the prune's backend let go %v after the signal", sig, time.Since(sent).Round(time.Millisecond))
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if out := mustTrainIn(t, dir, "prune", "-db", u, "-age", "0", "-min", "1"); !strings.Contains(out, "pruned: 3 young run(s) expired") {
		t.Errorf("second prune: %s", out)
	}
	if after := mustTrainIn(t, dir, "export", "-db", u); after != before {
		t.Errorf("the export changed across the stopped and the second prune (%d bytes, was %d)", len(after), len(before))
	}
}

// waitPG polls query (one integer) until it is not 0, for up to a minute
// (CI shares 2 cores), and returns it.
func waitPG(t *testing.T, conn *pgx.Conn, what, query string, args ...any) int64 {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if n := pgCount(t, conn, query, args...); n != 0 {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func pgCount(t *testing.T, conn *pgx.Conn, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// mustTrainIn runs a command in dir that must succeed and returns its
// stdout.
func mustTrainIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, errOut, code := trainIn(t, dir, args...)
	if code != 0 {
		t.Fatalf("train %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// TestPostgresTwoJobsOneFolder: two jobs started from one directory
// against one PostgreSQL database, with a prune and a stats run beside
// them from the same directory (the jobs play until they are stopped),
// all exit 0 and every game is counted exactly once; no shard is left
// behind. (Both jobs and the prune once
// shared one shard folder and removed each other's shards.)
func TestPostgresTwoJobsOneFolder(t *testing.T) {
	u := pgtest.SchemaURL(t)
	dir := t.TempDir()
	mustTrainIn(t, dir, "run", "-db", u, "-workers", "1", "-games", "20", "-seed", "1") // creates the store
	// The jobs play with the forest policy (about 150 games a second a
	// worker, where uniform choices make thousands): a prune of two jobs
	// writing faster than the server can expire on a shared 2-core
	// machine would chase a young table that only grows.
	model, err := filepath.Abs("../../data/model.ocf")
	if err != nil {
		t.Fatal(err)
	}
	var jobs [2]*jobRun
	for i := range jobs {
		jobs[i] = startJob(t, dir, "run", "-db", u, "-workers", "1", "-duration", "10m", "-seed", fmt.Sprint(10+i), "-model", model,
			"-shard-games", "50", "-flush-every", "50ms", "-progress", "100ms", "-prune-every", "200ms", "-prune-age", "200")
	}
	for _, j := range jobs { // both play, merge and prune beside their merges before the prune
		j.waitFor(t, "  merged ")
		j.waitFor(t, "pruning")
	}
	if out := mustTrainIn(t, dir, "prune", "-db", u, "-age", "0"); !strings.Contains(out, "pruned: ") {
		t.Errorf("prune: %s", out)
	}
	mustTrainIn(t, dir, "stats", "-db", u)
	want := int64(20)
	for i, j := range jobs {
		j.cmd.Process.Signal(syscall.SIGTERM) // they play for 10 minutes otherwise
		if err := j.wait(); err != nil {
			t.Fatalf("job %d: %v\n%s", i, err, j.errOut.String())
		}
		var n int64
		if _, err := fmt.Sscanf(j.out.String(), "games this run %d", &n); err != nil || n == 0 {
			t.Fatalf("job %d: no games in its summary (%v):\n%s", i, err, j.out.String())
		}
		want += n
	}
	var st struct {
		Games int64 `json:"games"`
	}
	out := mustTrainIn(t, dir, "stats", "-db", u, "-json")
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Games != want {
		t.Errorf("stats: %d games, want %d: the first run's 20 and what each job merged (%v)", st.Games, want, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "data", "*.shards", "*")); len(left) != 0 {
		t.Errorf("left in the shard folder: %v", left)
	}
}

// jobRun is a train command running in the background; one goroutine
// waits for it, so a job that exits early fails its waitFor at once
// rather than after the wait's 5 minutes.
type jobRun struct {
	cmd         *exec.Cmd
	out, errOut *syncBuffer
	done        chan struct{} // closed when the job has exited
	err         error         // its exit, set before done is closed
}

func startJob(t *testing.T, dir string, args ...string) *jobRun {
	t.Helper()
	j := &jobRun{cmd: trainCmd(t, args...), out: &syncBuffer{}, errOut: &syncBuffer{}, done: make(chan struct{})}
	j.cmd.Dir, j.cmd.Stdout, j.cmd.Stderr = dir, j.out, j.errOut
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		j.err = j.cmd.Wait()
		close(j.done)
	}()
	t.Cleanup(func() { j.cmd.Process.Kill(); <-j.done })
	return j
}

// wait waits for the job to exit and returns its exit error.
func (j *jobRun) wait() error {
	<-j.done
	return j.err
}

// waitFor waits up to 5 minutes (CI shares 2 cores) for text on stderr;
// a job that exits first without writing it fails the test at once.
func (j *jobRun) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.NewTimer(5 * time.Minute)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(j.errOut.String(), text) {
		select {
		case <-j.done:
			if !strings.Contains(j.errOut.String(), text) {
				t.Fatalf("the job exited (%v) without %q:\n%s", j.err, text, j.errOut.String())
			}
		case <-deadline.C:
			t.Fatalf("no %q in 5 minutes:\n%s", text, j.errOut.String())
		case <-tick.C:
		}
	}
}

// TestPostgresServerLostAtStart: a job that loses the server during its
// start-up (here at its first write, the run's record) waits for it, says
// so once, and goes on when it is back; it used to exit 1. The cut follows
// what the job sends, and the restore the job's line.
func TestPostgresServerLostAtStart(t *testing.T) {
	u := pgtest.SchemaURL(t)
	dir := t.TempDir()
	mustTrainIn(t, dir, "run", "-db", u, "-workers", "1", "-games", "20", "-seed", "1") // the store exists
	proxy, pu := pgtest.NewProxy(t, u)
	proxy.CutAt("ON CONFLICT (key) DO UPDATE SET value")
	job := startJob(t, dir, "run", "-db", pu, "-workers", "1", "-games", "40", "-seed", "2")
	job.waitFor(t, "waiting for the server")
	proxy.Restore()
	if err := job.wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, job.errOut.String())
	}
	if n := strings.Count(job.errOut.String(), "waiting for the server"); n != 1 || !strings.Contains(job.errOut.String(), "server back: starting") {
		t.Errorf("%d waiting lines, want 1, then 'server back':\n%s", n, job.errOut.String())
	}
	var st struct {
		Games int64 `json:"games"`
	}
	if err := json.Unmarshal([]byte(mustTrainIn(t, dir, "stats", "-db", u, "-json")), &st); err != nil || st.Games != 60 {
		t.Errorf("stats: %d games, want 60 (%v)", st.Games, err)
	}
}
