package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Upserts used by Write. A move's blacklisted flag is OR-ed: once
// blacklisted, always blacklisted, whatever weights it is credited later.
const (
	moveCols      = "(key, mx, my, wsum, games, blacklisted)"
	moveValues    = "(?, ?, ?, ?, ?, ?)"
	moveConflict  = " ON CONFLICT (key, mx, my) DO UPDATE SET wsum = wsum + excluded.wsum, games = games + excluded.games, blacklisted = max(blacklisted, excluded.blacklisted)"
	addTotals     = "UPDATE totals SET games = games + ?, black_wins = black_wins + ?, white_wins = white_wins + ?, draws = draws + ? WHERE id = 1"
	rowsPerInsert = 64 // rows per multi-row INSERT: fewer statement executions
)

// multiInsert builds "INSERT INTO table cols VALUES v, v, ... conflict" for n
// rows.
func multiInsert(table, cols, values, conflict string, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " " + cols + " VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(values)
	}
	b.WriteString(conflict)
	return b.String()
}

// Write adds the batch's counts and totals to the database in one
// transaction: all of the batch is stored, or (on error) none of it. The
// batch is not modified. Guarded by BenchmarkWriteBatch.
func (d *DB) Write(ctx context.Context, b *Batch) error {
	if err := d.writable("write batch"); err != nil {
		return err
	}
	if err := d.write(ctx, b); err != nil {
		return fmt.Errorf("store: write batch of %d games to %q: %w", b.Len(), d.path, err)
	}
	return nil
}

func (d *DB) write(ctx context.Context, b *Batch) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	moves := b.sortedMoves()
	args := make([]any, 0, 6*rowsPerInsert)
	err = chunked(ctx, tx, len(moves), "moves", moveCols, moveValues, moveConflict, func(i int) {
		r := moves[i]
		args = append(args, r.km.Key, r.km.Move.X, r.km.Move.Y, r.mc.wsum, r.mc.games, r.mc.blacklisted)
	}, &args)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, addTotals, b.games, b.black, b.white, b.draws); err != nil {
		return err
	}
	return tx.Commit()
}

// chunked upserts n rows rowsPerInsert at a time with a prepared multi-row
// statement, then the remainder; add(i) appends row i's values to *args.
func chunked(ctx context.Context, tx *sql.Tx, n int, table, cols, values, conflict string, add func(int), args *[]any) error {
	full := n / rowsPerInsert * rowsPerInsert
	if full > 0 {
		st, err := tx.PrepareContext(ctx, multiInsert(table, cols, values, conflict, rowsPerInsert))
		if err != nil {
			return err
		}
		defer st.Close()
		for start := 0; start < full; start += rowsPerInsert {
			if err := ctx.Err(); err != nil {
				return err
			}
			*args = (*args)[:0]
			for i := start; i < start+rowsPerInsert; i++ {
				add(i)
			}
			// Background: a cancellable context costs go-sqlite3 a goroutine
			// per statement; cancellation is checked above instead.
			if _, err := st.ExecContext(context.Background(), *args...); err != nil {
				return err
			}
		}
	}
	if full == n {
		return nil
	}
	*args = (*args)[:0]
	for i := full; i < n; i++ {
		add(i)
	}
	_, err := tx.ExecContext(ctx, multiInsert(table, cols, values, conflict, n-full), *args...)
	return err
}
