package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/internal/cli"
	"ocvist/store"
)

// version is Ocvist's version, recorded with every run.
const version = cli.Version

// defaultDB is where the main job keeps its statistics.
const defaultDB = "data/ocvist.db"

// gameConfig is what every worker needs to play games: it travels to the
// worker processes as JSON, so a worker plays exactly what the coordinator
// was asked for.
type gameConfig struct {
	Rule        string        `json:"rule"`
	Radius      int           `json:"radius"`
	MaxPly      int           `json:"max_ply"`
	Openings    string        `json:"openings,omitempty"`
	Model       string        `json:"model,omitempty"`
	Temperature float64       `json:"temperature"`
	ShardGames  int           `json:"shard_games"`
	FlushEvery  time.Duration `json:"flush_every"`
}

// runConfig is the configuration of "train run", logged at the start and
// saved in the database's meta table with the run's seed.
type runConfig struct {
	DB         string        `json:"db"`
	Games      int           `json:"games"`
	Duration   time.Duration `json:"duration"`
	Workers    int           `json:"workers"`
	Seed       uint64        `json:"seed"`
	Game       gameConfig    `json:"game"`
	PruneMin   int64         `json:"prune_min"`
	PruneEvery int64         `json:"prune_every"`
	Conclude   store.ConcludeConfig
	Progress   time.Duration `json:"progress"`
	Version    string        `json:"version"`
}

func defaultRunConfig() runConfig {
	return runConfig{
		DB:       defaultDB,
		Duration: time.Minute,
		Workers:  runtime.NumCPU(),
		Game: gameConfig{
			Rule: "freestyle", Radius: 2, MaxPly: gomoku.NumCells,
			Temperature: 1, ShardGames: 5000, FlushEvery: 5 * time.Second,
		},
		PruneMin:   store.DefaultPruneMinGames,
		PruneEvery: 250_000,
		Conclude:   store.DefaultConclude,
		Progress:   10 * time.Second,
		Version:    version,
	}
}

// register binds the flags of "train run" to c.
func (c *runConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.DB, "db", c.DB, "database `file` (created if absent; an existing one is continued)")
	fs.IntVar(&c.Games, "games", c.Games, "stop after this many games (0: no game limit; then -duration applies)")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "stop after this long (0: no time limit; needs -games); default 1m when -games is not given")
	fs.IntVar(&c.Workers, "workers", c.Workers, "worker processes (default: all cores)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "random seed (default: drawn from the clock, printed and recorded)")
	fs.StringVar(&c.Game.Rule, "rule", c.Game.Rule, "rule: freestyle (five or more wins) or standard (exactly five)")
	fs.IntVar(&c.Game.Radius, "radius", c.Game.Radius, fmt.Sprintf("candidate radius around stones, 1..%d", gomoku.MaxRadius))
	fs.IntVar(&c.Game.MaxPly, "max-ply", c.Game.MaxPly, "ply limit: a game still going after this many stones is a draw")
	fs.StringVar(&c.Game.Openings, "openings", c.Game.Openings, "opening set `file` (Gomocup offset format); default: every game starts in the centre")
	fs.StringVar(&c.Game.Model, "model", c.Game.Model, "policy model `file` (default: generation 0, uniform among the filter's candidates)")
	fs.Float64Var(&c.Game.Temperature, "temperature", c.Game.Temperature, "sampling temperature of the model policy (> 0)")
	fs.IntVar(&c.Game.ShardGames, "shard-games", c.Game.ShardGames, "games a worker aggregates in memory before publishing a shard")
	fs.DurationVar(&c.Game.FlushEvery, "flush-every", c.Game.FlushEvery, "publish a worker's shard at least this often")
	fs.Int64Var(&c.PruneMin, "prune-min", c.PruneMin, "at the end, delete positions seen in fewer games than this (0: do not prune)")
	fs.Int64Var(&c.PruneEvery, "prune-every", c.PruneEvery, "also prune the merged database after every this many games merged, so merges stay fast as a long run grows (0: only at the end)")
	fs.Int64Var(&c.Conclude.MinGames, "conclude-min-games", c.Conclude.MinGames, "conclude: games a move needs before it can be blacklisted")
	fs.Float64Var(&c.Conclude.Margin, "conclude-margin", c.Conclude.Margin, "conclude: blacklist when the mean weight is this far below the best sibling's")
	fs.Float64Var(&c.Conclude.MaxMean, "conclude-max-mean", c.Conclude.MaxMean, "conclude: and the mean weight is below this")
	fs.DurationVar(&c.Progress, "progress", c.Progress, "interval of plain progress lines when stderr is not a terminal")
}

