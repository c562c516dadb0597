package postgres

import (
	"context"

	"ocvist/store"
)

// Totals reads the game counts and the database's size.
func (p *DB) Totals(ctx context.Context) (store.Totals, error) {
	var t store.Totals
	err := p.pool.QueryRow(ctx, "SELECT games, black_wins, white_wins, draws, pg_database_size(current_database()) FROM totals WHERE id = 1").
		Scan(&t.Games, &t.BlackWins, &t.WhiteWins, &t.Draws, &t.Bytes)
	return t, p.wrap("totals of", err)
}
