package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/sqlite"
)

// The test binary doubles as the train command (and so as its workers,
// which re-execute it) when this variable is set.
const asMain = "OCVIST_TRAIN_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// train runs the command in a child process and returns its output and
// exit code.
func train(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := trainCmd(t, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

func trainCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), asMain+"=1")
	return cmd
}

func mustTrain(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := train(t, args...)
	if code != 0 {
		t.Fatalf("train %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	return out
}

func stats(t *testing.T, db string) store.Stats {
	t.Helper()
	var st store.Stats
	out := mustTrain(t, "stats", "-db", db, "-json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stats -json: %v\n%s", err, out)
	}
	return st
}

// export reads a database's statistics as a map from "key mx my" to
// [wsum, games, blacklisted, position games].
func export(t *testing.T, db string) map[string][4]int64 {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(mustTrain(t, "export", "-db", db))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][4]int64{}
	for _, r := range rows[1:] {
		var v [4]int64
		for i := range v {
			v[i], err = strconv.ParseInt(r[3+i], 10, 64)
			if err != nil {
				t.Fatalf("export row %v: %v", r, err)
			}
		}
		m[strings.Join(r[:3], " ")] = v
	}
	return m
}

func TestRunAndStats(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sub", "t.db")
	// A -db in a directory that does not exist is refused, not created.
	if _, errOut, code := train(t, "run", "-db", db, "-games", "2"); code != 2 || !strings.Contains(errOut, "does not exist: create it first") {
		t.Fatalf("a -db in a missing directory: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Dir(db)); err == nil {
		t.Fatalf("%s was created", filepath.Dir(db))
	}
	os.Mkdir(filepath.Dir(db), 0o755)
	out, errOut, code := train(t, "run", "-db", db, "-games", "300", "-workers", "2", "-seed", "7", "-shard-games", "40")
	if code != 0 || !strings.Contains(out, "games this run 300: self-play ") || !strings.Contains(out, "end-to-end ") || !strings.Contains(out, "peaks: ") {
		t.Errorf("exit %d, summary: %s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "pruning: expiring young runs") {
		t.Errorf("no line before the final prune:\n%s", errOut)
	}
	st := stats(t, db)
	if st.Games != 300 || st.Positions == 0 || st.Moves == 0 || st.Rule != "freestyle" || st.KeyVersion != 1 || st.SchemaVersion < 1 {
		t.Errorf("stats %+v", st)
	}
	if st.BlackWins+st.WhiteWins+st.Draws != st.Games {
		t.Errorf("results %d+%d+%d != %d games", st.BlackWins, st.WhiteWins, st.Draws, st.Games)
	}
	if entries, _ := os.ReadDir(filepath.Dir(db)); len(entries) != 2 { // t.db and its writer lock
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("beside the database after the run: %v, want t.db and t.db.lock", names)
	}
}

// TestMergeConservation: merged databases keep every count (games, results, rows).
func TestMergeConservation(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db"), filepath.Join(dir, "c.db")
	mustTrain(t, "run", "-db", a, "-games", "200", "-workers", "2", "-seed", "1")
	mustTrain(t, "run", "-db", b, "-games", "150", "-workers", "1", "-seed", "2")
	mustTrain(t, "merge", "-db", c, a, b)
	ea, eb, ec := export(t, a), export(t, b), export(t, c)
	want := map[string][3]int64{}
	for _, e := range []map[string][4]int64{ea, eb} {
		for k, v := range e {
			w := want[k]
			want[k] = [3]int64{w[0] + v[0], w[1] + v[1], w[2] | v[2]}
		}
	}
	if len(ec) != len(want) {
		t.Fatalf("merged has %d rows, sum of sources %d", len(ec), len(want))
	}
	for k, w := range want {
		if g := ec[k]; g[0] != w[0] || g[1] != w[1] || g[2] != w[2] {
			t.Fatalf("row %s: merged %v, sources sum %v", k, g, w)
		}
	}
	sa, sb, sc := stats(t, a), stats(t, b), stats(t, c)
	if sc.Games != sa.Games+sb.Games || sc.Games != 350 {
		t.Errorf("games %d, want %d+%d", sc.Games, sa.Games, sb.Games)
	}
	before := fileHash(t, c)
	out := mustTrain(t, "merge", "-db", c, a)
	if !strings.Contains(out, "already merged") {
		t.Errorf("second merge said: %s", out)
	}
	if after := export(t, c); len(after) != len(ec) || stats(t, c).Games != sc.Games {
		t.Error("merging a source again changed the target")
	} else {
		for k, v := range ec {
			if after[k] != v {
				t.Fatalf("row %s changed on re-merge", k)
			}
		}
	}
	_ = before
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// rootGames checks a database against the invariant that no game is
// counted twice or half: without openings every game passes through the
// one-stone position, so its games and its moves' games equal the number
// of games recorded.
func rootGames(t *testing.T, db string) int64 {
	t.Helper()
	st := stats(t, db)
	var moves int64
	for k, v := range export(t, db) {
		if strings.HasPrefix(k, "0000x ") {
			moves += v[1]
			if v[3] != st.Games {
				t.Errorf("position 0000x has %d games, database %d", v[3], st.Games)
			}
		}
	}
	if moves != st.Games {
		t.Errorf("moves from 0000x played %d times, database has %d games", moves, st.Games)
	}
	return st.Games
}

func integrity(t *testing.T, path string) {
	t.Helper()
	db, err := sqlite.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a buffer that a child process's output goroutine writes
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startRun starts a long run and waits until it has merged some games.
// The wait is generous: CI runs beside other work on 2 cores.
func startRun(t *testing.T, db string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := trainCmd(t, "run", "-db", db, "-duration", "10m", "-workers", "2", "-seed", "3",
		"-shard-games", "25", "-flush-every", "100ms", "-progress", "200ms")
	errOut := &syncBuffer{}
	cmd.Stderr = errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(5 * time.Minute)
	for mergedGames(errOut.String()) < 50 {
		if time.Now().After(deadline) {
			t.Fatalf("run merged nothing in 5 minutes:\n%s", errOut.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cmd, errOut
}

// mergedGames reads the last "merged N" figure of the progress lines.
func mergedGames(log string) int64 {
	i := strings.LastIndex(log, "  merged ")
	if i < 0 {
		return 0
	}
	var n int64
	fmt.Sscanf(log[i:], "  merged %d", &n)
	return n
}

// TestSigtermResume: a run stopped by SIGTERM resumes losing nothing.
func TestSigtermResume(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	cmd, errOut := startRun(t, db)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SIGTERM: exit %v\n%s", err, errOut.String())
	}
	integrity(t, db)
	first := rootGames(t, db)
	if first < 50 {
		t.Fatalf("only %d games before SIGTERM", first)
	}
	if left, _ := filepath.Glob(db + ".shards/*"); len(left) != 0 {
		t.Errorf("SIGTERM left shards: %v", left)
	}
	t.Logf("after SIGTERM: %d games", first)
	mustTrain(t, "run", "-db", db, "-games", "60", "-workers", "2", "-seed", "4")
	integrity(t, db)
	if got := rootGames(t, db); got != first+60 {
		t.Errorf("after resume %d games, want %d+60", got, first)
	}
}

// TestKill9Resume: resuming after kill -9 of the
// coordinator (its workers publish what they finished and exit) and of a
// worker (its unpublished games are lost, nothing else).
func TestKill9Resume(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	cmd, _ := startRun(t, db)
	shardDir := db + ".shards"
	victim := workerPIDs(t, shardDir)
	if len(victim) != 2 {
		t.Fatalf("found workers %v", victim)
	}
	syscall.Kill(victim[0], syscall.SIGKILL)
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, shardDir)
	integrity(t, db)
	// What is stored plus what the surviving worker published and the
	// coordinator had not merged is every finished game; the next run must
	// count each exactly once. A shard merged just before the kill, not yet
	// deleted, is in the ledger and adds nothing.
	before := stats(t, db).Games
	var published int64
	shards, _ := filepath.Glob(filepath.Join(shardDir, "job-*", "shard-*.run"))
	d, err := sqlite.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range shards {
		info, err := shard.ReadShard(p)
		if err != nil {
			t.Fatal(err)
		}
		if merged, err := d.Merged(context.Background(), info.ID); err != nil {
			t.Fatal(err)
		} else if !merged {
			published += info.Games
		}
	}
	d.Close()
	t.Logf("after kill -9: %d games stored, %d in %d published shards", before, published, len(shards))
	out := mustTrain(t, "run", "-db", db, "-games", "40", "-workers", "1", "-seed", "5")
	integrity(t, db)
	if got := rootGames(t, db); got != before+published+40 {
		t.Errorf("after resume %d games, want %d stored + %d in shards + 40 (%s)", got, before, published, out)
	}
}

// workerPIDs finds the worker processes writing into shardDir.
// workerPIDs are the worker processes of the jobs whose shard root is
// shardDir (each job's folder is shardDir/job-…).
func workerPIDs(t *testing.T, shardDir string) []int {
	t.Helper()
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 1 && args[1] == "worker" && strings.Contains(string(b), "\x00"+shardDir+"/") {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGone waits until no worker of a job of shardDir is running.
func waitGone(t *testing.T, shardDir string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(workerPIDs(t, shardDir)) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("workers still running 30 s after their coordinator died")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
