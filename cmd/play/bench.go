package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"ocvist/data"
	"ocvist/internal/cli"
	"ocvist/policy"
	"ocvist/search"
)

const benchAbout = `
Prints the bench signature: the search's node count on a fixed set of
positions, each searched to a fixed depth from an empty table, one thread
(search.Bench; "go test -run TestBenchSignature ./search" pins it). A change
of the search's behaviour changes it; a change of speed only changes the
time. With -depth another depth is searched (not the signature).
With -time MS every position is searched for MS milliseconds instead, on
-threads threads (Lazy SMP), from an empty table: the speed in nodes a second
(Result.Nodes) and positions a second (every stone put, threat searches
included), and the depth reached on average; with -models the search uses
the shipped models as it does in play (its nodes cost more).`

// benchConfig is the typed configuration of play bench.
type benchConfig struct {
	depth   int
	timeMS  int
	threads int
	models  bool
}

func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var c benchConfig
	fs := cli.NewFlagSet("play bench", "[-depth D | -time MS [-threads N]]", benchAbout, stderr)
	fs.IntVar(&c.depth, "depth", search.BenchDepth, "the depth of every search")
	fs.IntVar(&c.timeMS, "time", 0, "search every position this many milliseconds instead (0: to -depth)")
	fs.IntVar(&c.threads, "threads", 1, "threads of the timed searches")
	fs.BoolVar(&c.models, "models", false, "the timed searches use the shipped policy and value models")
	if err := cli.ParseNoArgs(fs, args); err != nil {
		return err
	}
	switch {
	case c.depth < 1 || c.depth > search.MaxDepth:
		return cli.Usagef("play bench: -depth %d: want 1 to %d", c.depth, search.MaxDepth)
	case c.timeMS < 0:
		return cli.Usagef("play bench: -time %d is negative", c.timeMS)
	case c.threads < 1 || c.threads > search.MaxThreads:
		return cli.Usagef("play bench: -threads %d: want 1 to %d", c.threads, search.MaxThreads)
	case (c.threads > 1 || c.models) && c.timeMS == 0:
		return cli.Usagef("play bench: -threads or -models without -time: the signature is one thread's, without models")
	}
	if c.timeMS > 0 {
		return benchTimed(ctx, c, stdout)
	}
	r, err := search.Bench(search.DefaultConfig(), c.depth)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(stdout, "bench: %d nodes (depth %d, %d positions searched) in %.3f s: %.0f nodes/s\n",
		r.Nodes, c.depth, r.Positions, secs, float64(r.Nodes)/secs)
	return nil
}

// benchTimed searches every bench position for c.timeMS on c.threads
// threads and prints the speed.
func benchTimed(ctx context.Context, c benchConfig, stdout io.Writer) error {
	cfg := search.DefaultConfig()
	cfg.Threads = c.threads
	s := search.New(cfg)
	if c.models {
		m, err := loadPolicy("", data.Model)
		if err != nil {
			return err
		}
		v, err := loadValue("")
		if err != nil {
			return err
		}
		s.SetPrior(func() search.Prior { return policy.NewPrior(m) })
		s.SetValue(func() search.Value { return policy.NewValuer(v) })
	}
	var nodes, positions int64
	var elapsed time.Duration
	depth, n := 0, 0
	for i, pos := range search.BenchPositions() {
		s.Clear()
		res, err := s.Search(ctx, pos, search.Limits{Deadline: time.Now().Add(time.Duration(c.timeMS) * time.Millisecond)})
		if err != nil {
			return fmt.Errorf("bench position %d: %w", i+1, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		nodes, positions, elapsed = nodes+res.Nodes, positions+res.Positions, elapsed+res.Elapsed
		if res.Depth > 0 {
			depth, n = depth+res.Depth, n+1
		}
	}
	secs := elapsed.Seconds()
	models := ""
	if c.models {
		models = ", models"
	}
	fmt.Fprintf(stdout, "bench: %d threads%s, %d ms a position: %.0f nodes/s, %.0f positions/s, depth %.1f on average (%d nodes in %.3f s)\n",
		c.threads, models, c.timeMS, float64(nodes)/secs, float64(positions)/secs, float64(depth)/float64(max(n, 1)), nodes, secs)
	return nil
}
