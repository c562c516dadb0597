package coordinator

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"ocvist/internal/splitmix"
	"ocvist/store"
)

// job is one "train run" in progress: the coordinator's state. The
// coordinator's goroutines: the main loop (signals, worker events, the
// progress line), one reader per worker, and the merger, which alone uses
// the database while the workers run.
type job struct {
	lastPrune time.Time // of a PostgreSQL store (see serverPruneEvery)
	cfg       Config
	db        store.Store
	shardDir  string
	out, log  io.Writer
	start     time.Time
	before    int64 // games in the database when the run started
	workers   []*worker
	events    chan event
	shards    chan string // published shards, in order, for the merger
	merged    chan struct{}
	st        jobStats
	playEnd   time.Time // when the last worker exited
	mu        sync.Mutex
	failed    []string
	// The backlog bound (see admit), kept by the main loop; drained tells
	// it that a merge has made room.
	drained   chan struct{}
	quit      <-chan struct{} // closed when the run is interrupted
	stopping  bool
	pauses    int // times workers were held (none held before)
	pausedAt  time.Time
	pausedFor time.Duration
}

// jobStats are the figures the progress line reads without waiting for a
// merge.
type jobStats struct {
	merged       atomic.Int64 // games merged by this run
	backlog      atomic.Int64 // shards published and not yet merged
	backlogGames atomic.Int64
	backlogBytes atomic.Int64
	peakBacklog  atomic.Int64 // bytes
	peakShards   atomic.Int64 // shards waiting at once
	positions    atomic.Int64 // positions in the database, as last counted
	dbBytes      atomic.Int64 // database file, young runs and shards
	peakDB       atomic.Int64
	busy         atomic.Value // what the merger is doing, for the progress line
}

func (j *job) fail(msg string) {
	j.mu.Lock()
	j.failed = append(j.failed, msg)
	j.mu.Unlock()
}

// Run is one "train run": it starts cfg.Workers worker processes, merges
// their shards as they come, prunes, and when they are done (the limits of
// cfg, or ctx ended: a stop, not a failure) merges what is left, prunes,
// concludes and writes the summary to stdout; progress and warnings go to
// stderr. The workers are copies of the running program started as
// "PROGRAM worker -config … -seed …": the program's worker command must
// call Work with those flags (cmd/train does). Cfg must be validated.
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	// Read the openings and the model here, so that a bad file is one
	// error line before anything starts, not a failure in every worker.
	if _, err := newGameConfig(cfg.Game); err != nil {
		return err
	}
	if _, err := NewPolicy(ctx, cfg.Game, ""); err != nil {
		return err
	}
	j := &job{cfg: cfg, out: stdout, log: stderr, start: time.Now()}
	j.st.busy.Store("")
	if !cfg.Game.Store {
		return j.runInMemory(ctx)
	}
	runIndex, err := j.open(ctx)
	if j.db != nil {
		defer j.db.Close()
	}
	if err != nil {
		return err
	}
	j.shards = make(chan string, 1<<16)
	j.merged = make(chan struct{})
	j.drained, j.quit = make(chan struct{}, 1), ctx.Done()
	go j.merger(context.WithoutCancel(ctx))
	if err := j.startWorkers(runIndex); err != nil {
		j.stopWorkers()
		j.wait(context.WithoutCancel(ctx))
		close(j.shards)
		<-j.merged
		return err
	}
	interrupted := j.wait(ctx)
	return j.finish(context.WithoutCancel(ctx), interrupted)
}

// open opens the database and the shard directory, records the run,
// merges what an earlier run left and says what the run is about to do.
// It returns the run's index.
func (j *job) open(ctx context.Context) (int, error) {
	cfg := j.cfg
	if dir := filepath.Dir(cfg.DB); cfg.DBGiven && !store.IsURL(cfg.DB) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, fmt.Errorf("create %s: %w", dir, err)
		}
	}
	// The database first: its writer lock keeps a second job away from
	// everything else (the shard directory included).
	db, err := store.OpenAt(ctx, cfg.DB, StoreConfig(cfg.Game.Rule))
	if err != nil {
		return 0, err
	}
	j.db, j.shardDir = db, ShardDir(cfg.DB)
	if err := os.MkdirAll(j.shardDir, 0o755); err != nil {
		return 0, fmt.Errorf("create shard directory: %w", err)
	}
	runIndex, err := j.record(ctx)
	if err != nil {
		return 0, err
	}
	if err := j.recover(ctx); err != nil {
		return 0, err
	}
	// Record the prune threshold for the merges, and expire what an
	// earlier run left old enough.
	if err := j.prune(ctx); err != nil {
		return 0, err
	}
	j.st.busy.Store("")
	st, err := db.Stats(ctx)
	if err != nil {
		return 0, err
	}
	j.before = st.Games
	fmt.Fprintf(j.log, "train run %d: %s, %s rule, %d workers, seed %d, %s (ocvist %s)\n",
		runIndex, cfg.DB, cfg.Game.Rule, cfg.Workers, cfg.Seed, j.limitText(), cfg.Version)
	if st.Games > 0 {
		fmt.Fprintf(j.log, "continuing: the database holds %d games\n", st.Games)
	}
	return runIndex, nil
}

