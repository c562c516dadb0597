package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"ocvist/coordinator"
)

const runAbout = `
Play self-play games on all cores into a database.

Each worker is a separate process that plays games, aggregates them in
memory and publishes them every -shard-games games or -flush-every as a
sealed, sorted shard file; the coordinator merges each shard as it comes
(its cost is the shard's, not the database's) and from time to time prunes:
it folds the young positions together, keeps for good those seen in
-prune-min games and drops those still below that -prune-age games after
their first (never their blacklisted moves), so memory stays flat and the
database bounded however long the run. At the end it merges what is left,
prunes, concludes and prints both rates: the workers' self-play rate and the
end-to-end rate over the whole wall time.

Run it again on the same database to continue: shards left by a stopped or
crashed run are merged once (a ledger makes merging exactly-once) and
half-written ones are discarded. One job writes a database at a time: a
second run, merge, prune or conclude on it is refused at once. Ctrl-C or
SIGTERM stops the workers, merges everything they finished, prunes and
exits 0.

With -generations G it runs the learning loop G times: self-play with the
current policy (-games or -duration per generation), merge, prune,
conclude, fit a forest on the whole database, play a gate match of the new
model against the previous policy, and record the generation (see "train
stats"). A model that scores under 50% is recorded but not used.`

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultRunConfig()
	fc, gate := defaultFitConfig(), defaultGateConfig()
	fs := newFlags("run", "[flags]", runAbout, stderr)
	registerRun(fs, &cfg)
	gens := fs.Int("generations", 0, "learning-loop generations: self-play, fit, gate match, record (0: self-play only)")
	fc.register(fs)
	gate.register(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := completeRunConfig(&cfg, fs); err != nil {
		return err
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	if *gens < 0 {
		return usageError{fmt.Sprintf("-generations %d is negative", *gens)}
	}
	if *gens == 0 {
		// Flags of the learning loop mean nothing without it.
		var loopFlags []string
		fs.Visit(func(f *flag.Flag) {
			if loopFlag(f.Name) {
				loopFlags = append(loopFlags, "-"+f.Name)
			}
		})
		if len(loopFlags) > 0 {
			return usageError{fmt.Sprintf("run: %s only apply with -generations", strings.Join(loopFlags, ", "))}
		}
		return coordinator.Run(ctx, cfg, stdout, stderr)
	}
	if !cfg.Game.Store {
		return usageError{"run: -store=false cannot run the learning loop, which learns from what is stored"}
	}
	if err := fc.validate(); err != nil {
		return usageError{err.Error()}
	}
	if err := gate.validate(); err != nil {
		return usageError{err.Error()}
	}
	return runGenerations(ctx, cfg, *gens, fc, gate, stdout, stderr)
}

// loopFlag reports whether a flag of "train run" belongs to the learning
// loop (the fit and the gate match).
func loopFlag(name string) bool {
	switch name {
	case "min-games", "holdout", "fit-seed", "trees", "depth", "min-leaf", "fit-workers":
		return true
	}
	return strings.HasPrefix(name, "gate-")
}
