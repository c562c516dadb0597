package coordinator

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/sqlite"
)

// The fake workers of the job tests: goroutines in the test process that
// a job starts through Config.spawn instead of worker processes. Each
// plays the self-play worker's side of the line protocol as Work does
// ("playing", "played N", "published PATH GAMES BYTES", waiting for a
// go-ahead after each shard when started with -gate, publishing what it
// has and exiting when stopped), with known games (fakeGame) written as
// real sealed shards in the job's folder, and records what it did and
// saw for the test to check once the job has returned.

// fakes starts the fake workers of one job.
type fakes struct {
	// hold, if positive: each worker, once it has published hold shards,
	// plays extra more games, sends its index on held and then plays
	// nothing more until it is stopped (a long game); it publishes them
	// then.
	hold, extra int
	held        chan int
	// failAfter, if positive: worker failIndex fails (returns an error,
	// as a process exits with one) once it has published failAfter
	// shards, with nothing unpublished.
	failIndex, failAfter int

	mu      sync.Mutex
	workers map[int]*fakeWorker
}

// fakeWorker is one fake worker and what it did.
type fakeWorker struct {
	cfg  WorkerConfig  // from the job's arguments (WorkerFlags)
	gate <-chan string // the job's lines, if it started the worker with -gate
	stop chan struct{} // closed by the job's stop (a process's SIGTERM)
	out  io.Writer     // its lines to the job
	f    *fakes
	// Set by the worker's goroutine, read by the test after the job
	// returned (the worker's end happens before its exit event).
	played int
	shards []fakeShard // published, in order
	goes   []goSeen    // what it saw at each go-ahead
}

// fakeShard is a shard a fake worker published.
type fakeShard struct {
	id, path string
	games    int
}

// goSeen is what a fake worker saw in the job's folder when it got a
// go-ahead: whether its last shard was still there, and how many sealed
// shards were.
type goSeen struct {
	ownLeft bool
	waiting int
}

// lineChan is a fake worker's input: the job's lines, buffered as a
// pipe's are (the job never waits for a worker to read).
type lineChan chan string

func (c lineChan) Write(p []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line != "" {
			c <- strings.TrimSuffix(line, "\n")
		}
	}
	return len(p), nil
}

// spawn is the job's Config.spawn: it reads the worker's configuration
// from the arguments a worker process would get and starts the fake.
func (f *fakes) spawn(i int, args []string, input bool) (proc, error) {
	if len(args) == 0 || args[0] != "worker" {
		return proc{}, fmt.Errorf("fake worker %d: arguments %q", i, args)
	}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	config := WorkerFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return proc{}, fmt.Errorf("fake worker %d: %w", i, err)
	}
	cfg, gate, err := config()
	if err != nil || gate != input || cfg.Index != i || cfg.Dir == "" {
		return proc{}, fmt.Errorf("fake worker %d: %+v, -gate %v, input %v, %v", i, cfg, gate, input, err)
	}
	r, out := io.Pipe()
	w := &fakeWorker{cfg: cfg, stop: make(chan struct{}), out: out, f: f}
	p := proc{out: r}
	if input {
		in := make(lineChan, 1<<12)
		w.gate, p.in = in, in
	}
	done := make(chan struct{})
	var runErr error
	go func() {
		runErr = w.run()
		out.Close()
		close(done)
	}()
	var once sync.Once
	p.wait = func() error { <-done; return runErr }
	p.stop = func() { once.Do(func() { close(w.stop) }) }
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.workers == nil {
		f.workers = map[int]*fakeWorker{}
	}
	f.workers[i] = w
	return p, nil
}

// all are the workers started, by index.
func (f *fakes) all() []*fakeWorker {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ws []*fakeWorker
	for _, i := range slices.Sorted(maps.Keys(f.workers)) {
		ws = append(ws, f.workers[i])
	}
	return ws
}

