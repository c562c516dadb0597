package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"ocvist/internal/splitmix"
	"ocvist/internal/stop"
	"ocvist/store"
	"ocvist/store/backend"
	"ocvist/store/shard"
)

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
	j.kind = selfPlay{j}
	j.st.busy.Store("")
	j.st.positions.Store(-1)
	if !cfg.Game.Store {
		return j.runInMemory(ctx)
	}
	runIndex, err := j.open(ctx)
	defer j.close()
	if err != nil {
		return err
	}
	j.startMerger(ctx)
	if err := j.startWorkers(runIndex); err != nil {
		j.stopWorkers()
		j.wait(stop.Next(ctx))
		close(j.shards)
		<-j.merged
		return err
	}
	interrupted := j.wait(ctx)
	// Finishing (merging what is left, pruning, concluding) is cut short
	// by the next stop: the first, or after a stop the second.
	fctx := ctx
	if interrupted {
		fctx = stop.Next(ctx)
	}
	return j.finish(fctx, interrupted)
}

// selfPlay is the kind of a "train run" job: self-play workers that wait
// for a go-ahead after each shard when the backlog is bounded; each merge
// is followed by a prune (which does nothing until young runs are due).
type selfPlay struct{ j *job }

func (selfPlay) line(*worker, string) bool { return false }

func (k selfPlay) published(w *worker) {
	if k.j.gated() {
		k.j.admit(w)
	}
}

func (selfPlay) proceed(w *worker) { w.goAhead() }

// merged counts the games, measures the disk and prunes: young runs
// expire as the games go by, so pruning after each merge costs nothing
// until one does, and keeps the disk bounded. The prunes while the
// workers play end with ctx: the final prune does their work.
func (k selfPlay) merged(ctx context.Context, res store.MergeResult) {
	j := k.j
	j.st.merged.Add(res.Games)
	j.measureDisk(stop.Next(ctx))
	j.prune(ctx)
}

func (selfPlay) progress(*progressState) {}

// close releases what open took.
func (j *job) close() {
	if j.dir != nil {
		j.dir.release()
	}
	if j.db != nil {
		j.db.Close()
	}
}

// open opens the database and the job's shard folder, records the run,
// merges what earlier runs left and says what the run is about to do. It
// returns the run's index. A server that cannot be reached at the first
// connection ends the run (a wrong address should not hang); one that goes
// away later in the start-up is waited for, as during the run. Each step
// that can take long says what it does; the summary says how long the
// start-up took (a -duration counts the time the workers play).
func (j *job) open(ctx context.Context) (int, error) {
	cfg := j.cfg
	if backend.IsURL(cfg.DB) {
		fmt.Fprintf(j.log, "connecting to %s\n", backend.Redact(cfg.DB))
	}
	// The database first: its writer lock keeps a second job away from
	// everything else.
	db, err := backend.OpenAt(ctx, cfg.DB, store.DefaultConfig(cfg.Game.Rule))
	if err != nil {
		return 0, err
	}
	j.db = db
	if j.dir, err = claimJobDir(ShardDir(cfg.DB)); err != nil {
		return 0, err
	}
	j.shardDir = j.dir.path
	if j.cfg.Backlog == BacklogAuto {
		free := freeBytes(j.shardDir)
		j.cfg.Backlog = backlogBound(BacklogAuto, free)
		if free >= 0 && free < 4<<30 {
			fmt.Fprintf(j.log, "%s free on the disk of %s: shards waiting to be merged are bounded at %s (-backlog)\n",
				HumanBytes(free), j.shardDir, HumanBytes(int64(j.cfg.Backlog)))
		}
	}
	var runIndex int
	var t store.Totals
	for _, step := range []func() error{
		func() (err error) { runIndex, err = j.record(ctx); return err },
		func() error { return j.recover(ctx) },
		func() error { return j.recordThreshold(ctx) },
		func() (err error) { t, err = db.Totals(ctx); return err },
	} {
		if err := j.untilServer(ctx, step); err != nil {
			return 0, err
		}
	}
	j.before = t.Games
	j.st.dbBytes.Store(t.Bytes)
	fmt.Fprintf(j.log, "train run %d: %s, %s rule, %d workers, seed %d, %s (ocvist %s)\n",
		runIndex, db.Path(), cfg.Game.Rule, cfg.Workers, cfg.Seed, j.limitText(), cfg.Version)
	if t.Games > 0 {
		fmt.Fprintf(j.log, "continuing: the database holds %d games\n", t.Games)
	}
	return runIndex, nil
}

