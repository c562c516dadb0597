package coordinator

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"ocvist/internal/stop"
	"ocvist/store"
)

// job is a coordinator's work in progress: worker processes that publish
// sealed shards into the job's own folder, a merger that merges each of
// them once, the backlog bound, the progress line, stopping. Its kind says
// what the workers play: self-play games for "train run" (Run) or a
// generation's teacher games for the learning loop (PlayTeacher). The
// coordinator's goroutines: the main loop (signals, worker events, the
// progress line), one reader per worker, and the merger, which alone uses
// the database while the workers run.
type job struct {
	kind      kind
	lastPrune time.Time     // of a PostgreSQL store (see Config.PruneEvery)
	pruneDone chan struct{} // closed when its prune beside the merges is done
	cfg       Config        // a teacher job's: Workers, Backlog, Progress and DB
	db        store.Store
	dir       *jobDir // the job's own shard folder
	shardDir  string  // its path
	out, log  io.Writer
	start     time.Time
	before    int64 // games in the database when the run started
	workers   []*worker
	events    chan event
	shards    chan string // published shards, in order, for the merger
	merged    chan struct{}
	st        jobStats
	playStart time.Time // when the first worker began to play
	playEnd   time.Time // when the last worker exited
	ready     int       // workers that have begun to play
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
	// abandon, closed when the finishing merges are cut short by a stop:
	// the merger leaves the shards still waiting for the next run.
	abandon chan struct{}
}

// kind is what sets a job's workers apart: what they play and how they
// are told to go on. Its methods run in the job's goroutines: line,
// published and proceed in the main loop, merged in the merger.
type kind interface {
	// line handles a line of worker w other than "playing" and
	// "published …"; false: not one the kind knows.
	line(w *worker, line string) bool
	// published follows w's announcement of a shard.
	published(w *worker)
	// proceed lets w go on; the backlog bound decides when (admit,
	// throttle).
	proceed(w *worker)
	// merged follows the merge of a shard (its result).
	merged(ctx context.Context, res store.MergeResult)
	// progress completes the progress line's state.
	progress(s *progressState)
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
	duplicates   atomic.Int64 // teacher games merged before (see store.MergeResult)
	busy         atomic.Value // what the merger is doing, for the progress line
	pruning      atomic.Value // how far a PostgreSQL prune beside the merges is ("" none)
}

func (j *job) fail(msg string) {
	j.mu.Lock()
	j.failed = append(j.failed, msg)
	j.mu.Unlock()
}

