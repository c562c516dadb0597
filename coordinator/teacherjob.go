package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"ocvist/internal/stop"
	"ocvist/store"
	"ocvist/store/shard"
)

// TeacherJob is one machine's share of a generation's teacher games for
// the learning loop (package loop): Workers teacher worker processes
// (copies of the running program, "PROGRAM worker -teacher …"), each
// playing the games the job claims for it (Claim) and publishing them as
// teacher shards in the job's own folder under ShardRoot, which the job
// merges into DB exactly once, as "train run" merges self-play shards:
// the same job folder, merger, backlog bound, progress and stops.
type TeacherJob struct {
	DB        store.Store
	ShardRoot string // where the job's folder is made (ShardDir of the database)
	Workers   int
	Game      TeacherConfig
	// Claim gives the next games to play (a block's, see
	// store.LoopMember); ok false: none left. It is called by the job's
	// main loop, one call at a time.
	Claim    func(ctx context.Context) (games []int, ok bool, err error)
	Backlog  ByteSize      // as Config.Backlog (BacklogAuto: from the free disk)
	Progress time.Duration // as Config.Progress
	Log      io.Writer     // progress and warnings
	// Label names the games in the progress line ("gen 3"); Quota and
	// Stored are the generation's games and those stored when the job
	// starts.
	Label         string
	Quota, Stored int64
}

// TeacherResult is what a teacher job did.
type TeacherResult struct {
	Played     int64 // games the workers finished
	Merged     int64 // teacher games the job's merges added
	Duplicates int64 // games its merges found stored already
	Play       time.Duration
}

// PlayTeacher runs a teacher job until no games are left to claim and
// every worker has published and exited, or ctx ends (a stop: the
// workers finish their game and publish it; the merges of what they
// finished end at the next stop, see stop.Next, and what is left waits in
// the job's folder for the next job or AdoptShards). It returns ctx's
// error when stopped, an error naming the problems if a worker or a merge
// failed (everything finished was merged), or nil.
func PlayTeacher(ctx context.Context, tj TeacherJob) (TeacherResult, error) {
	if tj.Workers < 1 || tj.Claim == nil || tj.DB == nil {
		return TeacherResult{}, fmt.Errorf("teacher job: %d workers, claim %v, database %v", tj.Workers, tj.Claim != nil, tj.DB != nil)
	}
	j := &job{log: tj.Log, start: time.Now(), db: tj.DB,
		cfg: Config{Workers: tj.Workers, Backlog: tj.Backlog, Progress: tj.Progress, DB: tj.DB.Path()}}
	k := &teacher{j: j, tj: tj}
	j.kind = k
	j.st.busy.Store("")
	var err error
	if j.dir, err = claimJobDir(tj.ShardRoot); err != nil {
		return TeacherResult{}, err
	}
	defer j.dir.release()
	j.shardDir = j.dir.path
	if j.cfg.Backlog == BacklogAuto {
		j.cfg.Backlog = backlogBound(BacklogAuto, freeBytes(j.shardDir))
	}
	k.ctx = ctx
	j.startMerger(ctx)
	if err := k.startWorkers(); err != nil {
		j.stopWorkers()
		j.wait(stop.Next(ctx))
		close(j.shards)
		<-j.merged
		return k.result(), err
	}
	interrupted := j.wait(ctx)
	fctx := ctx
	if interrupted {
		fctx = stop.Next(ctx)
	}
	close(j.shards)
	select {
	case <-j.merged:
	case <-fctx.Done():
		close(j.abandon)
		<-j.merged
	}
	// Temporary shards are of dead workers; sealed ones the merger could
	// not take wait in the folder for the next job.
	if _, err := shard.CleanTemp(j.shardDir); err != nil {
		return k.result(), err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case len(j.failed) > 0:
		return k.result(), fmt.Errorf("teacher games: %d problem(s), everything finished was merged: %s", len(j.failed), strings.Join(j.failed, "; "))
	case interrupted:
		return k.result(), ctx.Err()
	}
	return k.result(), nil
}

// teacher is the kind of a teacher job: workers that ask for games
// ("claim") and are answered, when the backlog bound lets them go on,
// with the next claim's games or "done".
type teacher struct {
	j   *job
	tj  TeacherJob
	ctx context.Context // the job's: a claim ends with it
	// claimErr: a claim failed; the job stops and says why.
	claimErr bool
}

// startWorkers starts the teacher workers, each with its stdin for the
// answers to its claims.
func (k *teacher) startWorkers() error {
	conf, err := json.Marshal(k.tj.Game)
	if err != nil {
		return err
	}
	k.j.events = make(chan event, 64)
	for i := range k.tj.Workers {
		args := []string{"worker", "-teacher", string(conf), "-index", strconv.Itoa(i), "-dir", k.j.shardDir}
		if err := k.j.startWorker(i, args, true); err != nil {
			return err
		}
	}
	return nil
}

func (k *teacher) line(w *worker, line string) bool {
	if line != "claim" {
		return false
	}
	k.j.admit(w)
	return true
}

func (k *teacher) published(*worker) {}

// proceed answers w's claim: the next games, or "done" when there are
// none, the job is stopping or a claim failed (the job then stops). A
// server that is away is waited for, as merges wait for it.
func (k *teacher) proceed(w *worker) {
	if k.j.stopping || k.claimErr {
		w.tell("done")
		return
	}
	games, ok, err := k.claim()
	switch {
	case err != nil && k.ctx.Err() == nil:
		k.claimErr = true
		k.j.fail(fmt.Sprintf("claim teacher games: %v", err))
		fmt.Fprintf(k.j.log, "claiming games failed (%v): the workers stop\n", err)
		k.j.stopWorkers()
		w.tell("done")
	case err != nil || !ok:
		w.tell("done")
	default:
		s := make([]string, len(games))
		for i, g := range games {
			s[i] = strconv.Itoa(g)
		}
		w.tell("play " + strings.Join(s, " "))
	}
}

// claim calls the job's Claim, again while the server is away.
func (k *teacher) claim() ([]int, bool, error) {
	var games []int
	var ok bool
	err := k.j.untilServer(k.ctx, func() (err error) {
		games, ok, err = k.tj.Claim(k.ctx)
		return err
	})
	return games, ok, err
}

func (k *teacher) merged(_ context.Context, res store.MergeResult) {
	k.j.st.merged.Add(res.TeacherGames)
	k.j.st.duplicates.Add(res.Duplicates)
}

func (k *teacher) progress(s *progressState) {
	s.label = k.tj.Label
	s.target = k.tj.Quota - k.tj.Stored
	s.total = k.tj.Stored + s.merged
	s.quota = k.tj.Quota
}

func (k *teacher) result() TeacherResult {
	s := k.j.snapshot()
	return TeacherResult{Played: s.played, Merged: k.j.st.merged.Load(), Duplicates: k.j.st.duplicates.Load(), Play: k.j.playTime()}
}
