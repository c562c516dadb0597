package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
	"ocvist/store/sqlite/internal/young"
)

// CheckConfig sets how thoroughly Check reads the SQLite file.
type CheckConfig struct {
	// Quick runs PRAGMA quick_check instead of integrity_check: it skips
	// checking that the indexes agree with their tables, and takes time
	// linear in the file instead of N log N.
	Quick bool
}

// Problem is one thing Check found wrong.
type Problem struct {
	Text string // one line naming the object and what is wrong with it
	Run  string // the young run concerned (or a run name in young_data), if any
	// Repairable: Repair mends it (drops the young run, corrects its row
	// from it, or deletes bytes that belong to no run).
	Repairable bool
	mend       mendKind
	foot       shard.Footer // mendRow: what the run holds
}

// mendKind is what Repair does about a problem.
type mendKind int

const (
	mendNone   mendKind = iota
	mendDrop            // the run cannot be read: take it out
	mendRow             // the run is whole: its row should say what it holds
	mendOrphan          // young_data rows of a name that is no young run: delete
)

// CheckResult is what Check read and what it found.
type CheckResult struct {
	YoungRuns int   // young runs read through
	Games     int64 // the games of the totals
	Sources   int   // entries of the merge ledger
	Problems  []Problem
}

// maxPragmaProblems bounds the lines kept of SQLite's own check, whose
// problems start with sqliteProblem.
const (
	maxPragmaProblems = 20
	sqliteProblem     = "SQLite file: "
)

// Check verifies the database in one snapshot, without changing it, and
// lists every problem it finds, one line each: SQLite's own check of the
// file (PRAGMA integrity_check, or quick_check with c.Quick); every young
// run read through (its bytes present, its seal, order, checksum and
// footer, every position's id against its key) and its counts and results
// against its young_runs row; the young runs' game ranges (each run holds
// the games merged just before its birth: the ranges lie within the
// totals and do not overlap); the totals' results against their games;
// the ledger (each young run's source listed with its games, every shard
// listed inside a source whose entry is there); bytes of no run. It works
// on a database opened read-only, beside a running job, and on a database
// of schema 4 (young runs in a folder) without migrating it. The error is
// for a check that could not run (a cancelled context, a failing disk),
// not for problems found. It takes time proportional to the database.
func (d *DB) Check(ctx context.Context, c CheckConfig) (CheckResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, err := d.snapshot(ctx)
	if err != nil {
		return CheckResult{}, fmt.Errorf("store: check %q: %w", d.path, err)
	}
	defer s.close()
	pragma := "PRAGMA integrity_check"
	if c.Quick {
		pragma = "PRAGMA quick_check"
	}
	res, err := d.check(ctx, s, pragma)
	if err != nil {
		return CheckResult{}, fmt.Errorf("store: check %q: %w", d.path, err)
	}
	return res, nil
}

// check runs every check on the snapshot s, SQLite's own with pragma
// ("": not).
func (d *DB) check(ctx context.Context, s *snapshot, pragma string) (CheckResult, error) {
	var res CheckResult
	add := func(ps []Problem, err error) error {
		res.Problems = append(res.Problems, ps...)
		return err
	}
	if pragma != "" {
		if err := add(pragmaProblems(ctx, s.tx, pragma)); err != nil {
			return res, err
		}
	}
	t, err := readTotals(ctx, s.tx)
	if err != nil {
		return res, err
	}
	res.Games = t.Games
	if t.Black+t.White+t.Draws != t.Games || t.Black < 0 || t.White < 0 || t.Draws < 0 {
		res.Problems = append(res.Problems, Problem{Text: fmt.Sprintf("totals: black %d + white %d + draws %d is not the %d games", t.Black, t.White, t.Draws, t.Games)})
	}
	if err := add(d.runProblems(ctx, s, &res)); err != nil {
		return res, err
	}
	res.Problems = append(res.Problems, rangeProblems(s.set.Runs, t.Games)...)
	if err := add(ledgerProblems(ctx, s, &res)); err != nil {
		return res, err
	}
	if !s.set.Legacy() {
		if err := add(orphanProblems(ctx, s.tx)); err != nil {
			return res, err
		}
	}
	return res, nil
}

