package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

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
	// Store false: workers play in memory and publish nothing (to measure
	// what storing costs).
	Store bool `json:"store"`
}

// runConfig is the configuration of "train run", logged at the start and
// saved in the database's meta table with the run's seed.
type runConfig struct {
	DB         string               `json:"db"`
	Games      int                  `json:"games"`
	Duration   time.Duration        `json:"duration"`
	Workers    int                  `json:"workers"`
	Seed       uint64               `json:"seed"`
	Game       gameConfig           `json:"game"`
	Prune      store.PruneConfig    `json:"prune"`
	Conclude   store.ConcludeConfig `json:"conclude"`
	Progress   time.Duration        `json:"progress"`
	Backlog    byteSize             `json:"backlog"`
	Version    string               `json:"version"`
	dbExplicit bool                 // -db was given
}

func defaultRunConfig() runConfig {
	return runConfig{
		DB:       defaultDB,
		Duration: time.Minute,
		Workers:  runtime.NumCPU(),
		Game: gameConfig{
			Rule: "freestyle", Radius: 2, MaxPly: gomoku.NumCells,
			Temperature: 1, ShardGames: 5000, FlushEvery: 5 * time.Second, Store: true,
		},
		Prune:    store.DefaultPrune,
		Conclude: store.DefaultConclude,
		Progress: 5 * time.Second,
		Backlog:  2 << 30,
		Version:  version,
	}
}

// register binds the flags of "train run" to c.
func (c *runConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.DB, "db", c.DB, "database `file` (created if absent; an existing one is continued)")
	fs.IntVar(&c.Games, "games", c.Games, "stop after this many games (0: no game limit; then -duration applies)")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "stop after this long (0: no time limit; needs -games); with -games alone, no time limit")
	fs.IntVar(&c.Workers, "workers", c.Workers, "worker processes (as many as the machine has cores unless given)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "random seed (0 or absent: drawn from the clock, printed and recorded)")
	fs.StringVar(&c.Game.Rule, "rule", c.Game.Rule, "rule: freestyle (five or more wins) or standard (exactly five)")
	fs.IntVar(&c.Game.Radius, "radius", c.Game.Radius, fmt.Sprintf("candidate radius around stones, 1..%d", gomoku.MaxRadius))
	fs.IntVar(&c.Game.MaxPly, "max-ply", c.Game.MaxPly, "ply limit: a game still going after this many stones is a draw")
	fs.StringVar(&c.Game.Openings, "openings", c.Game.Openings, "opening set `file` (Gomocup offset format); default: every game starts in the centre")
	fs.StringVar(&c.Game.Model, "model", c.Game.Model, "policy model `file` (default: generation 0, uniform among the filter's candidates)")
	fs.Float64Var(&c.Game.Temperature, "temperature", c.Game.Temperature, "sampling temperature of the model policy (> 0)")
	fs.IntVar(&c.Game.ShardGames, "shard-games", c.Game.ShardGames, "games a worker aggregates in memory before publishing a shard")
	fs.DurationVar(&c.Game.FlushEvery, "flush-every", c.Game.FlushEvery, "publish a worker's shard at least this often")
	fs.Int64Var(&c.Prune.MinGames, "prune-min", c.Prune.MinGames, "a position seen in this many games is kept for good (promoted)")
	fs.Int64Var(&c.Prune.Age, "prune-age", c.Prune.Age, "positions still below -prune-min this many games after they were merged are dropped (their blacklisted moves are kept)")
	fs.BoolVar(&c.Game.Store, "store", c.Game.Store, "store the games (false: play in memory only, to measure what storing costs)")
	fs.Int64Var(&c.Conclude.MinGames, "conclude-min-games", c.Conclude.MinGames, "conclude: games a move needs before it can be blacklisted")
	fs.Float64Var(&c.Conclude.Margin, "conclude-margin", c.Conclude.Margin, "conclude: blacklist when the mean weight is this far below the best sibling's")
	fs.Float64Var(&c.Conclude.MaxMean, "conclude-max-mean", c.Conclude.MaxMean, "conclude: and the mean weight is below this")
	fs.Var(&c.Backlog, "backlog", "`size` of shards waiting to be merged (on local disk) at which each worker waits after its next shard until the merges bring it to half (e.g. 2GiB; 0: no bound)")
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
		} else if err != nil && !c.dbExplicit && c.Game.Store {
			errs = append(errs, fmt.Errorf("no %s/ directory here for the default database %s: run from the repository root or name one with -db", dir, c.DB))
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
	if c.Prune.MinGames < 1 {
		errs = append(errs, fmt.Errorf("-prune-min %d must be at least 1", c.Prune.MinGames))
	}
	if c.Prune.Age < 0 {
		errs = append(errs, fmt.Errorf("-prune-age %d is negative", c.Prune.Age))
	}
	if c.Conclude.MinGames < 1 {
		errs = append(errs, fmt.Errorf("-conclude-min-games %d must be at least 1", c.Conclude.MinGames))
	}
	if c.Conclude.Margin < 0 {
		errs = append(errs, fmt.Errorf("-conclude-margin %v is negative", c.Conclude.Margin))
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

// storeConfig is the store configuration for a rule name (already
// validated).
func storeConfig(rule string) store.Config {
	r, _ := gomoku.ParseRule(rule)
	return store.DefaultConfig(r)
}

// shardDirOf is where a job's shards wait to be merged: beside a SQLite
// database; for a PostgreSQL URL, under data/, named after the server and
// database (each machine keeps its own).
func shardDirOf(db string) string {
	if !store.IsURL(db) {
		return db + ".shards"
	}
	u, err := url.Parse(db)
	if err != nil {
		return filepath.Join("data", "postgres.shards")
	}
	name := strings.NewReplacer(":", "-", "/", "-").Replace(u.Host + u.Path)
	return filepath.Join("data", "postgres-"+name+".shards")
}