// run is the worker's life, as Work's self-play loop: games in a batch,
// a shard every ShardGames games, a go-ahead awaited after each, the
// rest published at the end.
func (w *fakeWorker) run() error {
	w.say("playing")
	batch := shard.NewBatch()
	for w.cfg.Games == 0 || w.played < w.cfg.Games {
		if w.f.hold > 0 && len(w.shards) == w.f.hold {
			for range w.f.extra {
				if err := w.play(batch); err != nil {
					return err
				}
			}
			w.f.held <- w.cfg.Index
			<-w.stop
			break
		}
		if w.stopped() {
			break
		}
		if err := w.play(batch); err != nil {
			return err
		}
		if batch.Len() >= w.cfg.Game.ShardGames {
			if err := w.publish(batch); err != nil {
				return err
			}
			if w.f.failAfter > 0 && w.cfg.Index == w.f.failIndex && len(w.shards) == w.f.failAfter {
				return fmt.Errorf("fake worker %d fails", w.cfg.Index)
			}
			if !w.await() {
				break
			}
		}
	}
	return w.publish(batch)
}

func (w *fakeWorker) play(batch *shard.Batch) error {
	if err := batch.Add(fakeGame(w.cfg.Index, w.played)); err != nil {
		return err
	}
	w.played++
	w.say("played " + strconv.Itoa(w.played))
	return nil
}

func (w *fakeWorker) say(line string) { io.WriteString(w.out, line+"\n") }

func (w *fakeWorker) stopped() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// await waits for the go-ahead of a worker started with -gate, and
// records what the job's folder holds then; false: stopped meanwhile.
func (w *fakeWorker) await() bool {
	if w.gate == nil {
		return true
	}
	select {
	case <-w.gate:
	case <-w.stop:
		return false
	}
	_, err := os.Stat(w.shards[len(w.shards)-1].path)
	waiting, _ := shard.ListShards(w.cfg.Dir)
	w.goes = append(w.goes, goSeen{ownLeft: err == nil, waiting: len(waiting)})
	return true
}

// publish writes the batch as a sealed shard, records it and announces it.
func (w *fakeWorker) publish(batch *shard.Batch) error {
	if batch.Len() == 0 {
		return nil
	}
	path, err := batch.WriteShard(context.Background(), w.cfg.Dir, store.DefaultConfig(w.cfg.Game.Rule),
		map[string]string{"worker": strconv.Itoa(w.cfg.Index), "shard_seq": strconv.Itoa(len(w.shards) + 1)})
	if err != nil {
		return err
	}
	info, err := shard.ReadShard(path)
	if err != nil {
		return err
	}
	w.shards = append(w.shards, fakeShard{id: info.ID, path: path, games: batch.Len()})
	w.say(fmt.Sprintf("published %s %d %d", path, batch.Len(), fileSize(path)))
	batch.Reset()
	return nil
}

// fakeGame is game n of worker i: the centre, then 2 to 7 stones near it
// chosen by a generator seeded with (i, n) (Black has at most four: no
// one wins on the board), recorded as self-play records its games
// (canonical keys and moves); the result goes black, white, draw by n.
func fakeGame(i, n int) store.Game {
	rng := rand.New(rand.NewPCG(uint64(i), uint64(n)))
	b := gomoku.New(gomoku.Options{Rule: gomoku.Freestyle})
	b.Play(gomoku.Center)
	g := store.Game{Result: int8(1 - n%3)}
	for ply := range 2 + rng.IntN(6) {
		p := gomoku.Pt(5+rng.IntN(5), 5+rng.IntN(5))
		for b.At(p) != gomoku.Empty {
			p = gomoku.Pt(5+rng.IntN(5), 5+rng.IntN(5))
		}
		pos := canon.Of(b)
		weight := g.Result // +1 for the winner's moves: White moves at even plies
		if ply%2 == 0 {
			weight = -weight
		}
		g.Records = append(g.Records, store.Record{Key: pos.Key, Move: pos.ToCanon(p), Weight: weight})
		b.Play(p)
	}
	return g
}