// record saves the run's configuration and seed in the database and
// returns the run's index (1 for the first run on a database).
func (j *job) record(ctx context.Context) (int, error) {
	conf, _ := json.Marshal(j.cfg)
	return j.db.RecordRun(ctx, func(n int) map[string]string {
		return map[string]string{
			fmt.Sprintf("run.%d", n):         string(conf),
			fmt.Sprintf("run.%d.seed", n):    strconv.FormatUint(j.cfg.Seed, 10),
			fmt.Sprintf("run.%d.started", n): time.Now().UTC().Format(time.RFC3339),
		}
	})
}

// recover merges shards published by an earlier run that stopped before
// merging them, and removes half-written ones.
func (j *job) recover(ctx context.Context) error {
	a, err := AdoptShards(ctx, j.db, ShardDir(j.cfg.DB))
	ReportAdopted(j.log, a)
	return err
}

// ReportAdopted says what AdoptShards did, if anything.
func ReportAdopted(w io.Writer, a Adopted) {
	if a.Discarded > 0 {
		fmt.Fprintf(w, "discarded %d unfinished shard(s) of an interrupted run\n", a.Discarded)
	}
	switch {
	case a.Shards > 0 && a.Teacher > 0:
		fmt.Fprintf(w, "merged %d shard(s) left by an earlier run: %d games, %d teacher games\n", a.Shards, a.Games, a.Teacher)
	case a.Shards > 0:
		fmt.Fprintf(w, "merged %d shard(s) left by an earlier run: %d games\n", a.Shards, a.Games)
	}
}

