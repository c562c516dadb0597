package young

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
)

// Run is a row of young_runs: a young run whose positions belong to the
// database, its bytes in young_data (or, in a database of schema 4 read
// without migrating it, a file of the young folder). Born is the
// database's game count after the merge that added it; Bytes its size.
type Run struct {
	Name                   string
	Born                   int64
	Games, Positions, Rows int64
	Bytes                  int64
}

// List returns the young runs, by name.
func List(ctx context.Context, q Querier) ([]Run, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, born, games, positions, rows, bytes FROM young_runs ORDER BY name")
	if err != nil {
		return nil, sqlerr.Classify(err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.Name, &r.Born, &r.Games, &r.Positions, &r.Rows, &r.Bytes); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Open opens a reader of the young run r of the database at path, whose
// bytes are in young_data, in q's transaction. Damage (a run cut short,
// corrupt or missing) is a DamageError.
func Open(ctx context.Context, q Querier, path string, r Run) (*shard.Reader, error) {
	data, err := OpenData(ctx, q, r.Name, r.Bytes)
	if err != nil {
		return nil, Damaged(path, r.Name, err)
	}
	rd, err := shard.NewReader(data, r.Bytes, r.Name)
	if err != nil {
		return nil, Damaged(path, r.Name, err)
	}
	return rd, nil
}

// Name is the name of a young run (the file name it had in the legacy
// young folder).
func Name(prefix, id string) string {
	return prefix + "-" + strings.ReplaceAll(id, "/", "_") + shard.Suffix
}

// Add records the young run r, whose bytes the caller has written as
// r.Name, with its source's id in the ledger and its games' results.
func Add(ctx context.Context, q Querier, r Run, source string, t shard.Counts) error {
	const add = "INSERT INTO young_runs (name, born, games, positions, rows, bytes, source, black_wins, white_wins, draws) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	_, err := q.ExecContext(ctx, add, r.Name, r.Born, r.Games, r.Positions, r.Rows, r.Bytes, source, t.Black, t.White, t.Draws)
	return err
}

// Delete deletes the young run name: its row and its bytes.
func Delete(ctx context.Context, q Querier, name string) error {
	if _, err := q.ExecContext(ctx, "DELETE FROM young_runs WHERE name = ?", name); err != nil {
		return err
	}
	return DeleteData(ctx, q, name)
}

// DeleteData deletes the bytes stored as name (a run's, or those of no run).
func DeleteData(ctx context.Context, q Querier, name string) error {
	_, err := q.ExecContext(ctx, youngDataDelete, name)
	return err
}

// Extra is what young_runs records of a run beyond Run (schema 5): its
// source and its results (not Valid: unknown).
type Extra struct {
	Source              string
	Black, White, Draws sql.NullInt64
}

// Extras reads the source and results of every young run, by name.
func Extras(ctx context.Context, q Querier) (map[string]Extra, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, source, black_wins, white_wins, draws FROM young_runs")
	if err != nil {
		return nil, sqlerr.Classify(err)
	}
	defer rows.Close()
	out := map[string]Extra{}
	for rows.Next() {
		var name string
		var e Extra
		if err := rows.Scan(&name, &e.Source, &e.Black, &e.White, &e.Draws); err != nil {
			return nil, err
		}
		out[name] = e
	}
	return out, rows.Err()
}

// Orphans returns the names in young_data of no young run, each with its
// number of chunks, by name.
func Orphans(ctx context.Context, q Querier) (names []string, chunks []int64, err error) {
	rows, err := q.QueryContext(ctx, "SELECT run, count(*) FROM young_data WHERE run NOT IN (SELECT name FROM young_runs) GROUP BY run ORDER BY run")
	if err != nil {
		return nil, nil, sqlerr.Classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, nil, err
		}
		names, chunks = append(names, name), append(chunks, n)
	}
	return names, chunks, rows.Err()
}

// Correct makes the row of the whole run name say what it holds, f.
func Correct(ctx context.Context, q Querier, name string, f shard.Footer) error {
	const fix = "UPDATE young_runs SET games = ?, positions = ?, rows = ?, black_wins = ?, white_wins = ?, draws = ? WHERE name = ?"
	if _, err := q.ExecContext(ctx, fix, f.Games, f.Positions, f.Rows, f.Black, f.White, f.Draws, name); err != nil {
		return fmt.Errorf("correct young run %s: %w", name, err)
	}
	return nil
}

// Unborn moves the runs born after game born that many games earlier:
// the games of a run born then have been taken out.
func Unborn(ctx context.Context, q Querier, born, games int64) error {
	_, err := q.ExecContext(ctx, "UPDATE young_runs SET born = born - ? WHERE born > ?", games, born)
	return err
}
