package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"ocvist/store"
)

const mergeAbout = `
Merge shard files (or whole databases) produced anywhere — another worker,
another machine, another run — into -db. Counts are added exactly; every
merged file is recorded in a ledger, so merging the same file twice changes
nothing. A file of another rule, key version or schema, or a damaged one, is
refused with nothing changed. The target is created (with the first
source's rule) if it does not exist. Sources are never modified.`

func mergeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "-db OUT SHARD...", mergeAbout, stderr)
	dbPath := fs.String("db", defaultDB, "target database `file`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"merge: name at least one shard or database to merge (see -h)"}
	}
	db, err := openForMerge(*dbPath, fs.Arg(0))
	if err != nil {
		return err
	}
	defer db.Close()
	var games int64
	for _, src := range fs.Args() {
		res, err := db.Merge(ctx, src)
		if err != nil {
			return err
		}
		if res.AlreadyMerged {
			fmt.Fprintf(stdout, "%s: already merged (shard %s), nothing changed\n", src, res.ShardID)
			continue
		}
		games += res.Games
		fmt.Fprintf(stdout, "%s: merged %d games, %d move rows, %d position rows\n", src, res.Games, res.Moves, res.Positions)
	}
	if err := db.Checkpoint(ctx); err != nil {
		return err
	}
	st, err := db.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: +%d games, now %d games, %d positions, %d moves\n", *dbPath, games, st.Games, st.Positions, st.Moves)
	return nil
}

// openForMerge opens the merge target, creating it with the configuration
// of the first source when it does not exist yet.
func openForMerge(target, firstSource string) (*store.DB, error) {
	if _, err := os.Stat(target); err == nil {
		return store.OpenExisting(target)
	}
	src, err := store.OpenReadOnly(firstSource)
	if err != nil {
		return nil, err
	}
	cfg := src.Config()
	src.Close()
	return store.Open(target, cfg)
}

const pruneAbout = `
Delete positions seen in fewer than -min games, with their moves. Prune only
merged data: a worker's shard sees too few games to judge.`

func pruneCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("prune", "[-db FILE] [-min N]", pruneAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	minGames := fs.Int64("min", store.DefaultPruneMinGames, "keep positions seen in at least this many games")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *minGames < 1 {
		return usageError{fmt.Sprintf("prune: -min %d must be at least 1", *minGames)}
	}
	db, err := openExistingDB(*dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.Prune(ctx, *minGames)
	if err != nil {
		return err
	}
	if err := db.Vacuum(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pruned %d positions and %d moves seen in fewer than %d games\n", res.Positions, res.Moves, *minGames)
	return nil
}

const concludeAbout = `
Blacklist moves whose statistics are clearly bad: at least -min-games games,
a mean weight more than -margin below the best sibling's (siblings: the
position's other moves with at least -min-games games), and below -max-mean.
Self-play never chooses a blacklisted move while another candidate exists.`

func concludeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("conclude", "[-db FILE] [flags]", concludeAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	c := store.DefaultConclude
	fs.Int64Var(&c.MinGames, "min-games", c.MinGames, "games a move needs before it can be judged")
	fs.Float64Var(&c.Margin, "margin", c.Margin, "how far below the best sibling's mean weight")
	fs.Float64Var(&c.MaxMean, "max-mean", c.MaxMean, "mean weight must also be below this")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return usageError{err.Error()}
	}
	db, err := openExistingDB(*dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := db.Conclude(ctx, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "blacklisted %d moves\n", n)
	return nil
}

const statsAbout = `Print a database's counts: games by result, positions, moves, blacklisted
moves, merged shards, rule, key and schema versions, file size.`

func statsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("stats", "[-db FILE] [-json]", statsAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	db, err := openReadOnlyDB(*dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := db.Stats(ctx)
	if err != nil {
		return err
	}
	gens, err := db.Generations(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			store.Stats
			GenerationList []generationJSON `json:"generation_list"`
		}{st, generationsJSON(gens)})
	}
	fmt.Fprintf(stdout, "database        %s\nrule            %s\nkey version     %d\nschema version  %d\n",
		*dbPath, st.Rule, st.KeyVersion, st.SchemaVersion)
	fmt.Fprintf(stdout, "games           %d (black %d, white %d, draws %d)\npositions       %d\nmoves           %d\nblacklisted     %d\nmerged shards   %d\nsize            %s\n",
		st.Games, st.BlackWins, st.WhiteWins, st.Draws, st.Positions, st.Moves, st.Blacklisted, st.MergedShards, humanBytes(st.FileBytes))
	if len(gens) > 0 {
		fmt.Fprintf(stdout, "\n%4s %10s %9s %8s %7s  %-22s %s\n", "gen", "games", "rows", "fit s", "AUC", "gate score [95%]", "model")
		for _, g := range gens {
			fmt.Fprintf(stdout, "%4d %10d %9d %8.1f %7.4f  %.3f [%.3f, %.3f]   %s\n",
				g.Gen, g.Games, g.Rows, g.FitSeconds, g.AUC, g.Score, g.ScoreLow, g.ScoreHigh, g.Model)
		}
	}
	return nil
}

// generationJSON is a generation as "stats -json" prints it.
type generationJSON struct {
	Gen        int     `json:"gen"`
	Games      int64   `json:"games"`
	Rows       int64   `json:"rows"`
	FitSeconds float64 `json:"fit_seconds"`
	AUC        float64 `json:"auc"`
	Score      float64 `json:"score"`
	ScoreLow   float64 `json:"score_low"`
	ScoreHigh  float64 `json:"score_high"`
	Model      string  `json:"model"`
	Seed       int64   `json:"seed"`
	Created    string  `json:"created"`
}

func generationsJSON(gens []store.Generation) []generationJSON {
	out := make([]generationJSON, len(gens))
	for i, g := range gens {
		out[i] = generationJSON(g)
	}
	return out
}

const exportAbout = `Write every (position, move) statistic as CSV, sorted by key and move:
key, mx, my, wsum, games, blacklisted, position games.`

func exportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", "[-db FILE] [-o FILE]", exportAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	out := fs.String("o", "-", "output `file` (- for standard output)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	db, err := openReadOnlyDB(*dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	w, closeOut := stdout, func() error { return nil }
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		w, closeOut = f, f.Close
	}
	bw := bufio.NewWriter(w)
	err = db.Export(ctx, bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

// openExistingDB opens a database that must exist (never creating one).
func openExistingDB(path string) (*store.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return store.OpenExisting(path)
}

func openReadOnlyDB(path string) (*store.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return store.OpenReadOnly(path)
}
