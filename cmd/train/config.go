package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"ocvist/coordinator"
	"ocvist/gomoku"
	"ocvist/internal/cli"
	"ocvist/internal/field"
)

// defaultDB is where the main job keeps its statistics.
const defaultDB = coordinator.DefaultDB

// defaultRunConfig is "train run"'s configuration before its flags.
func defaultRunConfig() coordinator.Config { return coordinator.DefaultConfig(cli.Version) }

// registerRun binds the flags of "train run" to c.
func registerRun(fs *flag.FlagSet, c *coordinator.Config) {
	fs.StringVar(&c.DB, "db", c.DB, "database `file` (created if absent; an existing one is continued)")
	fs.IntVar(&c.Games, "games", c.Games, "stop after this many games (0: no game limit; then -duration applies)")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "stop after this long (0: no time limit; needs -games); with -games alone, no time limit")
	fs.IntVar(&c.Workers, "workers", c.Workers, "worker processes (as many as the machine has cores unless given)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "random seed (0 or absent: drawn from the clock, printed and recorded)")
	fs.TextVar(&c.Game.Rule, "rule", c.Game.Rule, "rule: freestyle (five or more wins), standard (exactly five) or renju (RIF: Black exactly five and no forbidden point)")
	fs.IntVar(&c.Game.Radius, "radius", c.Game.Radius, fmt.Sprintf("candidate radius around stones, 1..%d", gomoku.MaxRadius))
	fs.IntVar(&c.Game.MaxPly, "max-ply", c.Game.MaxPly, "ply limit: a game still going after this many stones is a draw")
	fs.StringVar(&c.Game.Openings, "openings", c.Game.Openings, "opening set `file` (Gomocup offset format); default: every game starts in the centre")
	fs.StringVar(&c.Game.Model, "model", c.Game.Model, "policy model `file` (default: generation 0, uniform among the filter's candidates)")
	fs.Float64Var(&c.Game.Temperature, "temperature", c.Game.Temperature, "sampling temperature of the model policy (> 0)")
	fs.IntVar(&c.Game.ShardGames, "shard-games", c.Game.ShardGames, "games a worker aggregates in memory before publishing a shard")
	fs.DurationVar(&c.Game.FlushEvery, "flush-every", c.Game.FlushEvery, "publish a worker's shard at least this often")
	fs.Int64Var(&c.Prune.MinGames, "prune-min", c.Prune.MinGames, "a position seen in this many games is kept for good (promoted)")
	fs.Int64Var(&c.Prune.Age, "prune-age", c.Prune.Age, "positions still below -prune-min this many games after they were merged are dropped (their blacklisted moves are kept)")
	fs.DurationVar(&c.PruneEvery, "prune-every", c.PruneEvery, "with a PostgreSQL -db, prune this often while the workers play (beside the merges; each prune takes the server's maintenance lock, which every machine shares)")
	fs.BoolVar(&c.Game.Store, "store", c.Game.Store, "store the games (false: play in memory only, to measure what storing costs)")
	fs.Int64Var(&c.Conclude.MinGames, "conclude-min-games", c.Conclude.MinGames, "conclude: games a move needs before it can be blacklisted")
	fs.Float64Var(&c.Conclude.Margin, "conclude-margin", c.Conclude.Margin, "conclude: blacklist when the mean weight is this far below the best sibling's")
	fs.Float64Var(&c.Conclude.MaxMean, "conclude-max-mean", c.Conclude.MaxMean, "conclude: and the mean weight is below this")
	fs.Var(&c.Backlog, "backlog", "`size` of shards waiting to be merged (on local disk) at which each worker waits after its next shard until the merges bring it to half (e.g. 500MiB; 0: no bound; auto: 2GiB, or half the free disk space if that is less)")
	fs.DurationVar(&c.Progress, "progress", c.Progress, "interval of plain progress lines when stderr is not a terminal")
}

// runFlags names the fields of coordinator.Config by their flags of
// "train run" (registerRun), for its errors (field.Named).
var runFlags = map[string]string{
	"DB": "-db", "Games": "-games", "Duration": "-duration", "Workers": "-workers",
	"Game.Rule": "-rule", "Game.Radius": "-radius", "Game.MaxPly": "-max-ply", "Game.Openings": "-openings",
	"Game.Model": "-model", "Game.Temperature": "-temperature", "Game.ShardGames": "-shard-games",
	"Game.FlushEvery": "-flush-every", "Prune.MinGames": "-prune-min", "Prune.Age": "-prune-age",
	"PruneEvery": "-prune-every", "Conclude.MinGames": "-conclude-min-games", "Conclude.Margin": "-conclude-margin",
	"Conclude.MaxMean": "-conclude-max-mean", "Progress": "-progress",
}

// pruneFlags and concludeFlags name store.PruneConfig's and
// store.ConcludeConfig's fields by the flags of "train prune" and "train
// conclude".
var (
	pruneFlags    = map[string]string{"MinGames": "-min", "Age": "-age"}
	concludeFlags = map[string]string{"MinGames": "-min-games", "Margin": "-margin", "MaxMean": "-max-mean"}
)

// completeRunConfig finishes c after its flags were parsed: -games alone
// means no time limit; the default database needs the repository's data/
// folder. It checks c, naming its flags (a usageError if wrong).
func completeRunConfig(c *coordinator.Config, fs *flag.FlagSet) error {
	if c.Games > 0 && !flagSet(fs, "duration") {
		c.Duration = 0
	}
	if dir := filepath.Dir(c.DB); !flagSet(fs, "db") && c.Game.Store {
		if _, err := os.Stat(dir); err != nil {
			return usageError{fmt.Sprintf("no %s/ directory here for the default database %s: run from the repository root or name one with -db", dir, c.DB)}
		}
	}
	if err := c.Validate(); err != nil {
		return usageError{field.Named(err, runFlags).Error()}
	}
	return nil
}
