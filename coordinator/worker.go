package coordinator

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"ocvist/selfplay"
	"ocvist/store"
	"ocvist/store/backend"
	"ocvist/store/shard"
)

// WorkerConfig is what one worker process is told by the coordinator
// (as the flags of "train worker").
type WorkerConfig struct {
	// Teacher, if set, makes the worker a teacher worker (PlayTeacher),
	// which plays what it claims and ignores the fields of self-play
	// (Game, DB, Games, Duration).
	Teacher  *TeacherConfig
	Game     GameConfig
	DB       string // the main database, read for the blacklist ("" none)
	Dir      string // the shard directory ("": storing off)
	Index    int
	Seed     uint64
	Games    int           // games to play (0: for Duration)
	Duration time.Duration // play this long from the first game (0: no limit)
	// In, if not nil, gives the coordinator's lines (the worker's stdin),
	// and is closed at its end: a self-play worker's go-ahead after each
	// published shard (see job.admit), any line, or the close, which lets
	// the worker go on for good (the coordinator is gone); a teacher
	// worker's answers to its claims.
	In <-chan string
}

// Work is one worker process: it loads what it plays with, writes
// "playing" to out and plays games (for cfg.Duration from then), aggregates
// them in memory and publishes them as sealed shard files in Dir, writing
// "published PATH GAMES BYTES" for each and "played N" as it goes. When
// ctx ends or its parent process dies, it publishes the games it finished
// and returns nil. A teacher worker plays the games it claims instead
// (see playTeacher).
func Work(ctx context.Context, cfg WorkerConfig, out io.Writer) error {
	if cfg.Teacher != nil {
		return playTeacher(ctx, cfg, out)
	}
	w := &selfplayWorker{cfg: cfg.Game, dir: cfg.Dir, index: cfg.Index, seed: cfg.Seed, duration: cfg.Duration, out: out}
	w.gate = cfg.In
	return w.run(ctx, cfg.DB, cfg.Games)
}

// selfplayWorker is the state of one worker process.
type selfplayWorker struct {
	cfg      GameConfig
	dir      string
	index    int
	seed     uint64
	duration time.Duration
	deadline time.Time // of play, from duration once it begins (zero: none)
	out      io.Writer
	played   int64
	shards   int
	gate     <-chan string // go-aheads after a publish (nil: none asked)
}

func (w *selfplayWorker) run(ctx context.Context, dbPath string, games int) error {
	sp, err := w.player(ctx, dbPath)
	if err != nil {
		return err
	}
	if w.duration > 0 {
		w.deadline = time.Now().Add(w.duration)
	}
	fmt.Fprintln(w.out, "playing")
	rng := rand.New(rand.NewPCG(w.seed, uint64(w.index)))
	batch := shard.NewBatch()
	lastFlush, lastReport := time.Now(), time.Now()
	ppid := os.Getppid()
	for games == 0 || w.played < int64(games) {
		if ctx.Err() != nil || os.Getppid() != ppid || (!w.deadline.IsZero() && time.Now().After(w.deadline)) {
			break
		}
		g := sp.Play(rng)
		w.played++
		if now := time.Now(); now.Sub(lastReport) >= 250*time.Millisecond {
			fmt.Fprintf(w.out, "played %d\n", w.played)
			lastReport = now
		}
		if w.dir == "" {
			continue // storing off
		}
		if err := batch.Add(g); err != nil {
			return err
		}
		if batch.Len() >= w.cfg.ShardGames || time.Since(lastFlush) >= w.cfg.FlushEvery {
			if err := w.publish(batch); err != nil {
				return err
			}
			if !w.await(ctx) {
				break
			}
			lastFlush = time.Now()
		}
	}
	fmt.Fprintf(w.out, "played %d\n", w.played)
	return w.publish(batch)
}

// player is the worker's self-play: its games, its policy and the
// blacklist of the database at dbPath (none if "").
func (w *selfplayWorker) player(ctx context.Context, dbPath string) (*selfplay.Player, error) {
	var bl store.Blacklist
	if dbPath != "" {
		db, err := backend.OpenReadOnlyAt(ctx, dbPath)
		if err != nil {
			return nil, err
		}
		bl, err = db.Blacklist(ctx)
		db.Close()
		if err != nil {
			return nil, err
		}
	}
	game, err := newGameConfig(w.cfg)
	if err != nil {
		return nil, err
	}
	pol, err := NewPolicy(ctx, w.cfg, dbPath)
	if err != nil {
		return nil, err
	}
	return selfplay.New(game, pol, bl), nil
}

// await waits, after a publish, for the coordinator's go-ahead when the
// worker has a gate; it reports false if the worker is being stopped or
// reaches its deadline meanwhile (it has nothing unpublished then).
func (w *selfplayWorker) await(ctx context.Context) bool {
	if w.gate == nil {
		return true
	}
	var deadline <-chan time.Time
	if !w.deadline.IsZero() {
		t := time.NewTimer(time.Until(w.deadline))
		defer t.Stop()
		deadline = t.C
	}
	select {
	case <-w.gate:
		return true
	case <-ctx.Done():
		return false
	case <-deadline:
		return false
	}
}

// publish writes the batch as a new sealed shard and announces it.
func (w *selfplayWorker) publish(batch *shard.Batch) error {
	if batch.Len() == 0 {
		return nil
	}
	w.shards++
	// Never cancelled: a finished game is published even while the worker
	// is being stopped.
	path, err := batch.WriteShard(context.Background(), w.dir, store.DefaultConfig(w.cfg.Rule), map[string]string{
		"worker": fmt.Sprint(w.index), "seed": fmt.Sprint(w.seed), "shard_seq": fmt.Sprint(w.shards),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "published %s %d %d\n", path, batch.Len(), fileSize(path))
	batch.Reset()
	return nil
}