// record saves the run's configuration and seed in the database and
// returns the run's index (1 for the first run on a database).
func (j *job) record(ctx context.Context) (int, error) {
	meta, err := j.db.Meta(ctx)
	if err != nil {
		return 0, err
	}
	n, _ := strconv.Atoi(meta["runs"])
	n++
	conf, _ := json.Marshal(j.cfg)
	err = j.db.SetMeta(ctx, map[string]string{
		"runs":                           strconv.Itoa(n),
		fmt.Sprintf("run.%d", n):         string(conf),
		fmt.Sprintf("run.%d.seed", n):    strconv.FormatUint(j.cfg.Seed, 10),
		fmt.Sprintf("run.%d.started", n): time.Now().UTC().Format(time.RFC3339),
	})
	return n, err
}

// recover merges shards published by an earlier run that stopped before
// merging them, and removes half-written ones.
func (j *job) recover(ctx context.Context) error {
	removed, err := store.CleanTemp(j.shardDir)
	if err != nil {
		return err
	}
	if len(removed) > 0 {
		fmt.Fprintf(j.log, "discarded %d unfinished shard(s) of an interrupted run\n", len(removed))
	}
	n, games, err := MergeWaiting(ctx, j.db, j.shardDir)
	if n > 0 {
		fmt.Fprintf(j.log, "merged %d shard(s) left by an earlier run: %d games\n", n, games)
	}
	return err
}

// MergeWaiting merges the shards waiting in dir and deletes each once it is
// in the ledger (a shard already merged before a crash is only deleted).
func MergeWaiting(ctx context.Context, db store.Store, dir string) (n int, games int64, err error) {
	left, err := store.ListShards(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, p := range left {
		res, err := db.Merge(ctx, p)
		if err != nil {
			return n, games, err
		}
		if err := os.Remove(p); err != nil {
			return n, games, fmt.Errorf("remove merged shard: %w", err)
		}
		n++
		games += res.Games
	}
	return n, games, nil
}

func (j *job) limitText() string {
	switch {
	case j.cfg.Games > 0 && j.cfg.Duration > 0:
		return fmt.Sprintf("%d games or %v", j.cfg.Games, j.cfg.Duration)
	case j.cfg.Games > 0:
		return fmt.Sprintf("%d games", j.cfg.Games)
	}
	return fmt.Sprintf("for %v", j.cfg.Duration)
}

// worker is one worker process as the coordinator sees it.
type worker struct {
	index  int
	cmd    *exec.Cmd
	played atomic.Int64 // games finished, as last reported (set by the reader)
	done   bool
	gate   io.Writer // the worker's stdin, for go-aheads (see job.admit)
	held   bool      // published a shard and waits for a go-ahead
}

// event is a line from a worker, or its exit.
type event struct {
	w      *worker
	line   string
	exited bool
	err    error
}

// startWorkers starts the worker processes (none for a worker whose share
// of -games is 0), each with a reader of its lines.
func (j *job) startWorkers(runIndex int) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	j.events = make(chan event, 64)
	for i := range j.cfg.Workers {
		games := j.gamesOf(i)
		if j.cfg.Games > 0 && games == 0 {
			continue
		}
		if err := j.startWorker(i, exec.Command(self, j.workerArgs(runIndex, i, games)...)); err != nil {
			return err
		}
	}
	return nil
}

// startWorker starts worker i's process with its pipes.
func (j *job) startWorker(i int, cmd *exec.Cmd) error {
	w := &worker{index: i, cmd: cmd, gate: io.Discard}
	if j.gated() {
		cmd.Args = append(cmd.Args, "-gate")
		var err error
		if w.gate, err = cmd.StdinPipe(); err != nil {
			return err
		}
	}
	cmd.Stderr = j.log
	cmd.SysProcAttr = workerProcAttr()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start worker %d: %w", i, err)
	}
	j.workers = append(j.workers, w)
	go j.read(w, stdout)
	return nil
}

