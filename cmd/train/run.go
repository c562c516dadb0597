package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"ocvist/internal/splitmix"
	"ocvist/store"
)

const runAbout = `
Play self-play games on all cores into a database, then prune and conclude.

Each worker is a separate process that plays games, aggregates them in memory
and publishes them as its own shard file every -shard-games games or
-flush-every; the coordinator merges shards as they come. Run it again on the
same database to continue: shards left by an interrupted run are merged once
(a ledger makes merging idempotent), and half-written ones are discarded.
Ctrl-C or SIGTERM stops the workers, merges everything they finished and
exits 0; prune and conclude run only when a run completes.

With -generations G it runs the learning loop G times: self-play with the
current policy (-games or -duration per generation), merge, prune,
conclude, fit a forest on the whole database, play a gate match of the new
model against the previous policy, and record the generation (see "train
stats"). A model that scores under 50% is recorded but not used.`

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultRunConfig()
	fc, gate := defaultFitConfig(), defaultGateConfig()
	fs := newFlags("run", "[flags]", runAbout, stderr)
	cfg.register(fs)
	gens := fs.Int("generations", 0, "learning-loop generations: self-play, fit, gate match, record (0: self-play only)")
	fc.register(fs)
	gate.register(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := cfg.validate(flagSet(fs, "duration")); err != nil {
		return usageError{err.Error()}
	}
	if !flagSet(fs, "seed") {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	if *gens < 0 {
		return usageError{fmt.Sprintf("-generations %d is negative", *gens)}
	}
	if *gens == 0 {
		return runJob(ctx, cfg, stdout, stderr)
	}
	if err := fc.validate(); err != nil {
		return usageError{err.Error()}
	}
	if err := gate.validate(); err != nil {
		return usageError{err.Error()}
	}
	return runGenerations(ctx, cfg, *gens, fc, gate, stdout, stderr)
}

// job is one "train run" in progress: the coordinator's state.
type job struct {
	cfg      runConfig
	db       *store.DB
	shardDir string
	out, log io.Writer
	start    time.Time
	games    int64 // games merged by this run
	before   int64 // games in the database when the run started
	workers  []*worker
	events   chan event
	// positions is the database's position count, refreshed at most once
	// a minute (counting scans the moves table).
	positions int64
	counted   time.Time
	prunedAt  int64 // games merged when the database was last pruned
	failed    []string
}

func runJob(ctx context.Context, cfg runConfig, stdout, stderr io.Writer) error {
	// Read the openings and the model here, so that a bad file is one
	// error line before anything starts, not a failure in every worker.
	if _, err := newGameConfig(cfg.Game); err != nil {
		return err
	}
	if _, err := newPolicy(ctx, cfg.Game, ""); err != nil {
		return err
	}
	if dir := filepath.Dir(cfg.DB); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	db, err := store.Open(cfg.DB, storeConfig(cfg.Game.Rule))
	if err != nil {
		return err
	}
	defer db.Close()
	j := &job{cfg: cfg, db: db, shardDir: cfg.DB + ".shards", out: stdout, log: stderr, start: time.Now()}
	if err := os.MkdirAll(j.shardDir, 0o755); err != nil {
		return fmt.Errorf("create shard directory: %w", err)
	}
	runIndex, err := j.record(ctx)
	if err != nil {
		return err
	}
	if err := j.recover(ctx); err != nil {
		return err
	}
	st, err := db.Stats(ctx)
	if err != nil {
		return err
	}
	j.before = st.Games
	fmt.Fprintf(stderr, "train run %d: %s, %s rule, %d workers, seed %d, %s (ocvist %s)\n",
		runIndex, cfg.DB, cfg.Game.Rule, cfg.Workers, cfg.Seed, j.limitText(), version)
	if st.Games > 0 {
		fmt.Fprintf(stderr, "continuing: the database holds %d games\n", st.Games)
	}
	if err := j.startWorkers(ctx, runIndex); err != nil {
		j.stopWorkers()
		j.wait(context.WithoutCancel(ctx))
		return err
	}
	interrupted := j.wait(ctx)
	return j.finish(context.WithoutCancel(ctx), interrupted)
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
	left, err := store.ListShards(j.shardDir)
	if err != nil {
		return err
	}
	for _, p := range left {
		res, err := j.mergeShard(ctx, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(j.log, "recovered shard %s: %d games\n", filepath.Base(p), res.Games)
	}
	j.games = 0 // recovered games belong to the earlier run
	return nil
}

// mergeShard merges one published shard and deletes it. A shard already in
// the ledger (merged before a crash, not yet deleted) is only deleted.
func (j *job) mergeShard(ctx context.Context, path string) (store.MergeResult, error) {
	res, err := j.db.Merge(ctx, path)
	if err != nil {
		return res, err
	}
	if !res.AlreadyMerged {
		j.games += res.Games
	}
	if err := os.Remove(path); err != nil {
		return res, fmt.Errorf("remove merged shard: %w", err)
	}
	return res, nil
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
	err    error
}

// event is a line from a worker, or its exit.
type event struct {
	w      *worker
	line   string
	exited bool
	err    error
}

func (j *job) startWorkers(ctx context.Context, runIndex int) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	gameConf, _ := json.Marshal(j.cfg.Game)
	var deadline int64
	if j.cfg.Duration > 0 {
		deadline = j.start.Add(j.cfg.Duration).UnixNano()
	}
	j.events = make(chan event, 64)
	for i := range j.cfg.Workers {
		games := 0
		if j.cfg.Games > 0 {
			games = j.cfg.Games / j.cfg.Workers
			if i < j.cfg.Games%j.cfg.Workers {
				games++
			}
			if games == 0 {
				continue
			}
		}
		args := []string{"worker",
			"-db", j.cfg.DB, "-dir", j.shardDir, "-config", string(gameConf),
			"-seed", strconv.FormatUint(workerSeed(j.cfg.Seed, runIndex, i), 10),
			"-index", strconv.Itoa(i), "-games", strconv.Itoa(games),
			"-deadline", strconv.FormatInt(deadline, 10),
		}
		cmd := exec.Command(self, args...)
		cmd.Stderr = j.log
		cmd.SysProcAttr = workerProcAttr()
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start worker %d: %w", i, err)
		}
		w := &worker{index: i, cmd: cmd}
		j.workers = append(j.workers, w)
		go j.read(w, stdout)
	}
	return nil
}