// MergeWaiting merges the shards waiting in dir and deletes each once it is
// in the ledger (a shard already merged before a crash is only deleted). It
// returns how many it merged, with their games and teacher games.
func MergeWaiting(ctx context.Context, db store.Store, dir string) (n int, games, teacher int64, err error) {
	left, err := shard.ListShards(dir)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, p := range left {
		res, err := db.Merge(ctx, p)
		if err != nil {
			return n, games, teacher, err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, games, teacher, fmt.Errorf("remove merged shard: %w", err)
		}
		n++
		games += res.Games
		teacher += res.TeacherGames
	}
	return n, games, teacher, nil
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

// startWorkers starts the worker processes (none for a worker whose share
// of -games is 0), each with a reader of its lines.
func (j *job) startWorkers(runIndex int) error {
	j.events = make(chan event, 64)
	for i := range j.cfg.Workers {
		games := j.gamesOf(i)
		if j.cfg.Games > 0 && games == 0 {
			continue
		}
		args := j.workerArgs(runIndex, i, games)
		if j.gated() {
			args = append(args, "-gate")
		}
		if err := j.startWorker(i, args, j.gated()); err != nil {
			return err
		}
	}
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
	args := []string{"worker", "-config", string(gameConf),
		"-seed", strconv.FormatUint(WorkerSeed(j.cfg.Seed, runIndex, i), 10),
		"-index", strconv.Itoa(i), "-games", strconv.Itoa(games),
		"-duration", j.cfg.Duration.String(),
	}
	if j.db != nil {
		args = append(args, "-db", j.cfg.DB, "-dir", j.shardDir)
	}
	return args
}

// pruneBatch is how many due young runs the coordinator expires at once
// while the workers play (see store.PruneConfig.Batch); the final prune
// expires every due run.
const pruneBatch = 8

// prune expires the due young runs while the workers play (ctx, the
// run's: a stop ends it; the final prune does its work). A SQLite store
// prunes in the merger, after each merge (one writer; it costs nothing
// until runs are due). A PostgreSQL store prunes at most every
// Config.PruneEvery, on a goroutine of its own beside the merges (merges
// need no lock; prunes of every coordinator take turns on the server's),
// without counting the positions after (that reads the tables whole).
func (j *job) prune(ctx context.Context) {
	c := j.cfg.Prune
	c.Batch = pruneBatch
	if !backend.IsURL(j.cfg.DB) {
		j.st.busy.Store("pruning")
		c.Progress = func(p store.PruneProgress) { j.st.busy.Store(pruneText(p)) }
		j.pruned(ctx, c)
		return
	}
	if j.pruneDone != nil {
		select {
		case <-j.pruneDone:
		default:
			return // one at a time
		}
	}
	if time.Since(j.lastPrune) < j.cfg.PruneEvery {
		return
	}
	j.lastPrune = time.Now()
	j.pruneDone = make(chan struct{})
	c.SkipCounts = true
	c.Progress = func(p store.PruneProgress) { j.st.pruning.Store(pruneText(p)) }
	go func() {
		defer close(j.pruneDone)
		j.pruned(ctx, c)
		j.st.pruning.Store("")
	}()
}

// pruned runs one prune of the run and records or reports its outcome.
// One that fails for a server gone away is done by the next.
func (j *job) pruned(ctx context.Context, c store.PruneConfig) {
	res, err := j.db.Prune(ctx, c)
	switch {
	case err == nil:
		if res.Mature >= 0 {
			j.st.positions.Store(res.Mature + res.Young)
		}
		j.measureDisk(ctx)
	case ctx.Err() != nil:
	case errors.Is(err, store.ErrServer):
		fmt.Fprintf(j.log, "warning: a prune stopped, the server went away (the next prune does its work): %v\n", err)
	default:
		j.fail(err.Error())
		fmt.Fprintf(j.log, "prune failed: %v\n", err)
	}
}

// recordThreshold records the prune threshold for the merges of a SQLite
// store (which promote as they merge) without expiring anything: expiring
// waits for the first merge, so that a run stopped before it merged
// anything leaves the database as it was. A PostgreSQL store promotes at
// expiry only.
func (j *job) recordThreshold(ctx context.Context) error {
	if backend.IsURL(j.cfg.DB) {
		return nil
	}
	c := j.cfg.Prune
	c.Batch = math.MaxInt
	res, err := j.db.Prune(ctx, c)
	if err == nil {
		j.st.positions.Store(res.Mature + res.Young)
	}
	return err
}

// pruneText says how far a prune is, for the progress line.
func pruneText(p store.PruneProgress) string {
	switch {
	case p.Counting:
		return "pruning: counting positions"
	case p.Batches > 1:
		return fmt.Sprintf("pruning: batch %d of %d (%d of %d rows)", p.Batch, p.Batches, p.Rows, p.TotalRows)
	}
	return "pruning"
}

// measureDisk records the database's size on disk (a server's database)
// with the shards waiting here.
func (j *job) measureDisk(ctx context.Context) {
	n := j.st.backlogBytes.Load()
	if t, err := j.db.Totals(ctx); err == nil {
		n += t.Bytes
	}
	j.st.dbBytes.Store(n)
	peak(&j.st.peakDB, n)
}

// finish merges what is left, prunes and concludes, and prints the
// summary. A stopped or failed run prunes too: pruning does not depend on
// when it runs, and it keeps the database bounded; a run that merged
// nothing leaves the database as it was. ctx cuts finishing short: the
// shards not merged wait in the job's folder for the next run, a prune
// stops after its current batch's statement (the batches before it stay
// done), and the run ends as stopped (nil).
func (j *job) finish(ctx context.Context, interrupted bool) error {
	if n := j.st.backlog.Load(); n > 0 {
		fmt.Fprintf(j.log, "merging the %d shard(s) still waiting (%s)\n", n, HumanBytes(j.st.backlogBytes.Load()))
	}
	close(j.shards)
	select {
	case <-j.merged:
	case <-ctx.Done():
		close(j.abandon)
		<-j.merged
	}
	// Shards the merger could not take (it reported why) wait for the
	// next run; temporary ones are of dead workers.
	if _, err := shard.CleanTemp(j.shardDir); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return j.cutShort()
	}
	var res store.PruneResult
	if j.st.merged.Load() > 0 {
		var err error
		if res, err = j.finalPrune(ctx); err != nil {
			if ctx.Err() != nil {
				return j.cutShort()
			}
			return err
		}
	} else {
		fmt.Fprintln(j.log, "no games merged: the database is left as it was (no prune, no conclude)")
	}
	if err := j.db.Checkpoint(ctx); err != nil {
		return err
	}
	j.measureDisk(ctx)
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

// finalPrune prunes every due run and concludes, saying how far it is.
func (j *job) finalPrune(ctx context.Context) (store.PruneResult, error) {
	fmt.Fprintf(j.log, "pruning: expiring young runs older than %d games (positions below %d games in them are dropped); then concluding\n",
		j.cfg.Prune.Age, j.cfg.Prune.MinGames)
	c := j.cfg.Prune
	c.Progress = func(p store.PruneProgress) {
		if p.Batches > 1 && !p.Counting {
			fmt.Fprintln(j.log, pruneText(p))
		}
	}
	res, err := j.db.Prune(ctx, c)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(j.log, "pruned: %d young run(s) expired, %d positions dropped (%d blacklisted moves kept); %d promoted positions, %d young in %d run(s)\n",
		res.Runs, res.Positions, res.Blacklisted, res.Mature, res.Young, res.YoungRuns)
	n, err := j.db.Conclude(ctx, j.cfg.Conclude)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(j.log, "concluded: %d moves newly blacklisted\n", n)
	return res, nil
}

// cutShort ends a run whose finishing a stop cut short.
func (j *job) cutShort() error {
	waiting, _ := shard.ListShards(j.shardDir)
	fmt.Fprintf(j.out, "stopped while finishing: %d games merged this run; %d shard(s) wait in %s and pruning waits for the next run or train prune\n",
		j.st.merged.Load(), len(waiting), j.shardDir)
	return nil
}

// summary prints the run's figures: games, both rates, the database (as
// the final prune left it; "train stats" counts everything), the time
// start-up, play and finishing took, and the peaks of a long run.
func (j *job) summary(pr store.PruneResult) {
	el := time.Since(j.start)
	played := j.snapshot().played
	play := j.playTime()
	games := j.st.merged.Load()
	fmt.Fprintf(j.out, "games this run %d: self-play %.0f games/s while the workers played (%s), end-to-end %.0f games/s over the whole %s\n",
		games, rate(played, play), play.Round(100*time.Millisecond), rate(games, el), el.Round(time.Second))
	fmt.Fprintf(j.out, "time: start-up %s (opening the database, merging what an earlier run left, the workers loading the blacklist), play %s, finishing %s (merging, pruning, concluding)\n",
		j.startup().Round(100*time.Millisecond), play.Round(100*time.Millisecond), time.Since(j.playEnd).Round(100*time.Millisecond))
	if pr != (store.PruneResult{}) {
		fmt.Fprintf(j.out, "database %s: %d games, %d positions (%d promoted, %d young in %d runs), %s\n",
			j.cfg.DB, j.before+games, pr.Mature+pr.Young, pr.Mature, pr.Young, pr.YoungRuns, HumanBytes(j.st.dbBytes.Load()))
	}
	self, children := peakRSS()
	fmt.Fprintf(j.out, "peaks: database with shards %s, shard backlog %s (%d shards at most), memory %s coordinator, %s largest worker\n",
		HumanBytes(j.st.peakDB.Load()), HumanBytes(j.st.peakBacklog.Load()), j.st.peakShards.Load(), HumanBytes(self), HumanBytes(children))
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
		j.wait(stop.Next(ctx))
		return err
	}
	j.wait(ctx)
	played := j.snapshot().played
	el := time.Since(j.start)
	fmt.Fprintf(j.out, "storing off: %d games, self-play %.0f games/s while the workers played (%s), %.0f games/s over the whole %s\n",
		played, rate(played, j.playTime()), j.playTime().Round(100*time.Millisecond), rate(played, el), el.Round(time.Second))
	if len(j.failed) > 0 {
		return errors.New(strings.Join(j.failed, "; "))
	}
	return nil
}

// workerSeed derives a worker's seed from the run's seed, the run's index
// in the database and the worker's index (the SplitMix64 finaliser), so
// that resumed runs and different workers never replay the same games.
func WorkerSeed(seed uint64, run, index int) uint64 {
	return splitmix.Mix(seed + uint64(run)*splitmix.Golden + uint64(index+1)*0xbf58476d1ce4e5b9)
}