// fakeTotals are the games of the fake workers' shards, by result.
func fakeTotals(ws []*fakeWorker) (games, black, white, draws int64) {
	for _, w := range ws {
		for n := range w.played {
			games++
			switch fakeGame(w.cfg.Index, n).Result {
			case 1:
				black++
			case -1:
				white++
			default:
				draws++
			}
		}
	}
	return games, black, white, draws
}

// fakeConfig is a run of workers fake workers of f into the database db:
// games games (0: until stopped) in shards of shardGames, the given
// backlog bound, no prune (the young runs stay, their births the order of
// the merges) and no progress line.
func fakeConfig(t *testing.T, f *fakes, db string, workers, games, shardGames int, backlog ByteSize) Config {
	t.Helper()
	c := DefaultConfig("test")
	c.DB, c.Workers, c.Seed = db, workers, 1
	c.Games, c.Duration = games, time.Hour
	if games > 0 {
		c.Duration = 0 // the games alone
	}
	c.Game.ShardGames, c.Game.FlushEvery = shardGames, time.Hour
	c.Prune.Age, c.Progress, c.Backlog = 1<<40, time.Hour, backlog
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.spawn = f.spawn
	return c
}

// checkMerged checks the database at db after the fake workers' job: it
// holds exactly their games (by result), every shard they published is
// in the ledger once, and each worker's shards were merged in the order
// it published them, each with its games (store/doc.go: the young runs'
// births, the game count after the merge that added them, follow one
// another by their games).
func checkMerged(t *testing.T, db string, ws []*fakeWorker) store.Stats {
	t.Helper()
	st := dbStats(t, db)
	games, black, white, draws := fakeTotals(ws)
	var shards int64
	for _, w := range ws {
		shards += int64(len(w.shards))
		n := 0
		for _, s := range w.shards {
			n += s.games
		}
		if n != w.played {
			t.Errorf("worker %d played %d games and published %d", w.cfg.Index, w.played, n)
		}
	}
	if st.Games != games || st.BlackWins != black || st.WhiteWins != white || st.Draws != draws || st.MergedShards != shards {
		t.Errorf("database: %d games (%d black, %d white, %d drawn), %d merged shards; the workers published %d (%d, %d, %d) in %d shards",
			st.Games, st.BlackWins, st.WhiteWins, st.Draws, st.MergedShards, games, black, white, draws, shards)
	}
	runs := youngRuns(t, db)
	for _, w := range ws {
		var order []string
		for _, r := range runs {
			if i := slices.IndexFunc(w.shards, func(s fakeShard) bool { return s.id == r.source }); i >= 0 {
				order = append(order, r.source)
				if r.games != int64(w.shards[i].games) {
					t.Errorf("worker %d shard %d: %d games merged, %d published", w.cfg.Index, i+1, r.games, w.shards[i].games)
				}
			}
		}
		var published []string
		for _, s := range w.shards {
			published = append(published, s.id)
		}
		if !slices.Equal(order, published) {
			t.Errorf("worker %d: shards merged in the order %v, published %v", w.cfg.Index, order, published)
		}
	}
	return st
}

func dbStats(t *testing.T, path string) store.Stats {
	t.Helper()
	db, err := sqlite.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// youngRun is a row of young_runs (store/doc.go).
type youngRun struct {
	source      string
	born, games int64
}

// youngRuns reads the young runs of the database at path in the order
// they were merged, and checks that each holds the games merged just
// before its birth.
func youngRuns(t *testing.T, path string) []youngRun {
	t.Helper()
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	db, err := sql.Open("sqlite3", "file:"+esc.Replace(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT source, born, games FROM young_runs ORDER BY born")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var runs []youngRun
	for rows.Next() {
		var r youngRun
		if err := rows.Scan(&r.source, &r.born, &r.games); err != nil {
			t.Fatal(err)
		}
		if len(runs) > 0 && r.born-r.games != runs[len(runs)-1].born {
			t.Errorf("young run of %s holds games %d to %d, after the run born at %d", r.source, r.born-r.games+1, r.born, runs[len(runs)-1].born)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return runs
}