// read forwards a worker's lines and then its exit to the coordinator;
// "played N" lines only update the worker's count, so a coordinator busy
// merging never holds a worker up nor shows stale progress.
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

// wait runs the coordinator until every worker has exited: it merges
// shards as they are published and shows progress. It reports whether the
// run was interrupted.
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
			fmt.Fprintln(j.log, "\nstopping: workers finish their game and publish it")
			j.stopWorkers()
		case ev := <-j.events:
			if ev.exited {
				running--
				ev.w.done = true
				if ev.err != nil {
					j.failed = append(j.failed, fmt.Sprintf("worker %d: %v", ev.w.index, ev.err))
					fmt.Fprintf(j.log, "\nworker %d failed (%v); its unpublished games are lost\n", ev.w.index, ev.err)
				}
				continue
			}
			j.handle(ctx, ev)
		case <-tick.C:
			p.show(j.snapshot(ctx))
		}
	}
	p.show(j.snapshot(ctx))
	p.end()
	return interrupted
}

// handle acts on one line from a worker: "published PATH N".
func (j *job) handle(ctx context.Context, ev event) {
	f := strings.Fields(ev.line)
	switch {
	case len(f) == 3 && f[0] == "published":
		ctx := context.WithoutCancel(ctx)
		if _, err := j.mergeShard(ctx, f[1]); err != nil {
			j.failed = append(j.failed, err.Error())
			fmt.Fprintf(j.log, "\nmerge failed, shard kept for the next run: %v\n", err)
			return
		}
		if err := j.prunePeriodically(ctx); err != nil {
			j.failed = append(j.failed, err.Error())
		}
	default:
		fmt.Fprintf(j.log, "\nworker %d: unexpected line %q\n", ev.w.index, ev.line)
	}
}

