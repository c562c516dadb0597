package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"ocvist/coordinator"
)

const workerAbout = `
Internal: one self-play worker, started by "train run". It loads the
blacklist and the model, prints "playing" and plays games (for -duration
from then, or -games),
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
		duration          time.Duration
		gate              bool
	)
	fs.StringVar(&dbPath, "db", "", "main database (read for the blacklist)")
	fs.StringVar(&dir, "dir", "", "shard directory (none: storing off)")
	fs.StringVar(&conf, "config", "", "game configuration (JSON)")
	fs.Uint64Var(&seed, "seed", 0, "seed")
	fs.IntVar(&index, "index", 0, "worker index")
	fs.IntVar(&games, "games", 0, "games to play (0: for -duration)")
	fs.DurationVar(&duration, "duration", 0, "play this long, from the first game (0: no limit)")
	fs.BoolVar(&gate, "gate", false, "after each published shard, wait for a line on stdin")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	w := coordinator.WorkerConfig{DB: dbPath, Dir: dir, Index: index, Seed: seed, Games: games}
	if err := json.Unmarshal([]byte(conf), &w.Game); err != nil {
		return usageError{fmt.Sprintf("worker: -config: %v", err)}
	}
	if err := w.Game.Validate(); err != nil {
		return usageError{err.Error()}
	}
	if games == 0 && duration <= 0 {
		return usageError{"worker: needs -games or -duration"}
	}
	w.Duration = duration
	if gate {
		w.Gate = goAheads(stdin)
	}
	return coordinator.Work(ctx, w, stdout)
}

// goAheads delivers a value for each line read from r (the coordinator's
// go-aheads) and is closed at its end: a coordinator that is gone holds no
// worker back.
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
