package store

import (
	"context"
	"database/sql"
	"fmt"

	"ocvist/gomoku"
)

// TeacherGame is one game of the learning loop as the store keeps it (the
// training samples of package loop): generation Gen's game number Game,
// every stone in play order, how many of them the opening placed (Book),
// the teacher's move for every ply after the book and the winner (Empty
// for a draw).
type TeacherGame struct {
	Gen, Game int
	Moves     []gomoku.Point
	Book      int
	Teacher   []gomoku.Point
	Winner    gomoku.Player
}

func (g *TeacherGame) check() error {
	if g.Book < 0 || g.Book > len(g.Moves) || len(g.Teacher) != len(g.Moves)-g.Book || g.Winner > gomoku.White {
		return fmt.Errorf("%w: teacher game %d/%d: %d moves, book %d, %d teacher moves, winner %d",
			ErrCorrupt, g.Gen, g.Game, len(g.Moves), g.Book, len(g.Teacher), g.Winner)
	}
	for _, p := range append(g.Moves[:len(g.Moves):len(g.Moves)], g.Teacher...) {
		if p >= gomoku.NumCells {
			return fmt.Errorf("%w: teacher game %d/%d: point %d off the board", ErrCorrupt, g.Gen, g.Game, p)
		}
	}
	return nil
}

func points(b []byte) []gomoku.Point {
	out := make([]gomoku.Point, len(b))
	for i, c := range b {
		out[i] = gomoku.Point(c)
	}
	return out
}

func pointBytes(ps []gomoku.Point) []byte {
	out := make([]byte, len(ps))
	for i, p := range ps {
		out[i] = byte(p)
	}
	return out
}

// AddTeacherGames appends games in one transaction and returns how many
// were new: a (Gen, Game) already stored is left as it is, so a batch
// appended twice (a retried generation) is stored once.
func (d *DB) AddTeacherGames(ctx context.Context, games []TeacherGame) (int64, error) {
	if err := d.writable("add teacher games"); err != nil {
		return 0, err
	}
	var added int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO teacher_games (gen, game, book, winner, moves, teacher) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i := range games {
			g := &games[i]
			if err := g.check(); err != nil {
				return err
			}
			r, err := st.ExecContext(ctx, g.Gen, g.Game, g.Book, int(g.Winner), pointBytes(g.Moves), pointBytes(g.Teacher))
			if err != nil {
				return err
			}
			n, _ := r.RowsAffected()
			added += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: add teacher games to %q: %w", d.path, err)
	}
	return added, nil
}

// TeacherGames calls fn with the stored games of generations from..to
// (inclusive) in (Gen, Game) order.
func (d *DB) TeacherGames(ctx context.Context, from, to int, fn func(TeacherGame) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	rows, err := d.db.QueryContext(ctx, `SELECT gen, game, book, winner, moves, teacher FROM teacher_games
		WHERE gen BETWEEN ? AND ? ORDER BY gen, game`, from, to)
	if err != nil {
		return fmt.Errorf("store: teacher games of %q: %w", d.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var g TeacherGame
		var moves, teacher []byte
		if err := rows.Scan(&g.Gen, &g.Game, &g.Book, &g.Winner, &moves, &teacher); err != nil {
			return fmt.Errorf("store: teacher games of %q: %w", d.path, err)
		}
		g.Moves, g.Teacher = points(moves), points(teacher)
		if err := g.check(); err != nil {
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
