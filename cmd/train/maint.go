package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"ocvist/coordinator"
	"ocvist/internal/field"
	"ocvist/store"
	"ocvist/store/backend"
)

const mergeAbout = `
Merge sealed shard files, sealed exports (train export -sealed) or whole
databases produced anywhere (another worker, another machine, another run)
into -db. Counts are added exactly, once: every merged source is recorded
in a ledger with its seal, so merging the same source again changes
nothing, while a database that has grown or been pruned since it was merged
is refused (its new games cannot be told apart), as is a database that a
job is still writing. A file of another rule, key version or format, an
unsealed shard or a damaged file is refused with nothing changed; merging
stops there and names the sources it did not merge. The target is created
(with the first source's rule) if it does not exist. Sources are never
modified.`

func mergeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "[-db OUT] SOURCE...", mergeAbout, stderr)
	dbPath := fs.String("db", defaultDB, "target database `file`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"merge: name at least one shard or database to merge (see -h)"}
	}
	db, err := backend.OpenForMerge(*dbPath, fs.Arg(0))
	if err != nil {
		return err
	}
	defer db.Close()
	var games int64
	for i, src := range fs.Args() {
		res, err := db.Merge(ctx, src)
		if err != nil {
			if rest := fs.Args()[i+1:]; len(rest) > 0 {
				return fmt.Errorf("%w; not merged: %s (the %d before it are)", err, strings.Join(rest, ", "), i)
			}
			return err
		}
		if res.AlreadyMerged {
			fmt.Fprintf(stdout, "%s: already merged in this state (%s), nothing changed\n", src, res.ShardID)
			continue
		}
		games += res.Games
		fmt.Fprintf(stdout, "%s: merged %d games, %d positions, %d move rows\n", src, res.Games, res.Positions, res.Moves)
	}
	if err := db.Checkpoint(ctx); err != nil {
		return err
	}
	st, err := db.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: +%d games, now %d games, %d positions, %d moves (prune folds the new ones in)\n", *dbPath, games, st.Games, st.Positions, st.Moves)
	return nil
}

const pruneAbout = `
Expire the database's young runs merged at least -age games ago: their
positions still seen in fewer than -min games are dropped (their blacklisted
moves are kept), those promoted since join the moves table. Positions reach
the moves table as soon as they are seen in -min games. What is dropped
depends only on counts and ages, never on when pruning ran. Shards that a
stopped or crashed run left waiting are merged first (never those of a job
still running). A PostgreSQL prune expires the runs in batches, each its own
transaction: Ctrl-C stops it within a second, keeping the batches done.`

func pruneCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("prune", "[-db FILE] [-min N] [-age GAMES]", pruneAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	c := store.DefaultPrune()
	fs.Int64Var(&c.MinGames, "min", c.MinGames, "keep positions seen in at least this many games")
	fs.Int64Var(&c.Age, "age", c.Age, "expire young runs merged this many games ago (0: all)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return usageError{"prune: " + field.Named(err, pruneFlags).Error()}
	}
	db, err := backend.OpenExistingAt(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := coordinator.AdoptShards(ctx, db, coordinator.ShardDir(*dbPath))
	coordinator.ReportAdopted(stderr, a)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "pruning: expiring young runs older than %d games\n", c.Age)
	c.Progress = func(p store.PruneProgress) {
		switch {
		case p.Counting:
			fmt.Fprintln(stderr, "pruning: counting the positions")
		case p.Batches > 1:
			fmt.Fprintf(stderr, "pruning: batch %d of %d (%d of %d young rows expired so far)\n", p.Batch, p.Batches, p.Rows, p.TotalRows)
		}
	}
	res, err := db.Prune(ctx, c)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("prune stopped: %d young run(s) expired before the stop, %d left; run prune again to finish: %w", res.Runs, res.YoungRuns, ctx.Err())
		}
		return err
	}
	if err := db.Checkpoint(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pruned: %d young run(s) expired, %d positions dropped with %d moves (%d blacklisted moves kept); %d promoted positions, %d young in %d run(s)\n",
		res.Runs, res.Positions, res.Moves, res.Blacklisted, res.Mature, res.Young, res.YoungRuns)
	return nil
}

const concludeAbout = `
Blacklist moves whose statistics are clearly bad: at least -min-games games,
a mean weight more than -margin below the best sibling's (siblings: the
position's other moves with at least -min-games games), and below -max-mean.
Self-play never chooses a blacklisted move while another candidate exists.
Only positions promoted by a prune are judged.`

func concludeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("conclude", "[-db FILE] [flags]", concludeAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	c := store.DefaultConclude()
	fs.Int64Var(&c.MinGames, "min-games", c.MinGames, "games a move needs before it can be judged")
	fs.Float64Var(&c.Margin, "margin", c.Margin, "how far below the best sibling's mean weight")
	fs.Float64Var(&c.MaxMean, "max-mean", c.MaxMean, "mean weight must also be below this")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return usageError{"conclude: " + field.Named(err, concludeFlags).Error()}
	}
	db, err := backend.OpenExistingAt(ctx, *dbPath)
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

const statsAbout = `Print a database's counts: games by result, the learning loop's teacher
games (those of its recorded generations, and of one under way or stopped),
positions (young ones too), moves, blacklisted moves, merged shards, rule,
key and schema versions, size on disk, and the generations recorded. It only
reads, so it works beside a running job and in a read-only directory.`

func statsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("stats", "[-db FILE] [-json]", statsAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	db, err := backend.OpenReadOnlyAt(ctx, *dbPath)
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
			GenerationList []store.Generation `json:"generation_list"`
		}{st, append([]store.Generation{}, gens...)})
	}
	fmt.Fprintf(stdout, "database        %s\nrule            %s\nkey version     %d\nschema version  %d\n",
		*dbPath, st.Rule, st.KeyVersion, st.SchemaVersion)
	fmt.Fprintf(stdout, "games           %d (black %d, white %d, draws %d)\n", st.Games, st.BlackWins, st.WhiteWins, st.Draws)
	if line := teacherGamesLine(st.TeacherGames, gens); line != "" {
		fmt.Fprintf(stdout, "teacher games   %s\n", line)
	}
	fmt.Fprintf(stdout, "positions       %d (%d young, in %d runs)\nmoves           %d\nblacklisted     %d (%d kept from pruned positions)\nmerged shards   %d\nsize            %s\n",
		st.Positions, st.Young, st.YoungRuns, st.Moves, st.Blacklisted, st.PrunedBlack, st.MergedShards, coordinator.HumanBytes(st.FileBytes))
	if len(gens) > 0 {
		fmt.Fprintf(stdout, "\n%4s %10s %9s %8s %7s  %-22s %s\n", "gen", "games", "rows", "fit s", "AUC", "gate score [95%]", "model")
		for _, g := range gens {
			fmt.Fprintf(stdout, "%4d %10d %9d %8.1f %7.4f  %.3f [%.3f, %.3f]   %s\n",
				g.Gen, g.Games, g.Rows, g.FitSeconds, g.AUC, g.Score, g.ScoreLow, g.ScoreHigh, g.Model)
		}
	}
	return nil
}

// teacherGamesLine tells the learning loop's games stored (total) apart
// by the generations recorded (those with the loop's details; "train run"
// records its own without): the games of a generation under way, or
// stopped before its record, are in none yet. "" when the loop has neither.
func teacherGamesLine(total int64, gens []store.Generation) string {
	var in, n int64
	for _, g := range gens {
		if g.Details != "" {
			in, n = in+g.Games, n+1
		}
	}
	if total == 0 && n == 0 {
		return ""
	}
	gen := "generations"
	if n == 1 {
		gen = "generation"
	}
	switch rest := total - in; {
	case rest < 0: // the records count more games than are stored: say only what is stored
		return fmt.Sprintf("%d (the learning loop's, over %d %s; not in games)", total, n, gen)
	case rest == 0:
		return fmt.Sprintf("%d (the learning loop's, in %d %s; not in games)", total, n, gen)
	case n == 0:
		return fmt.Sprintf("%d (the learning loop's, of a generation under way or stopped, not recorded yet; not in games)", total)
	default:
		return fmt.Sprintf("%d (the learning loop's: %d in %d %s, %d of a generation under way or stopped, not recorded yet; not in games)",
			total, in, n, gen, rest)
	}
}

const exportAbout = `Write every (position, move) statistic as CSV, grouped by position (in the
order of the store's position ids) and sorted by move: key, mx, my, wsum,
games, blacklisted, position games. With -sealed FILE, write instead a
sealed export, which "train merge" accepts anywhere and counts exactly once.`

func exportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", "[-db FILE] [-o FILE]", exportAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	out := fs.String("o", "-", "output `file` (- for standard output)")
	sealed := fs.String("sealed", "", "write a sealed export run `file` (must not exist) instead of CSV")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	db, err := backend.OpenReadOnlyAt(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if *sealed != "" {
		if err := db.ExportRun(ctx, *sealed); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *sealed)
		return nil
	}
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
