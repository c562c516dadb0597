package coordinator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/sqlite"
)

// The job loop in process: "train run" (Run) with fake workers
// (fake_test.go) into a SQLite database in a temporary directory.

// runFake runs c's job to its end and returns its summary and log.
func runFake(t *testing.T, ctx context.Context, c Config) (out, log string) {
	t.Helper()
	var o, l syncBuffer
	if err := Run(ctx, c, &o, &l); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, o.String(), l.String())
	}
	return o.String(), l.String()
}

// checkShards checks the shards each worker published, by their games.
func checkShards(t *testing.T, ws []*fakeWorker, want ...[]int) {
	t.Helper()
	if len(ws) != len(want) {
		t.Fatalf("%d workers, want %d", len(ws), len(want))
	}
	for i, w := range ws {
		var got []int
		for _, s := range w.shards {
			got = append(got, s.games)
		}
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Errorf("worker %d published shards of %v games, want %v", i, got, want[i])
		}
	}
}

// checkGone checks that the job left no folder: every shard merged and
// removed, the shard root with it.
func checkGone(t *testing.T, db string) {
	t.Helper()
	if _, err := os.Stat(ShardDir(db)); !errors.Is(err, os.ErrNotExist) {
		left, _ := filepath.Glob(filepath.Join(ShardDir(db), "*", "*"))
		t.Errorf("the shard root is still there (%v): %v", err, left)
	}
}

// held is the number of holds the summary reports (0: no line).
func held(t *testing.T, out string) int {
	t.Helper()
	m := regexp.MustCompile(`backlog: workers were held (\d+) time\(s\)`).FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestJobMergesOnce: three workers share 47 games and publish a shard
// every 5 (the last one short); the job merges every shard exactly once,
// each worker's in the order it published them, so the database holds
// exactly the games played, by result, and no shard is left. Workers
// started with -gate (a bound never reached) get a go-ahead after each
// full shard and are never held.
func TestJobMergesOnce(t *testing.T) {
	for _, backlog := range []ByteSize{0, 1 << 30} {
		t.Run("backlog "+backlogText(backlog), func(t *testing.T) {
			f := &fakes{}
			c := fakeConfig(t, f, filepath.Join(t.TempDir(), "f.db"), 3, 47, 5, backlog)
			out, log := runFake(t, context.Background(), c)
			ws := f.all()
			checkShards(t, ws, []int{5, 5, 5, 1}, []int{5, 5, 5, 1}, []int{5, 5, 5})
			checkMerged(t, c.DB, ws)
			checkGone(t, c.DB)
			for _, w := range ws {
				gated := w.gate != nil
				if gated != (backlog > 0) || gated && len(w.goes) != 3 {
					t.Errorf("worker %d: -gate %v, %d go-aheads; want -gate with a bound, a go-ahead after each full shard",
						w.cfg.Index, gated, len(w.goes))
				}
			}
			if !strings.Contains(out, "games this run 47:") || held(t, out) != 0 {
				t.Errorf("summary:\n%s\n%s", out, log)
			}
		})
	}
}

// TestJobBacklog: with a bound of one byte every shard holds its worker
// until the merges have emptied the backlog: at each go-ahead the
// worker's own shard is merged and gone, and the folder holds at most one
// shard of each other worker (each waits after its shard too). Held
// workers lose nothing; one worker is held once for each of its shards;
// the first hold is the one warning.
func TestJobBacklog(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			f := &fakes{}
			c := fakeConfig(t, f, filepath.Join(t.TempDir(), "f.db"), workers, workers*20, 5, 1)
			out, log := runFake(t, context.Background(), c)
			ws := f.all()
			for _, w := range ws {
				if len(w.goes) != 4 {
					t.Errorf("worker %d: %d go-aheads, want 4 (one for each shard)", w.cfg.Index, len(w.goes))
				}
				for i, g := range w.goes {
					if g.ownLeft || g.waiting > workers-1 {
						t.Errorf("worker %d, go-ahead %d: own shard still waiting %v, %d shards waiting (want merged, at most %d)",
							w.cfg.Index, i+1, g.ownLeft, g.waiting, workers-1)
					}
				}
			}
			checkMerged(t, c.DB, ws)
			checkGone(t, c.DB)
			n := held(t, out)
			if workers == 1 && n != 4 || n < 1 || n > 4*workers {
				t.Errorf("workers held %d time(s); want 4 for one worker, 1 to %d for %d:\n%s", n, 4*workers, workers, out)
			}
			if w := strings.Count(log, "warning:"); w != 1 || !strings.Contains(log, "wait to be merged (-backlog 1 B)") {
				t.Errorf("%d warnings, want the backlog's one:\n%s", w, log)
			}
		})
	}
}

