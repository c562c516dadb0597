package main

import (
	"context"
	"fmt"
	"io"

	"ocvist/internal/cli"
	"ocvist/search"
)

const benchAbout = `
Prints the bench signature: the search's node count on a fixed set of
positions, each searched to a fixed depth from an empty table, one thread
(search.Bench; "go test -run TestBenchSignature ./search" pins it). A change
of the search's behaviour changes it; a change of speed only changes the
time. With -depth another depth is searched (not the signature).`

// benchConfig is the typed configuration of play bench.
type benchConfig struct {
	depth int
}

func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var c benchConfig
	fs := cli.NewFlagSet("play bench", "[-depth D]", benchAbout, stderr)
	fs.IntVar(&c.depth, "depth", search.BenchDepth, "the depth of every search")
	if err := cli.ParseNoArgs(fs, args); err != nil {
		return err
	}
	if c.depth < 1 || c.depth > search.MaxDepth {
		return cli.Usagef("play bench: -depth %d: want 1 to %d", c.depth, search.MaxDepth)
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
