package coordinator

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"ocvist/gomoku"
	"ocvist/internal/field"
	"ocvist/store"
	"ocvist/store/backend"
)

// DefaultDB is where the main job keeps its statistics.
const DefaultDB = "data/ocvist.db"

// GameConfig is what every worker needs to play games: it travels to the
// worker processes as JSON, so a worker plays exactly what the coordinator
// was asked for.
type GameConfig struct {
	Rule        gomoku.Rule   `json:"rule"`
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
	// spawn, if set, starts the workers instead of worker processes: the
	// package's tests run fake workers in the test process with it.
	spawn spawnFunc
}

// DefaultConfig is the configuration of "train run" without flags, for
// Ocvist version.
func DefaultConfig(version string) Config {
	return Config{
		DB:       DefaultDB,
		Duration: time.Minute,
		Workers:  runtime.NumCPU(),
		Game: GameConfig{
			Rule: gomoku.Freestyle, Radius: 2, MaxPly: gomoku.NumCells,
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

// Validate checks c: its fields out of range as field errors (named as
// in Config: "Workers", "Prune.MinGames", "Game.Radius"), and the
// database's place.
func (c *Config) Validate() error {
	return errors.Join(
		c.checkDB(),
		field.Check(c.Games >= 0, "Games", c.Games, "at least 0"),
		field.Check(c.Duration >= 0, "Duration", c.Duration, "at least 0"),
		field.Check(c.Games > 0 || c.Duration > 0, "Duration", c.Duration, "a limit: some games or some time (or both)"),
		field.Check(c.Workers >= 1 && c.Workers <= 256, "Workers", c.Workers, "in 1..256"),
		field.In("Prune", c.Prune.Validate()),
		field.Check(c.PruneEvery > 0, "PruneEvery", c.PruneEvery, "more than 0"),
		field.In("Conclude", c.Conclude.Validate()),
		field.Check(c.Progress > 0, "Progress", c.Progress, "more than 0"),
		field.In("Game", c.Game.Validate()))
}

// checkDB checks that DB names a place where a database can be.
func (c *Config) checkDB() error {
	if c.DB == "" {
		return field.Check(false, "DB", `""`, "a database file or URL")
	}
	if backend.IsURL(c.DB) {
		return nil
	}
	if fi, err := os.Stat(c.DB); err == nil && fi.IsDir() {
		return field.Check(false, "DB", c.DB, "a database file, but it is a directory")
	}
	dir := filepath.Dir(c.DB)
	if dir == "." {
		return nil
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return field.Check(false, "DB", c.DB, fmt.Sprintf("a file in a directory (%s is not one)", dir))
	} else if err != nil && c.Game.Store {
		return field.Check(false, "DB", c.DB, fmt.Sprintf("a file in a directory that exists (%s does not exist: create it first)", dir))
	}
	return nil
}

// Validate checks the game configuration, its files included: fields out
// of range as field errors named as in GameConfig.
func (g *GameConfig) Validate() error {
	errs := []error{
		field.Check(g.Rule.Valid(), "Rule", g.Rule, "freestyle, standard or renju"),
		field.Check(g.Radius >= 1 && g.Radius <= gomoku.MaxRadius, "Radius", g.Radius, fmt.Sprintf("in 1..%d", gomoku.MaxRadius)),
		field.Check(g.MaxPly >= 1 && g.MaxPly <= gomoku.NumCells, "MaxPly", g.MaxPly, fmt.Sprintf("in 1..%d", gomoku.NumCells)),
		field.Check(g.Temperature > 0, "Temperature", g.Temperature, "more than 0"),
		field.Check(g.ShardGames >= 1, "ShardGames", g.ShardGames, "at least 1"),
		field.Check(g.FlushEvery > 0, "FlushEvery", g.FlushEvery, "more than 0"),
	}
	for _, f := range []struct{ name, path string }{{"Openings", g.Openings}, {"Model", g.Model}} {
		if f.path == "" {
			continue
		}
		if fi, err := os.Stat(f.path); err != nil {
			errs = append(errs, field.Check(false, f.name, f.path, "a file that can be read ("+reason(err)+")"))
		} else if fi.IsDir() {
			errs = append(errs, field.Check(false, f.name, f.path, "a file, not a directory"))
		}
	}
	return errors.Join(errs...)
}

// reason is why a file could not be used, without its path.
func reason(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
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