// untilServer runs step, and again while it fails because the server is
// away (store.ErrServer), 1 s doubling to 30 s apart, saying so once,
// until it succeeds, fails otherwise or ctx ends. Every step of the
// start-up can be run again.
func (j *job) untilServer(ctx context.Context, step func() error) error {
	wait := time.Second
	for warned := false; ; {
		err := step()
		if !errors.Is(err, store.ErrServer) || ctx.Err() != nil {
			if warned && err == nil {
				fmt.Fprintln(j.log, "server back: starting")
			}
			return err
		}
		if !warned {
			fmt.Fprintf(j.log, "warning: %v\nwaiting for the server (trying again every 1s to 30s; Ctrl-C stops)\n", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// worker is one worker as the coordinator sees it.
type worker struct {
	index  int
	proc   proc
	played atomic.Int64 // games finished, as last reported (set by the reader)
	done   bool
	gate   io.Writer // the worker's input, for go-aheads (see job.admit)
	held   bool      // published a shard and waits for a go-ahead
}

// proc is a started worker as the job drives it: a worker process
// (startProc), or in the package's tests a fake that runs in the test
// process (Config.spawn).
type proc struct {
	out  io.Reader    // its lines (a process's stdout)
	in   io.Writer    // its input (stdin), nil if it asked for none
	wait func() error // waits for its end, once out is read to its end
	stop func()       // asks it to finish its game, publish and exit (SIGTERM)
}

// spawnFunc starts worker i with the arguments of the worker command
// (WorkerFlags; the program's name not included) and an input if input.
type spawnFunc func(i int, args []string, input bool) (proc, error)

// event is a line from a worker, or its exit.
type event struct {
	w      *worker
	line   string
	exited bool
	err    error
}

// startWorker starts worker i, as a copy of the running program (or as
// Config.spawn says), and a reader of its lines.
func (j *job) startWorker(i int, args []string, input bool) error {
	spawn := j.cfg.spawn
	if spawn == nil {
		spawn = j.startProc
	}
	p, err := spawn(i, args, input)
	if err != nil {
		return err
	}
	w := &worker{index: i, proc: p, gate: p.in}
	if w.gate == nil {
		w.gate = io.Discard
	}
	j.workers = append(j.workers, w)
	go j.read(w, p.out)
	return nil
}

// startProc starts worker i's process, "PROGRAM args…", with its pipes:
// its stdin one if the job tells it when to go on (input), else none.
func (j *job) startProc(i int, args []string, input bool) (proc, error) {
	self, err := os.Executable()
	if err != nil {
		return proc{}, fmt.Errorf("find own executable: %w", err)
	}
	cmd := exec.Command(self, args...)
	p := proc{wait: cmd.Wait, stop: func() { cmd.Process.Signal(syscall.SIGTERM) }}
	if input {
		if p.in, err = cmd.StdinPipe(); err != nil {
			return proc{}, err
		}
	}
	cmd.Stderr = j.log
	cmd.SysProcAttr = workerProcAttr()
	if p.out, err = cmd.StdoutPipe(); err != nil {
		return proc{}, err
	}
	if err := cmd.Start(); err != nil {
		return proc{}, fmt.Errorf("start worker %d: %w", i, err)
	}
	return p, nil
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
	j.events <- event{w: w, exited: true, err: w.proc.wait()}
}

// stopWorkers asks every running worker to finish its game, publish and exit.
func (j *job) stopWorkers() {
	for _, w := range j.workers {
		if !w.done {
			w.proc.stop()
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

// handle acts on one line from a worker: "published PATH GAMES BYTES",
// "playing" when it begins to play (its -duration starts then), or a line
// of its kind's.
func (j *job) handle(ev event) {
	if ev.line == "playing" {
		if j.ready++; j.ready == 1 {
			j.playStart = time.Now()
		}
		return
	}
	f := strings.Fields(ev.line)
	if len(f) == 4 && f[0] == "published" && j.shards != nil {
		games, _ := strconv.ParseInt(f[2], 10, 64)
		size, _ := strconv.ParseInt(f[3], 10, 64)
		peak(&j.st.peakShards, j.st.backlog.Add(1))
		j.st.backlogGames.Add(games)
		peak(&j.st.peakBacklog, j.st.backlogBytes.Add(size))
		j.shards <- f[1]
		j.kind.published(ev.w)
		return
	}
	if !j.kind.line(ev.w, ev.line) {
		fmt.Fprintf(j.log, "worker %d: unexpected line %q\n", ev.w.index, ev.line)
	}
}

func peak(p *atomic.Int64, v int64) {
	for {
		old := p.Load()
		if v <= old || p.CompareAndSwap(old, v) {
			return
		}
	}
}

// startMerger makes the channels of the job's shards and starts its
// merger, which ends when the shards channel is closed (and the merges
// are done or abandoned).
func (j *job) startMerger(ctx context.Context) {
	j.shards = make(chan string, 1<<16)
	j.merged, j.abandon = make(chan struct{}), make(chan struct{})
	j.drained, j.quit = make(chan struct{}, 1), ctx.Done()
	go j.merger(ctx)
}

// merger merges published shards in order, deleting each once merged, and
// then lets the kind act (a self-play job prunes). Its merges end at the
// stop after ctx's (stop.Next): a graceful stop merges what the workers
// finished.
func (j *job) merger(ctx context.Context) {
	defer close(j.merged)
	mctx := stop.Next(ctx)
	for path := range j.shards {
		select {
		case <-j.abandon: // the shards wait for the next run
			continue
		default:
		}
		size := fileSize(path)
		j.st.busy.Store("merging")
		res, err := j.mergeRetrying(mctx, path)
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
			if mctx.Err() == nil {
				j.fail(err.Error())
				fmt.Fprintf(j.log, "merge failed, shard kept for the next run: %v\n", err)
			}
			continue
		}
		j.kind.merged(ctx, res)
		j.st.busy.Store("")
	}
	if j.pruneDone != nil {
		<-j.pruneDone
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

// joinBusy is what the merger and a prune beside it are doing (either
// may not have been set).
func joinBusy(merger, prune any) string {
	m, _ := merger.(string)
	p, _ := prune.(string)
	if m != "" && p != "" {
		return m + ", " + p
	}
	return m + p
}

// elapsedPlay is how long the workers have played so far.
func (j *job) elapsedPlay() time.Duration {
	switch {
	case j.playStart.IsZero():
		return 0
	case !j.playEnd.IsZero():
		return j.playTime()
	}
	return time.Since(j.playStart)
}

// snapshot gathers what the progress line shows.
func (j *job) snapshot() progressState {
	var played int64
	for _, w := range j.workers {
		played += w.played.Load()
	}
	s := progressState{
		played: played, merged: j.st.merged.Load(), total: j.before + j.st.merged.Load(),
		backlog: j.st.backlog.Load(), backlogBytes: j.st.backlogBytes.Load(), backlogGames: j.st.backlogGames.Load(),
		positions: j.st.positions.Load(), dbBytes: j.st.dbBytes.Load(),
		elapsed: j.elapsedPlay(), busy: joinBusy(j.st.busy.Load(), j.st.pruning.Load()),
		stored: j.db != nil, starting: j.playStart.IsZero(),
	}
	if j.cfg.Games > 0 {
		s.target = int64(j.cfg.Games)
	}
	if j.cfg.Duration > 0 {
		s.deadline = j.cfg.Duration
	}
	j.kind.progress(&s)
	return s
}

// playTime is how long the workers played: from the first one's start of
// play to the last one's exit (none if none began).
func (j *job) playTime() time.Duration {
	if j.playStart.IsZero() || j.playEnd.Before(j.playStart) {
		return 0
	}
	return j.playEnd.Sub(j.playStart)
}

// startup is the time before the first worker began to play.
func (j *job) startup() time.Duration {
	if j.playStart.IsZero() {
		return j.playEnd.Sub(j.start)
	}
	return j.playStart.Sub(j.start)
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func fileSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return 0
}
