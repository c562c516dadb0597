package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"ocvist/selfplay"
	"ocvist/store"
)

const workerAbout = `
Internal: one self-play worker, started by "train run". It plays games,
aggregates them in memory, and publishes them as sealed shard files in -dir,
printing "published PATH GAMES BYTES" for each and "played N" as it goes.
Without -dir it plays in memory only (storing off). With -gate it waits
after each published shard for a line on stdin, the coordinator's go-ahead
(the backlog bound), or for the end of stdin. On SIGTERM or SIGINT, or when
its parent dies, it publishes the games it finished and exits 0.`

func workerCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("worker", "[flags]", workerAbout, stderr)
	var (
		dbPath, dir, conf string
		seed              uint64
		index, games      int
		deadline          int64
		gate              bool
	)
	fs.StringVar(&dbPath, "db", "", "main database (read for the blacklist)")
	fs.StringVar(&dir, "dir", "", "shard directory (none: storing off)")
	fs.StringVar(&conf, "config", "", "game configuration (JSON)")
	fs.Uint64Var(&seed, "seed", 0, "seed")
	fs.IntVar(&index, "index", 0, "worker index")
	fs.IntVar(&games, "games", 0, "games to play (0: until the deadline)")
	fs.Int64Var(&deadline, "deadline", 0, "stop at this Unix time in nanoseconds (0: none)")
	fs.BoolVar(&gate, "gate", false, "after each published shard, wait for a line on stdin")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var g gameConfig
	if err := json.Unmarshal([]byte(conf), &g); err != nil {
		return usageError{fmt.Sprintf("worker: -config: %v", err)}
	}
	if err := g.validate(); err != nil {
		return usageError{err.Error()}
	}
	if games == 0 && deadline == 0 {
		return usageError{"worker: needs -games or -deadline"}
	}
	w := &selfplayWorker{cfg: g, dir: dir, index: index, seed: seed, out: stdout}
	if deadline > 0 {
		w.deadline = time.Unix(0, deadline)
	}
	if gate {
		w.gate = goAheads(stdin)
	}
	return w.run(ctx, dbPath, games)
}

// goAheads delivers a value for each line read from r and is closed at
// its end (a coordinator that is gone holds no worker back).
func goAheads(r io.Reader) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- struct{}{}
		}
	}()
	return ch
}

// selfplayWorker is the state of one worker process.
type selfplayWorker struct {
	cfg      gameConfig
	dir      string
	index    int
	seed     uint64
	deadline time.Time
	out      io.Writer
	played   int64
	shards   int
	gate     <-chan struct{} // go-aheads after a publish (nil: none asked)
}

// player builds the worker's self-play: its game configuration, policy,
// and the blacklist of the database at dbPath (none without one).
func (w *selfplayWorker) player(ctx context.Context, dbPath string) (*selfplay.Player, error) {
	var bl store.Blacklist
	if dbPath != "" {
		db, err := openReadOnlyDB(dbPath)
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
	pol, err := newPolicy(ctx, w.cfg, dbPath)
	if err != nil {
		return nil, err
	}
	return selfplay.New(game, pol, bl), nil
}

func (w *selfplayWorker) run(ctx context.Context, dbPath string, games int) error {
	sp, err := w.player(ctx, dbPath)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(w.seed, uint64(w.index)))
	batch := store.NewBatch()
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

// await waits, after a publish, for the coordinator's go-ahead when the
// worker was started with -gate; it reports false if the worker is being
// stopped or reaches its deadline meanwhile (it has nothing unpublished).
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
func (w *selfplayWorker) publish(batch *store.Batch) error {
	if batch.Len() == 0 {
		return nil
	}
	w.shards++
	// Never cancelled: a finished game is published even while the worker
	// is being stopped.
	path, err := batch.WriteShard(context.Background(), w.dir, storeConfig(w.cfg.Rule), map[string]string{
		"worker": fmt.Sprint(w.index), "seed": fmt.Sprint(w.seed), "shard_seq": fmt.Sprint(w.shards),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "published %s %d %d\n", path, batch.Len(), fileSize(path))
	batch.Reset()
	return nil
}
