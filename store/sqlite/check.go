package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"ocvist/store"
	"ocvist/store/shard"
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
	res.Problems = append(res.Problems, rangeProblems(s.runs, t.Games)...)
	if err := add(ledgerProblems(ctx, s, &res)); err != nil {
		return res, err
	}
	if !s.legacy {
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
	if errors.Is(classify(err), store.ErrCorrupt) {
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
	if err := rows.Err(); errors.Is(classify(err), store.ErrCorrupt) {
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
	return t, classify(err)
}

// runExtra is what young_runs records of a run beyond listYoung's
// columns (schema 5): its source and its results (nil: unknown).
type runExtra struct {
	source              string
	black, white, draws sql.NullInt64
}

// youngExtras reads the source and results of every young run.
func youngExtras(ctx context.Context, q querier) (map[string]runExtra, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, source, black_wins, white_wins, draws FROM young_runs")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[string]runExtra{}
	for rows.Next() {
		var name string
		var e runExtra
		if err := rows.Scan(&name, &e.source, &e.black, &e.white, &e.draws); err != nil {
			return nil, err
		}
		out[name] = e
	}
	return out, rows.Err()
}

// runProblems reads every young run of s through and compares it with its
// row.
func (d *DB) runProblems(ctx context.Context, s *snapshot, res *CheckResult) ([]Problem, error) {
	extras := map[string]runExtra{}
	if !s.legacy {
		var err error
		if extras, err = youngExtras(ctx, s.tx); err != nil {
			return nil, err
		}
	}
	var out []Problem
	for i, run := range s.runs {
		foot, err := readThrough(s, i)
		var de *store.DamageError
		if errors.As(err, &de) {
			out = append(out, Problem{Text: de.Error(), Run: run.name, Repairable: true, mend: mendDrop})
			continue
		}
		if err != nil {
			return out, err
		}
		res.YoungRuns++
		if p := footProblem(run, extras[run.name], foot, !s.legacy); p != "" {
			out = append(out, Problem{Text: "young run " + run.name + ": " + p, Run: run.name, Repairable: true, mend: mendRow, foot: foot})
		}
	}
	return out, nil
}

// readThrough reads the young run i of s through, checking everything a
// run holds (ids against keys too), and returns its footer.
func readThrough(s *snapshot, i int) (shard.Footer, error) {
	r, err := s.run(i)
	if err != nil {
		return shard.Footer{}, err
	}
	r.Strict = true
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := s.ctx.Err(); err != nil {
				return shard.Footer{}, err
			}
		}
		p, err := r.Next()
		if err != nil {
			return shard.Footer{}, damaged(s.path, s.runs[i].name, err)
		}
		if p == nil {
			break
		}
	}
	if r.Header.Kind == shard.KindShard || r.Header.Kind == shard.KindExport {
		return r.Footer, nil
	}
	return r.Footer, damaged(s.path, s.runs[i].name, fmt.Errorf("%w: a young run of kind %q", store.ErrCorrupt, r.Header.Kind))
}

// footProblem compares a run's footer with its row (and its results, when
// the schema has them: extra): "" when they agree.
func footProblem(run youngRun, e runExtra, f shard.Footer, extra bool) string {
	if f.Games != run.games || f.Positions != run.positions || f.Rows != run.rows {
		return fmt.Sprintf("holds %d games, %d positions and %d move rows; young_runs says %d, %d and %d",
			f.Games, f.Positions, f.Rows, run.games, run.positions, run.rows)
	}
	if extra && !(e.black.Valid && e.white.Valid && e.draws.Valid) {
		return fmt.Sprintf("holds results %d/%d/%d (black/white/draws); young_runs does not record them", f.Black, f.White, f.Draws)
	}
	if e.black.Valid && (e.black.Int64 != f.Black || e.white.Int64 != f.White || e.draws.Int64 != f.Draws) {
		return fmt.Sprintf("holds results %d/%d/%d (black/white/draws); young_runs says %d/%d/%d",
			f.Black, f.White, f.Draws, e.black.Int64, e.white.Int64, e.draws.Int64)
	}
	return ""
}

// rangeProblems checks the young runs' game ranges: the run born at game
// b with g games holds games b−g+1 … b, all within the totals' games,
// and no two runs share a game.
func rangeProblems(runs []youngRun, games int64) []Problem {
	rs := slices.Clone(runs)
	slices.SortFunc(rs, func(a, b youngRun) int { return cmpInt(a.born, b.born) })
	var out []Problem
	var last youngRun
	for i, r := range rs {
		switch {
		case r.games < 0 || r.born-r.games < 0 || r.born > games:
			out = append(out, Problem{Text: fmt.Sprintf("young run %s: holds games %d to %d, outside the database's %d games", r.name, r.born-r.games+1, r.born, games)})
		case i > 0 && r.born-r.games < last.born:
			out = append(out, Problem{Text: fmt.Sprintf("young runs %s and %s: both hold games %d to %d", last.name, r.name, r.born-r.games+1, last.born)})
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
		return nil, classify(err)
	}
	const dangling = `SELECT shard_id, via FROM merged_shards WHERE via != '' AND via NOT IN (SELECT shard_id FROM merged_shards WHERE via = '') ORDER BY shard_id`
	out, err := queryProblems(ctx, s.tx, dangling, func(scan func(...any) error) (string, error) {
		var id, via string
		err := scan(&id, &via)
		return fmt.Sprintf("ledger: shard %s is listed inside source %s, which is not in the ledger", id, via), err
	})
	if err != nil || s.legacy {
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
		return nil, classify(err)
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
	rows, err := q.QueryContext(ctx, "SELECT run, count(*) FROM young_data WHERE run NOT IN (SELECT name FROM young_runs) GROUP BY run ORDER BY run")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []Problem
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		out = append(out, Problem{Text: fmt.Sprintf("young data: %d chunks of %s, which is not a young run", n, name), Run: name, Repairable: true, mend: mendOrphan})
	}
	return out, rows.Err()
}
