package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"ocvist/store"
	"ocvist/store/shard"
)

// schemaTeacherShards is the SQLite schema from which teacher games come
// through shards: teacher_games has plies, merged_shards a kind, and the
// loop's plans and claims have their tables.
const schemaTeacherShards = 6

// TeacherGames calls fn with the stored games of generations from..to
// (inclusive) in (Gen, Game) order.
func (d *DB) TeacherGames(ctx context.Context, from, to int, fn func(store.TeacherGame) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	plies := "plies"
	if d.schema < schemaTeacherShards {
		plies = "x''"
	}
	rows, err := d.db.QueryContext(ctx, `SELECT gen, game, book, winner, moves, teacher, `+plies+` FROM teacher_games
		WHERE gen BETWEEN ? AND ? ORDER BY gen, game`, from, to)
	if err != nil {
		return fmt.Errorf("store: teacher games of %q: %w", d.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r shard.TeacherRow
		if err := rows.Scan(&r.Gen, &r.Game, &r.Book, &r.Winner, &r.Moves, &r.Teacher, &r.Plies); err != nil {
			return fmt.Errorf("store: teacher games of %q: %w", d.path, err)
		}
		g, err := r.Decode()
		if err != nil {
			return fmt.Errorf("store: %q: %w", d.path, err)
		}
		if err := fn(g); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: teacher games of %q: %w", d.path, err)
	}
	return nil
}

// TeacherStored counts the stored teacher games of generation gen.
func (d *DB) TeacherStored(ctx context.Context, gen int) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int64
	if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM teacher_games WHERE gen = ?", gen).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: teacher games of generation %d in %q: %w", gen, d.path, err)
	}
	return n, nil
}

// insertTeacher adds a teacher shard's games in tx, once per (Gen, Game):
// it returns how many were new; the others were stored before (the same
// game of the same generation, played again after a member was lost) and
// stay as they were.
func insertTeacher(ctx context.Context, tx *sql.Tx, next func() (*store.TeacherGame, error)) (added, dup int64, err error) {
	st, err := tx.PrepareContext(ctx, `INSERT INTO teacher_games (gen, game, book, winner, moves, teacher, plies) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (gen, game) DO NOTHING`)
	if err != nil {
		return 0, 0, err
	}
	defer st.Close()
	for {
		g, err := next()
		if err != nil || g == nil {
			return added, dup, err
		}
		r := shard.RowOf(g)
		res, err := st.ExecContext(ctx, r.Gen, r.Game, r.Book, r.Winner, r.Moves, r.Teacher, r.Plies)
		if err != nil {
			return added, dup, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			added++
		} else {
			dup++
		}
	}
}
