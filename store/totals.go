package store

import (
	"context"
	"fmt"
)

// Totals are a database's game counts and its size on disk: what a job
// needs at its start and for its progress line, read without scanning the
// positions (Stats does that).
type Totals struct {
	Games, BlackWins, WhiteWins, Draws int64
	// Bytes: the database file with its WAL and young runs, or the
	// PostgreSQL database's size.
	Bytes int64
}

// Totals reads the game counts and the size on disk.
func (d *DB) Totals(ctx context.Context) (Totals, error) {
	var t Totals
	err := d.db.QueryRowContext(ctx, "SELECT games, black_wins, white_wins, draws FROM totals WHERE id = 1").Scan(&t.Games, &t.BlackWins, &t.WhiteWins, &t.Draws)
	if err != nil {
		return t, fmt.Errorf("store: totals of %q: %w", d.path, classify(err))
	}
	t.Bytes = fileBytes(d.path)
	return t, nil
}

// Totals reads the game counts and the database's size.
func (p *PG) Totals(ctx context.Context) (Totals, error) {
	var t Totals
	err := p.pool.QueryRow(ctx, "SELECT games, black_wins, white_wins, draws, pg_database_size(current_database()) FROM totals WHERE id = 1").
		Scan(&t.Games, &t.BlackWins, &t.WhiteWins, &t.Draws, &t.Bytes)
	return t, p.wrap("totals of", err)
}