// TestJobStop: a run stopped while its three workers are each in the
// middle of a game, two shards and three games after they began: each
// publishes its three games when told to stop, the job merges all of them
// and returns as stopped, and the database holds exactly the games
// published, each shard merged once; with workers held after each shard
// too.
func TestJobStop(t *testing.T) {
	for _, backlog := range []ByteSize{0, 1} {
		t.Run("backlog "+backlogText(backlog), func(t *testing.T) {
			const workers = 3
			f := &fakes{hold: 2, extra: 3, held: make(chan int, workers)}
			c := fakeConfig(t, f, filepath.Join(t.TempDir(), "f.db"), workers, 0, 4, backlog)
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			var o, l syncBuffer
			done := make(chan error, 1)
			go func() { done <- Run(ctx, c, &o, &l) }()
			for range workers {
				select {
				case <-f.held:
				case err := <-done:
					t.Fatalf("the run ended before it was stopped: %v\n%s\n%s", err, o.String(), l.String())
				}
			}
			stop()
			if err := <-done; err != nil {
				t.Fatalf("stopped run: %v\n%s\n%s", err, o.String(), l.String())
			}
			ws := f.all()
			checkShards(t, ws, []int{4, 4, 3}, []int{4, 4, 3}, []int{4, 4, 3})
			st := checkMerged(t, c.DB, ws)
			checkGone(t, c.DB)
			if st.Games != workers*11 || !strings.Contains(o.String(), "stopped: finished games are merged") ||
				!strings.Contains(l.String(), "stopping: workers finish their game and publish it") {
				t.Errorf("%d games; summary and log:\n%s\n%s", st.Games, o.String(), l.String())
			}
		})
	}
}

// TestJobWorkerFails: a worker that fails after its second shard loses
// nothing it published: the job merges its two shards and all of the
// other worker's, and ends with an error naming it.
func TestJobWorkerFails(t *testing.T) {
	f := &fakes{failIndex: 1, failAfter: 2}
	c := fakeConfig(t, f, filepath.Join(t.TempDir(), "f.db"), 2, 40, 5, 0)
	var o, l syncBuffer
	err := Run(context.Background(), c, &o, &l)
	if err == nil || !strings.Contains(err.Error(), "1 problem(s), everything finished was merged: worker 1: fake worker 1 fails") {
		t.Fatalf("run: %v, want worker 1's failure\n%s\n%s", err, o.String(), l.String())
	}
	ws := f.all()
	checkShards(t, ws, []int{5, 5, 5, 5}, []int{5, 5})
	checkMerged(t, c.DB, ws)
	checkGone(t, c.DB)
}

// writeShard writes games 0 to games-1 of fake worker index as a sealed
// shard in dir, and returns the worker that would have published it.
func writeShard(t *testing.T, dir string, index, games int) *fakeWorker {
	t.Helper()
	b := shard.NewBatch()
	for n := range games {
		if err := b.Add(fakeGame(index, n)); err != nil {
			t.Fatal(err)
		}
	}
	path, err := b.WriteShard(context.Background(), dir, store.DefaultConfig(gomoku.Freestyle), nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := shard.ReadShard(path)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeWorker{cfg: WorkerConfig{Index: index}, played: games, shards: []fakeShard{{id: info.ID, path: path, games: games}}}
}

// writeTemp writes an unfinished shard in dir, as a worker killed while
// writing leaves one.
func writeTemp(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, ".shard-unfinished.tmp")
	if err := os.WriteFile(path, []byte("half a shard"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !shard.IsTempShard(path) {
		t.Fatalf("%s is not a temporary shard's name", path)
	}
	return path
}

// TestJobAdoptsDeadJobs: a job that died (its folder's lock free) left
// two shards, one it had merged before it died and an unfinished one; a
// live job's folder holds a shard and an unfinished one. The next run
// merges the dead job's shards once (the one merged before is only
// removed), discards its unfinished shard and removes its folder, and
// leaves the live job's folder as it is; once that job has died too,
// AdoptShards merges its shard, and a second AdoptShards finds nothing.
func TestJobAdoptsDeadJobs(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "a.db")
	root := ShardDir(dbPath)
	dead, err := claimJobDir(root)
	if err != nil {
		t.Fatal(err)
	}
	before := []*fakeWorker{writeShard(t, dead.path, 90, 4), writeShard(t, dead.path, 91, 6), writeShard(t, dead.path, 92, 7)}
	writeTemp(t, dead.path)
	db, err := sqlite.Open(dbPath, store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(ctx, before[0].shards[0].path); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dead.lock.Close() // it dies, its folder left behind
	live, err := claimJobDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer live.lock.Close()
	liveShard := writeShard(t, live.path, 93, 5)
	liveTemp := writeTemp(t, live.path)

	f := &fakes{}
	c := fakeConfig(t, f, dbPath, 1, 10, 5, 0)
	_, log := runFake(t, ctx, c)
	checkMerged(t, dbPath, append(f.all(), before...))
	if !strings.Contains(log, "discarded 1 unfinished shard(s)") || !strings.Contains(log, "merged 3 shard(s) left by an earlier run: 13 games\n") {
		t.Errorf("the run's log does not say what it adopted:\n%s", log)
	}
	if _, err := os.Stat(dead.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead job's folder is still there: %v", err)
	}
	for _, p := range []string{liveShard.shards[0].path, liveTemp} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the live job's folder was touched: %v", err)
		}
	}
	if _, ok := lockDead(live.path, false); ok {
		t.Errorf("the live job's folder is no longer locked")
	}

	live.lock.Close() // it dies too
	db, err = sqlite.Open(dbPath, store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []Adopted{{Jobs: 1, Discarded: 1, Shards: 1, Games: 5}, {}} {
		if a, err := AdoptShards(ctx, db, root); err != nil || a != want {
			t.Errorf("AdoptShards %d: %+v, %v; want %+v", i+1, a, err, want)
		}
	}
	db.Close()
	checkMerged(t, dbPath, append(f.all(), append(before, liveShard)...))
	if left, err := os.ReadDir(root); err != nil || len(left) != 0 {
		t.Errorf("the shard root holds %v (%v), want nothing", left, err)
	}
}