// gamesOf is worker i's share of -games (0: no game limit).
func (j *job) gamesOf(i int) int {
	if j.cfg.Games == 0 {
		return 0
	}
	games := j.cfg.Games / j.cfg.Workers
	if i < j.cfg.Games%j.cfg.Workers {
		games++
	}
	return games
}

// workerArgs are the arguments of worker i's "worker" command.
func (j *job) workerArgs(runIndex, i, games int) []string {
	gameConf, _ := json.Marshal(j.cfg.Game)
	var deadline int64
	if j.cfg.Duration > 0 {
		deadline = j.start.Add(j.cfg.Duration).UnixNano()
	}
	args := []string{"worker", "-config", string(gameConf),
		"-seed", strconv.FormatUint(WorkerSeed(j.cfg.Seed, runIndex, i), 10),
		"-index", strconv.Itoa(i), "-games", strconv.Itoa(games),
		"-deadline", strconv.FormatInt(deadline, 10),
	}
	if j.db != nil {
		args = append(args, "-db", j.cfg.DB, "-dir", j.shardDir)
	}
	return args
}

// read forwards a worker's lines and then its exit to the coordinator;
// "played N" lines only update the worker's count.
func (j *job) read(w *worker, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "played "); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil {
				w.played.Store(v)
				continue
			}
		}
		j.events <- event{w: w, line: sc.Text()}
	}
	j.events <- event{w: w, exited: true, err: w.cmd.Wait()}
}

