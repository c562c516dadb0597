package coordinator

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/backend"
)

// DefaultDB is where the main job keeps its statistics.
const DefaultDB = "data/ocvist.db"

// GameConfig is what every worker needs to play games: it travels to the
// worker processes as JSON, so a worker plays exactly what the coordinator
// was asked for.
type GameConfig struct {
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

// Config is the configuration of "train run", logged at the start and
// saved in the database's meta table with the run's seed.
type Config struct {
	DB       string            `json:"db"`
	Games    int               `json:"games"`
	Duration time.Duration     `json:"duration"`
	Workers  int               `json:"workers"`
	Seed     uint64            `json:"seed"`
	Game     GameConfig        `json:"game"`
	Prune    store.PruneConfig `json:"prune"`
	// PruneEvery spaces the prunes of a PostgreSQL store while the workers
	// play (a SQLite store prunes after each merge).
	PruneEvery time.Duration        `json:"prune_every"`
	Conclude   store.ConcludeConfig `json:"conclude"`
	Progress   time.Duration        `json:"progress"`
	Backlog    ByteSize             `json:"backlog"` // shards waiting on local disk (see job.admit); 0: no bound; BacklogAuto
	Version    string               `json:"version"`
	DBGiven    bool                 `json:"-"` // -db was given
}

// DefaultConfig is the configuration of "train run" without flags, for
// Ocvist version.
func DefaultConfig(version string) Config {
	return Config{
		DB:       DefaultDB,
		Duration: time.Minute,
		Workers:  runtime.NumCPU(),
		Game: GameConfig{
			Rule: "freestyle", Radius: 2, MaxPly: gomoku.NumCells,
			Temperature: 1, ShardGames: 5000, FlushEvery: 5 * time.Second, Store: true,
		},
		Prune:      store.DefaultPrune(),
		PruneEvery: 2 * time.Minute,
		Conclude:   store.DefaultConclude(),
		Progress:   5 * time.Second,
		Backlog:    BacklogAuto,
		Version:    version,
	}
}

// Validate checks ranges and fills derived defaults: -games alone (not
// durationGiven) means no time limit.
func (c *Config) Validate(durationGiven bool) error {
	if c.Games > 0 && !durationGiven {
		c.Duration = 0
	}
	var errs []error
	if err := c.checkDB(); err != nil {
		errs = append(errs, err)
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
	if c.PruneEvery <= 0 {
		errs = append(errs, fmt.Errorf("-prune-every %v must be positive", c.PruneEvery))
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
	if err := c.Game.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// checkDB checks that -db names a place where a database can be.
func (c *Config) checkDB() error {
	if c.DB == "" {
		return errors.New("-db is empty")
	}
	if backend.IsURL(c.DB) {
		return nil
	}
	if fi, err := os.Stat(c.DB); err == nil && fi.IsDir() {
		return fmt.Errorf("-db %s is a directory, not a database file", c.DB)
	}
	dir := filepath.Dir(c.DB)
	if dir == "." {
		return nil
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("-db %s: %s is not a directory", c.DB, dir)
	} else if err != nil && !c.DBGiven && c.Game.Store {
		return fmt.Errorf("no %s/ directory here for the default database %s: run from the repository root or name one with -db", dir, c.DB)
	} else if err != nil && c.Game.Store {
		return fmt.Errorf("-db %s: the directory %s does not exist (create it first)", c.DB, dir)
	}
	return nil
}

// Validate checks the game configuration, its files included.
func (g *GameConfig) Validate() error {
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

// StoreConfig is the store configuration for a rule name (already
// validated).
func StoreConfig(rule string) store.Config {
	r, _ := gomoku.ParseRule(rule)
	return store.DefaultConfig(r)
}

// ShardDir is where a job's shards wait to be merged: beside a SQLite
// database; for a PostgreSQL URL, under data/, named after the server and
// database (each machine keeps its own).
func ShardDir(db string) string {
	if !backend.IsURL(db) {
		return db + ".shards"
	}
	u, err := url.Parse(db)
	if err != nil {
		return filepath.Join("data", "postgres.shards")
	}
	name := strings.NewReplacer(":", "-", "/", "-").Replace(u.Host + u.Path)
	return filepath.Join("data", "postgres-"+name+".shards")
}
