package sqlite

import (
	"context"
	"fmt"

	"ocvist/store"
	"ocvist/store/sqlite/internal/sqlerr"
)

// Totals reads the game counts and the size on disk.
func (d *DB) Totals(ctx context.Context) (store.Totals, error) {
	var t store.Totals
	err := d.db.QueryRowContext(ctx, "SELECT games, black_wins, white_wins, draws FROM totals WHERE id = 1").Scan(&t.Games, &t.BlackWins, &t.WhiteWins, &t.Draws)
	if err != nil {
		return t, fmt.Errorf("store: totals of %q: %w", d.path, sqlerr.Classify(err))
	}
	t.Bytes = fileBytes(d.path)
	return t, nil
}