// prunePeriodically prunes the merged database each time -prune-every more
// games have been merged: positions still seen in a single game are nearly
// all unique deep positions, and keeping them makes every later merge touch
// a larger file.
func (j *job) prunePeriodically(ctx context.Context) error {
	if j.cfg.PruneEvery == 0 || j.cfg.PruneMin == 0 || j.games-j.prunedAt < j.cfg.PruneEvery {
		return nil
	}
	j.prunedAt = j.games
	res, err := j.db.Prune(ctx, j.cfg.PruneMin)
	if err != nil {
		return err
	}
	if err := j.db.Checkpoint(ctx); err != nil {
		return err
	}
	fmt.Fprintf(j.log, "pruned %d positions seen in fewer than %d games (after %d games merged)\n", res.Positions, j.cfg.PruneMin, j.games)
	return nil
}

// snapshot gathers what the progress line shows.
func (j *job) snapshot(ctx context.Context) progressState {
	var played int64
	for _, w := range j.workers {
		played += w.played.Load()
	}
	if time.Since(j.counted) >= time.Minute {
		if st, err := j.db.Stats(ctx); err == nil {
			j.positions = st.Positions
		}
		j.counted = time.Now()
	}
	s := progressState{
		played: played, merged: j.games, total: j.before + j.games, positions: j.positions,
		elapsed: time.Since(j.start), dbBytes: fileBytes(j.cfg.DB),
	}
	if j.cfg.Games > 0 {
		s.target = int64(j.cfg.Games)
	}
	if j.cfg.Duration > 0 {
		s.deadline = j.cfg.Duration
	}
	return s
}

// finish merges what is left, prunes and concludes a completed run, and
// prints the summary.
func (j *job) finish(ctx context.Context, interrupted bool) error {
	if left, err := store.ListShards(j.shardDir); err == nil {
		for _, p := range left {
			if _, err := j.mergeShard(ctx, p); err != nil {
				j.failed = append(j.failed, err.Error())
			}
		}
	}
	if _, err := store.CleanTemp(j.shardDir); err != nil {
		return err
	}
	complete := !interrupted && len(j.failed) == 0
	if complete {
		if j.cfg.PruneMin > 0 {
			res, err := j.db.Prune(ctx, j.cfg.PruneMin)
			if err != nil {
				return err
			}
			fmt.Fprintf(j.log, "pruned %d positions and %d moves seen in fewer than %d games\n", res.Positions, res.Moves, j.cfg.PruneMin)
		}
		n, err := j.db.Conclude(ctx, j.cfg.Conclude)
		if err != nil {
			return err
		}
		fmt.Fprintf(j.log, "concluded: %d moves newly blacklisted\n", n)
	}
	// A completed run vacuums (pruning frees most pages); an interrupted
	// one only checkpoints, to stop quickly.
	tidy := j.db.Checkpoint
	if complete {
		tidy = j.db.Vacuum
	}
	if err := tidy(ctx); err != nil {
		return err
	}
	st, err := j.db.Stats(ctx)
	if err != nil {
		return err
	}
	el := time.Since(j.start)
	fmt.Fprintf(j.out, "games this run %d (%.0f/s over %s); database %s: %d games, %d positions, %d moves, %d blacklisted, %s\n",
		j.games, float64(j.games)/el.Seconds(), el.Round(time.Second), j.cfg.DB,
		st.Games, st.Positions, st.Moves, st.Blacklisted, humanBytes(fileBytes(j.cfg.DB)))
	switch {
	case len(j.failed) > 0:
		return fmt.Errorf("%d problem(s), everything finished was merged: %s", len(j.failed), strings.Join(j.failed, "; "))
	case interrupted:
		fmt.Fprintln(j.out, "interrupted: finished games are merged; run again to continue")
	}
	return nil
}

// workerSeed derives a worker's seed from the run's seed, the run's index
// in the database and the worker's index (the SplitMix64 finaliser), so
// that resumed runs and different workers never replay the same games.
func workerSeed(seed uint64, run, index int) uint64 {
	return splitmix.Mix(seed + uint64(run)*splitmix.Golden + uint64(index+1)*0xbf58476d1ce4e5b9)
}

func fileBytes(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}