// pragmaProblems runs SQLite's integrity or quick check: a line per
// message but "ok".
func pragmaProblems(ctx context.Context, q querier, pragma string) ([]Problem, error) {
	rows, err := q.QueryContext(ctx, pragma)
	if errors.Is(sqlerr.Classify(err), store.ErrCorrupt) {
		return []Problem{{Text: sqliteProblem + err.Error()}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Problem
	n := 0
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		if m == "ok" {
			continue
		}
		if n++; n <= maxPragmaProblems {
			out = append(out, Problem{Text: sqliteProblem + m})
		}
	}
	if err := rows.Err(); errors.Is(sqlerr.Classify(err), store.ErrCorrupt) {
		out = append(out, Problem{Text: sqliteProblem + err.Error()})
	} else if err != nil {
		return nil, err
	}
	if n > maxPragmaProblems {
		out = append(out, Problem{Text: fmt.Sprintf("%s%d more messages of %s", sqliteProblem, n-maxPragmaProblems, pragma)})
	}
	return out, nil
}

// readTotals reads the totals row.
func readTotals(ctx context.Context, q querier) (shard.Counts, error) {
	var t shard.Counts
	err := q.QueryRowContext(ctx, "SELECT games, black_wins, white_wins, draws FROM totals WHERE id = 1").Scan(&t.Games, &t.Black, &t.White, &t.Draws)
	return t, sqlerr.Classify(err)
}

// runProblems reads every young run of s through and compares it with its
// row.
func (d *DB) runProblems(ctx context.Context, s *snapshot, res *CheckResult) ([]Problem, error) {
	extras := map[string]young.Extra{}
	if !s.set.Legacy() {
		var err error
		if extras, err = young.Extras(ctx, s.tx); err != nil {
			return nil, err
		}
	}
	var out []Problem
	for i, run := range s.set.Runs {
		foot, err := s.set.Verify(i)
		var de *store.DamageError
		if errors.As(err, &de) {
			out = append(out, Problem{Text: de.Error(), Run: run.Name, Repairable: true, mend: mendDrop})
			continue
		}
		if err != nil {
			return out, err
		}
		res.YoungRuns++
		if p := footProblem(run, extras[run.Name], foot, !s.set.Legacy()); p != "" {
			out = append(out, Problem{Text: "young run " + run.Name + ": " + p, Run: run.Name, Repairable: true, mend: mendRow, foot: foot})
		}
	}
	return out, nil
}

// footProblem compares a run's footer with its row (and its results, when
// the schema has them: extra): "" when they agree.
func footProblem(run young.Run, e young.Extra, f shard.Footer, extra bool) string {
	if f.Games != run.Games || f.Positions != run.Positions || f.Rows != run.Rows {
		return fmt.Sprintf("holds %d games, %d positions and %d move rows; young_runs says %d, %d and %d",
			f.Games, f.Positions, f.Rows, run.Games, run.Positions, run.Rows)
	}
	if extra && !(e.Black.Valid && e.White.Valid && e.Draws.Valid) {
		return fmt.Sprintf("holds results %d/%d/%d (black/white/draws); young_runs does not record them", f.Black, f.White, f.Draws)
	}
	if e.Black.Valid && (e.Black.Int64 != f.Black || e.White.Int64 != f.White || e.Draws.Int64 != f.Draws) {
		return fmt.Sprintf("holds results %d/%d/%d (black/white/draws); young_runs says %d/%d/%d",
			f.Black, f.White, f.Draws, e.Black.Int64, e.White.Int64, e.Draws.Int64)
	}
	return ""
}

// rangeProblems checks the young runs' game ranges: the run born at game
// b with g games holds games b−g+1 … b, all within the totals' games,
// and no two runs share a game.
func rangeProblems(runs []young.Run, games int64) []Problem {
	rs := slices.Clone(runs)
	slices.SortFunc(rs, func(a, b young.Run) int { return cmp.Compare(a.Born, b.Born) })
	var out []Problem
	var last young.Run
	for i, r := range rs {
		switch {
		case r.Games < 0 || r.Born-r.Games < 0 || r.Born > games:
			out = append(out, Problem{Text: fmt.Sprintf("young run %s: holds games %d to %d, outside the database's %d games", r.Name, r.Born-r.Games+1, r.Born, games)})
		case i > 0 && r.Born-r.Games < last.Born:
			out = append(out, Problem{Text: fmt.Sprintf("young runs %s and %s: both hold games %d to %d", last.Name, r.Name, r.Born-r.Games+1, last.Born)})
		}
		last = r
	}
	return out
}

// ledgerProblems checks the merge ledger: every shard listed inside a
// source has that source's entry, and each young run's source is in it
// with the run's games (when young_runs records the source).
func ledgerProblems(ctx context.Context, s *snapshot, res *CheckResult) ([]Problem, error) {
	if err := s.tx.QueryRowContext(ctx, "SELECT count(*) FROM merged_shards").Scan(&res.Sources); err != nil {
		return nil, sqlerr.Classify(err)
	}
	const dangling = `SELECT shard_id, via FROM merged_shards WHERE via != '' AND via NOT IN (SELECT shard_id FROM merged_shards WHERE via = '') ORDER BY shard_id`
	out, err := queryProblems(ctx, s.tx, dangling, func(scan func(...any) error) (string, error) {
		var id, via string
		err := scan(&id, &via)
		return fmt.Sprintf("ledger: shard %s is listed inside source %s, which is not in the ledger", id, via), err
	})
	if err != nil || s.set.Legacy() {
		return out, err
	}
	const sources = `SELECT y.name, y.source, y.games, m.games FROM young_runs y LEFT JOIN merged_shards m ON m.shard_id = y.source AND m.via = ''
		WHERE y.source != '' AND (m.games IS NULL OR m.games != y.games) ORDER BY y.name`
	more, err := queryProblems(ctx, s.tx, sources, func(scan func(...any) error) (string, error) {
		var name, source string
		var games int64
		var ledger sql.NullInt64
		if err := scan(&name, &source, &games, &ledger); err != nil || !ledger.Valid {
			return fmt.Sprintf("ledger: source %s of young run %s is not in it", source, name), err
		}
		return fmt.Sprintf("ledger: source %s of young run %s has %d games, the run %d", source, name, ledger.Int64, games), nil
	})
	return append(out, more...), err
}

// queryProblems runs query and makes a problem of each row with line.
func queryProblems(ctx context.Context, q querier, query string, line func(scan func(...any) error) (string, error)) ([]Problem, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, sqlerr.Classify(err)
	}
	defer rows.Close()
	var out []Problem
	for rows.Next() {
		text, err := line(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, Problem{Text: text})
	}
	return out, rows.Err()
}

// orphanProblems finds young_data rows of runs that young_runs does not
// list.
func orphanProblems(ctx context.Context, q querier) ([]Problem, error) {
	names, chunks, err := young.Orphans(ctx, q)
	var out []Problem
	for i, name := range names {
		out = append(out, Problem{Text: fmt.Sprintf("young data: %d chunks of %s, which is not a young run", chunks[i], name), Run: name, Repairable: true, mend: mendOrphan})
	}
	return out, err
}
