package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"ocvist/store"
	"ocvist/store/backend"
	"ocvist/store/sqlite"
)

const checkAbout = `
Check a database: SQLite's own integrity check of the file (-quick: the
faster quick check), every young run read through (its bytes present, its
seal, checksum, order and counts, against what the database recorded of it),
the young runs' game ranges against the totals, the totals' results, and the
merge ledger. It prints one line per problem and exits 1 if there is any. It
only reads, so it works beside a running job and in a read-only directory.

With -repair (no job may be writing the database) it drops what cannot be
read: each damaged young run comes out as if it had never been merged (its
games off the totals, its source out of the ledger, so that the source, if
you still have it, can be merged again), and it says how many games,
positions and move rows it dropped. Everything else stays as it is; stats,
run, export and merge work again. A damaged SQLite file cannot be repaired:
restore a copy. For SQLite database files only: a PostgreSQL server keeps
its young rows in plain tables and checks its own pages.`

func checkCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", "[-db FILE] [-repair] [-quick]", checkAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	repair := fs.Bool("repair", false, "drop what cannot be read and fix the totals and the ledger")
	quick := fs.Bool("quick", false, "run SQLite's quick check instead of its full integrity check")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if backend.IsURL(*dbPath) {
		return errors.New("check: applies to SQLite database files only, not to a PostgreSQL URL (a server checks its own pages, and its young rows are plain table rows)")
	}
	if *repair {
		return repairDB(ctx, *dbPath, stdout)
	}
	db, err := sqlite.OpenReadOnly(*dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.Check(ctx, sqlite.CheckConfig{Quick: *quick})
	if err != nil {
		return err
	}
	for _, p := range res.Problems {
		fmt.Fprintf(stdout, "%s: %s\n", *dbPath, p.Text)
	}
	if len(res.Problems) == 0 {
		fmt.Fprintf(stdout, "%s: ok (%d games; %d young runs read through; %d ledger entries)\n", *dbPath, res.Games, res.YoungRuns, res.Sources)
		return nil
	}
	return problemsError(*dbPath, res.Problems)
}

// problemsError is check's error for the problems found: what repair
// would do about them.
func problemsError(db string, ps []sqlite.Problem) error {
	repairable := 0
	for _, p := range ps {
		if p.Repairable {
			repairable++
		}
	}
	switch repairable {
	case len(ps):
		return fmt.Errorf("check: %s has %d problem(s); run `train check -repair -db %s` to drop what cannot be read", db, len(ps), db)
	case 0:
		return fmt.Errorf("check: %s has %d problem(s) that repair cannot mend; restore a copy", db, len(ps))
	}
	return fmt.Errorf("check: %s has %d problem(s), %d of which `train check -repair -db %s` mends; for the others restore a copy", db, len(ps), repairable, db)
}

// repairDB runs Repair and says what it did.
func repairDB(ctx context.Context, path string, stdout io.Writer) error {
	db, err := sqlite.OpenExisting(path)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.Repair(ctx)
	if err != nil {
		return err
	}
	for _, p := range res.Found {
		fmt.Fprintf(stdout, "%s: %s\n", path, p.Text)
	}
	for _, r := range res.Dropped {
		fmt.Fprintf(stdout, "dropped young run %s: %s\n", r.Name, droppedText(r))
	}
	for _, name := range res.Corrected {
		fmt.Fprintf(stdout, "corrected the record of young run %s from the run itself\n", name)
	}
	if res.Orphans > 0 {
		fmt.Fprintf(stdout, "deleted the bytes of %d run name(s) that are no young run\n", res.Orphans)
	}
	if len(res.Dropped) > 0 {
		fmt.Fprintf(stdout, "repaired %s: dropped %d games, %d positions and %d move rows (%d young run(s)); %d ledger entries removed\n",
			path, res.Games, res.Positions, res.Rows, len(res.Dropped), res.Ledger)
	} else if res.Orphans+len(res.Corrected) > 0 {
		fmt.Fprintf(stdout, "repaired %s: dropped no games\n", path)
	}
	if len(res.Left) > 0 {
		for _, p := range res.Left {
			fmt.Fprintf(stdout, "%s: left: %s\n", path, p.Text)
		}
		return fmt.Errorf("check: %d problem(s) in %s that repair cannot mend; restore a copy", len(res.Left), path)
	}
	if len(res.Found) == 0 {
		fmt.Fprintf(stdout, "%s: ok, nothing to repair\n", path)
	}
	return nil
}

// droppedText describes a dropped young run.
func droppedText(r sqlite.DroppedRun) string {
	s := fmt.Sprintf("%d games (black %d, white %d, draws %d", r.Games, r.Black, r.White, r.Draws)
	if r.Estimated {
		s += ", shared out in proportion: the run's own results were never recorded"
	}
	s += fmt.Sprintf("), %d positions, %d move rows", r.Positions, r.Rows)
	if r.Source != "" {
		s += fmt.Sprintf("; its source %s left the ledger and can be merged again", r.Source)
	} else {
		s += "; its source is unknown and stays in the ledger"
	}
	return s
}

// withRepairHint adds to the error of a command that met a damaged
// database the command that repairs it.
func withRepairHint(err error) error {
	var de *store.DamageError
	if errors.As(err, &de) {
		return fmt.Errorf("%w; run `train check -repair -db %s` to drop what cannot be read", err, de.Path)
	}
	return err
}