// stopWorkers asks every running worker to finish its game, publish and exit.
func (j *job) stopWorkers() {
	for _, w := range j.workers {
		if !w.done && w.cmd.Process != nil {
			w.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
}

// wait runs the coordinator's main loop until every worker has exited:
// it hands published shards to the merger and shows progress, which never
// waits for a merge. It reports whether the run was interrupted.
func (j *job) wait(ctx context.Context) (interrupted bool) {
	p := newProgress(j.log, j.cfg.Progress)
	tick := time.NewTicker(p.interval())
	defer tick.Stop()
	running := len(j.workers)
	done := ctx.Done()
	for running > 0 {
		select {
		case <-done:
			interrupted = true
			done = nil
			p.end()
			fmt.Fprintln(j.log, "stopping: workers finish their game and publish it")
			j.stopping = true
			j.throttle()
			j.stopWorkers()
		case ev := <-j.events:
			if ev.exited {
				running--
				j.exited(ev.w)
				if ev.err != nil {
					j.fail(fmt.Sprintf("worker %d: %v", ev.w.index, ev.err))
					p.end()
					fmt.Fprintf(j.log, "worker %d failed (%v); its unpublished games are lost\n", ev.w.index, ev.err)
				}
				continue
			}
			j.handle(ev)
		case <-j.drained:
			j.throttle()
		case <-tick.C:
			p.show(j.snapshot())
		}
	}
	j.playEnd = time.Now()
	p.show(j.snapshot())
	p.end()
	return interrupted
}

// handle acts on one line from a worker: "published PATH GAMES BYTES".
func (j *job) handle(ev event) {
	f := strings.Fields(ev.line)
	if len(f) == 4 && f[0] == "published" && j.shards != nil {
		games, _ := strconv.ParseInt(f[2], 10, 64)
		size, _ := strconv.ParseInt(f[3], 10, 64)
		peak(&j.st.peakShards, j.st.backlog.Add(1))
		j.st.backlogGames.Add(games)
		peak(&j.st.peakBacklog, j.st.backlogBytes.Add(size))
		j.shards <- f[1]
		j.admit(ev.w)
		return
	}
	fmt.Fprintf(j.log, "worker %d: unexpected line %q\n", ev.w.index, ev.line)
}

func peak(p *atomic.Int64, v int64) {
	for {
		old := p.Load()
		if v <= old || p.CompareAndSwap(old, v) {
			return
		}
	}
}

// merger merges published shards in order, deleting each once merged, and
// prunes whenever the young runs have grown enough (see pruneDue).
func (j *job) merger(ctx context.Context) {
	defer close(j.merged)
	for path := range j.shards {
		size := fileSize(path)
		j.st.busy.Store("merging")
		res, err := j.mergeRetrying(ctx, path)
		if err == nil {
			err = os.Remove(path)
		}
		j.st.backlog.Add(-1)
		j.st.backlogBytes.Add(-size)
		j.st.backlogGames.Add(-res.Games)
		select {
		case j.drained <- struct{}{}:
		default:
		}
		if err != nil {
			j.fail(err.Error())
			fmt.Fprintf(j.log, "merge failed, shard kept for the next run: %v\n", err)
			continue
		}
		j.st.merged.Add(res.Games)
		// Young runs expire as the games go by: pruning after each merge
		// costs nothing until one does, and keeps the disk bounded.
		if err := j.prune(ctx); err != nil {
			j.fail(err.Error())
		}
		j.st.busy.Store("")
	}
}

// mergeRetrying merges the shard at path; while the server is away
// (store.ErrServer) it keeps the shard on disk and retries with backoff,
// 1 s doubling to 30 s, saying so once per outage, until the merge goes
// through or ctx ends (the shard then waits for the next run).
func (j *job) mergeRetrying(ctx context.Context, path string) (store.MergeResult, error) {
	wait := time.Second
	for warned := false; ; {
		res, err := j.db.Merge(ctx, path)
		if !errors.Is(err, store.ErrServer) || ctx.Err() != nil {
			if warned && err == nil {
				fmt.Fprintf(j.log, "server back: merging the %d waiting shard(s)\n", j.st.backlog.Load())
			}
			return res, err
		}
		if !warned {
			fmt.Fprintf(j.log, "warning: %v\nthe workers keep playing; their shards wait in %s (%d now, %s; -backlog %s) and are merged when the server is back\n",
				err, j.shardDir, j.st.backlog.Load(), HumanBytes(j.st.backlogBytes.Load()), backlogText(j.cfg.Backlog))
			warned = true
		}
		j.st.busy.Store("waiting for the server")
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-j.quit: // interrupted: the shard waits for the next run
			return res, err
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// pruneBatch is how many due young runs the coordinator expires at once
// while the workers play (see store.PruneConfig.Batch); the final prune
// expires every due run.
const pruneBatch = 8

// serverPruneEvery spaces the prunes of a PostgreSQL store while the
// workers play: each is a round of transactions under the server's
// advisory lock, which coordinators on other machines share.
const serverPruneEvery = 2 * time.Minute

func (j *job) prune(ctx context.Context) error {
	if store.IsURL(j.cfg.DB) {
		if time.Since(j.lastPrune) < serverPruneEvery {
			return nil
		}
		j.lastPrune = time.Now()
	}
	j.st.busy.Store("pruning")
	c := j.cfg.Prune
	c.Batch = pruneBatch
	res, err := j.db.Prune(ctx, c)
	if err != nil {
		return err
	}
	j.st.positions.Store(res.Mature + res.Young)
	j.measureDisk()
	return nil
}

// measureDisk records the database's size on disk with its shards.
func (j *job) measureDisk() {
	n := j.st.backlogBytes.Load() // on a server, the shards waiting here
	if !store.IsURL(j.cfg.DB) {
		n += dirBytes(j.cfg.DB+".young") + fileSize(j.cfg.DB) + fileSize(j.cfg.DB+"-wal")
	}
	j.st.dbBytes.Store(n)
	peak(&j.st.peakDB, n)
}

// snapshot gathers what the progress line shows.
func (j *job) snapshot() progressState {
	var played int64
	for _, w := range j.workers {
		played += w.played.Load()
	}
	s := progressState{
		played: played, merged: j.st.merged.Load(), total: j.before + j.st.merged.Load(),
		backlog: j.st.backlog.Load(), backlogBytes: j.st.backlogBytes.Load(),
		positions: j.st.positions.Load(), dbBytes: j.st.dbBytes.Load(),
		elapsed: time.Since(j.start), busy: j.st.busy.Load().(string), stored: j.db != nil,
	}
	if j.cfg.Games > 0 {
		s.target = int64(j.cfg.Games)
	}
	if j.cfg.Duration > 0 {
		s.deadline = j.cfg.Duration
	}
	return s
}

// finish merges what is left, prunes and concludes, and prints the
// summary. A stopped or failed run prunes too: pruning does not depend on
// when it runs, and it keeps the database bounded.
func (j *job) finish(ctx context.Context, interrupted bool) error {
	if n := j.st.backlog.Load(); n > 0 {
		fmt.Fprintf(j.log, "merging the %d shard(s) still waiting (%s)\n", n, HumanBytes(j.st.backlogBytes.Load()))
	}
	close(j.shards)
	<-j.merged
	// Shards the merger could not take (it reported why) wait for the
	// next run; temporary ones are of dead workers.
	if _, err := store.CleanTemp(j.shardDir); err != nil {
		return err
	}
	fmt.Fprintf(j.log, "pruning: expiring young runs older than %d games (positions below %d games in them are dropped); then concluding\n",
		j.cfg.Prune.Age, j.cfg.Prune.MinGames)
	res, err := j.db.Prune(ctx, j.cfg.Prune)
	if err != nil {
		return err
	}
	fmt.Fprintf(j.log, "pruned: %d young run(s) expired, %d positions dropped (%d blacklisted moves kept); %d promoted positions, %d young in %d run(s)\n",
		res.Runs, res.Positions, res.Blacklisted, res.Mature, res.Young, res.YoungRuns)
	n, err := j.db.Conclude(ctx, j.cfg.Conclude)
	if err != nil {
		return err
	}
	fmt.Fprintf(j.log, "concluded: %d moves newly blacklisted\n", n)
	if err := j.db.Checkpoint(ctx); err != nil {
		return err
	}
	j.measureDisk()
	j.summary(res)
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case len(j.failed) > 0:
		return fmt.Errorf("%d problem(s), everything finished was merged: %s", len(j.failed), strings.Join(j.failed, "; "))
	case interrupted:
		fmt.Fprintln(j.out, "stopped: finished games are merged; run again to continue")
	}
	return nil
}

// summary prints the run's figures: games, both rates, the database (as
// the final prune left it; "train stats" counts everything), and the peaks
// of a long run.
func (j *job) summary(pr store.PruneResult) {
	el := time.Since(j.start)
	played := j.snapshot().played
	play := j.playEnd.Sub(j.start)
	games := j.st.merged.Load()
	fmt.Fprintf(j.out, "games this run %d: self-play %.0f games/s while the workers played (%s), end-to-end %.0f games/s over the whole %s\n",
		games, rate(played, play), play.Round(time.Second), rate(games, el), el.Round(time.Second))
	fmt.Fprintf(j.out, "database %s: %d games, %d positions (%d promoted, %d young in %d runs), %s\n",
		j.cfg.DB, j.before+games, pr.Mature+pr.Young, pr.Mature, pr.Young, pr.YoungRuns, HumanBytes(j.st.dbBytes.Load()))
	self, children := peakRSS()
	fmt.Fprintf(j.out, "peaks: database with shards %s, shard backlog %s (%d shards at most), memory %s coordinator, %s largest worker; %s after the workers stopped\n",
		HumanBytes(j.st.peakDB.Load()), HumanBytes(j.st.peakBacklog.Load()), j.st.peakShards.Load(), HumanBytes(self), HumanBytes(children),
		time.Since(j.playEnd).Round(100*time.Millisecond))
	fmt.Fprint(j.out, j.backlogSummary())
	cpuSelf, cpuWorkers := cpuTimes()
	if cpuWorkers > 0 {
		fmt.Fprintf(j.out, "cpu: coordinator %s (merge, prune), workers %s (self-play and shards): the coordinator used %.1f%% of the job's cpu\n",
			cpuSelf.Round(100*time.Millisecond), cpuWorkers.Round(100*time.Millisecond), 100*cpuSelf.Seconds()/(cpuSelf+cpuWorkers).Seconds())
	}
}

// runInMemory runs the workers with storing off and prints their rate.
func (j *job) runInMemory(ctx context.Context) error {
	fmt.Fprintf(j.log, "train run (storing off): %d workers, seed %d, %s (ocvist %s)\n",
		j.cfg.Workers, j.cfg.Seed, j.limitText(), j.cfg.Version)
	if err := j.startWorkers(1); err != nil {
		j.stopWorkers()
		j.wait(context.WithoutCancel(ctx))
		return err
	}
	j.wait(ctx)
	played := j.snapshot().played
	el := time.Since(j.start)
	fmt.Fprintf(j.out, "storing off: %d games, self-play %.0f games/s while the workers played (%s), %.0f games/s over the whole %s\n",
		played, rate(played, j.playEnd.Sub(j.start)), j.playEnd.Sub(j.start).Round(time.Second), rate(played, el), el.Round(time.Second))
	if len(j.failed) > 0 {
		return errors.New(strings.Join(j.failed, "; "))
	}
	return nil
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// workerSeed derives a worker's seed from the run's seed, the run's index
// in the database and the worker's index (the SplitMix64 finaliser), so
// that resumed runs and different workers never replay the same games.
func WorkerSeed(seed uint64, run, index int) uint64 {
	return splitmix.Mix(seed + uint64(run)*splitmix.Golden + uint64(index+1)*0xbf58476d1ce4e5b9)
}

func fileSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return 0
}

func dirBytes(dir string) int64 {
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}