// validate checks ranges and fills derived defaults.
func (c *runConfig) validate(durationGiven bool) error {
	if c.Games > 0 && !durationGiven {
		c.Duration = 0
	}
	var errs []error
	if c.DB == "" {
		errs = append(errs, errors.New("-db is empty"))
	} else if fi, err := os.Stat(c.DB); err == nil && fi.IsDir() {
		errs = append(errs, fmt.Errorf("-db %s is a directory, not a database file", c.DB))
	} else if dir := filepath.Dir(c.DB); dir != "." {
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			errs = append(errs, fmt.Errorf("-db %s: %s is not a directory", c.DB, dir))
		}
	}
	if c.Games < 0 {
		errs = append(errs, fmt.Errorf("-games %d is negative", c.Games))
	}
	if c.Duration < 0 {
		errs = append(errs, fmt.Errorf("-duration %v is negative", c.Duration))
	}
	if c.Games == 0 && c.Duration == 0 {
		errs = append(errs, errors.New("give -games or -duration (or both)"))
	}
	if c.Workers < 1 || c.Workers > 256 {
		errs = append(errs, fmt.Errorf("-workers %d out of range 1..256", c.Workers))
	}
	if c.PruneMin < 0 {
		errs = append(errs, fmt.Errorf("-prune-min %d is negative", c.PruneMin))
	}
	if c.PruneEvery < 0 {
		errs = append(errs, fmt.Errorf("-prune-every %d is negative", c.PruneEvery))
	}
	if err := c.Conclude.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Progress <= 0 {
		errs = append(errs, fmt.Errorf("-progress %v must be positive", c.Progress))
	}
	if err := c.Game.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (g *gameConfig) validate() error {
	var errs []error
	if _, err := gomoku.ParseRule(g.Rule); err != nil {
		errs = append(errs, fmt.Errorf("-rule: %v", err))
	}
	if g.Radius < 1 || g.Radius > gomoku.MaxRadius {
		errs = append(errs, fmt.Errorf("-radius %d out of range 1..%d", g.Radius, gomoku.MaxRadius))
	}
	if g.MaxPly < 1 || g.MaxPly > gomoku.NumCells {
		errs = append(errs, fmt.Errorf("-max-ply %d out of range 1..%d", g.MaxPly, gomoku.NumCells))
	}
	if !(g.Temperature > 0) {
		errs = append(errs, fmt.Errorf("-temperature %v must be positive", g.Temperature))
	}
	if g.ShardGames < 1 {
		errs = append(errs, fmt.Errorf("-shard-games %d must be at least 1", g.ShardGames))
	}
	if g.FlushEvery <= 0 {
		errs = append(errs, fmt.Errorf("-flush-every %v must be positive", g.FlushEvery))
	}
	for _, f := range []struct{ flag, path string }{{"-openings", g.Openings}, {"-model", g.Model}} {
		if f.path == "" {
			continue
		}
		if fi, err := os.Stat(f.path); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", f.flag, err))
		} else if fi.IsDir() {
			errs = append(errs, fmt.Errorf("%s %s is a directory", f.flag, f.path))
		}
	}
	return errors.Join(errs...)
}

// storeConfig is the store configuration for a rule name.
func storeConfig(rule string) store.Config {
	return store.Config{Rule: rule, KeyVersion: canon.Version, BoardSize: gomoku.Size}
}
