package store

import (
	"context"
	"database/sql"
	"fmt"
)

// DefaultPruneMinGames is Prune's default threshold: positions seen in only
// one game are dropped.
const DefaultPruneMinGames = 2

// PruneResult reports what Prune deleted.
type PruneResult struct {
	Positions int64 // positions (distinct keys) deleted
	Moves     int64 // move rows deleted
}

// Prune deletes, in one transaction, the positions that occurred in fewer
// than minGames games (≥ 1; DefaultPruneMinGames normally) together with all
// their moves, blacklisted ones included. It is only for merged data: pruning
// a worker's shard before merging would discard positions that each worker
// saw once but all workers together saw often. The caller ensures this.
func (d *DB) Prune(ctx context.Context, minGames int64) (PruneResult, error) {
	var res PruneResult
	if err := d.writable("prune"); err != nil {
		return res, err
	}
	if minGames < 1 {
		return res, fmt.Errorf("store: prune %q: min games %d (want ≥ 1): %w", d.path, minGames, ErrInvalidConfig)
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		// Positions are derived from moves: deleting a position's moves
		// deletes the position.
		const rare = "SELECT key FROM moves GROUP BY key HAVING sum(games) < ?"
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM ("+rare+")", minGames).Scan(&res.Positions); err != nil {
			return err
		}
		if res.Positions == 0 {
			return nil
		}
		var err error
		res.Moves, err = execCountArgs(ctx, tx, "DELETE FROM moves WHERE key IN ("+rare+")", minGames)
		return err
	})
	if err != nil {
		return PruneResult{}, fmt.Errorf("store: prune %q: %w", d.path, err)
	}
	return res, nil
}

// ConcludeConfig sets when Conclude blacklists a move. The defaults are in
// DefaultConclude, the one place they are defined.
type ConcludeConfig struct {
	// MinGames: the move, and every sibling compared with it, has at least
	// this many games (≥ 1).
	MinGames int64
	// Margin: the move's mean weight is below the best sibling's mean by
	// more than this (≥ 0; means lie in [−1, 1]).
	Margin float64
	// MaxMean: the move's mean is also below this; 1 or more disables the
	// condition.
	MaxMean float64
}

// DefaultConclude holds Conclude's default thresholds: a move with at least
// 20 games whose mean weight is more than 1.0 below the best sibling's (with
// 20 games too) and below −0.5.
var DefaultConclude = ConcludeConfig{MinGames: 20, Margin: 1.0, MaxMean: -0.5}

// Validate reports whether c is usable (wrapping ErrInvalidConfig if not).
func (c ConcludeConfig) Validate() error {
	if c.MinGames < 1 || c.Margin < 0 {
		return fmt.Errorf("store: conclude config: min games %d (want ≥ 1), margin %g (want ≥ 0): %w", c.MinGames, c.Margin, ErrInvalidConfig)
	}
	return nil
}

// concludeSQL blacklists the clearly bad moves. q: the moves with enough
// games and their means; b: per key, the best such mean.
const concludeSQL = `WITH
	q AS (SELECT key, mx, my, CAST(wsum AS REAL) / games AS mean FROM moves WHERE games >= ?),
	b AS (SELECT key, max(mean) AS best FROM q GROUP BY key)
UPDATE moves SET blacklisted = 1
FROM q JOIN b ON b.key = q.key
WHERE moves.key = q.key AND moves.mx = q.mx AND moves.my = q.my
	AND moves.blacklisted = 0 AND q.mean < b.best - ? AND q.mean < ?`

// Conclude blacklists, in one transaction, every move with at least
// c.MinGames games whose mean weight (wsum/games) is below the best mean of
// its siblings (the other moves of the same position with at least
// c.MinGames games) by more than c.Margin, and below c.MaxMean. It returns the
// number of moves newly blacklisted; moves already blacklisted stay so. Means
// are compared in float64 with strict inequalities: a move exactly Margin
// below the best, or exactly at MaxMean, is kept.
func (d *DB) Conclude(ctx context.Context, c ConcludeConfig) (int64, error) {
	if err := d.writable("conclude"); err != nil {
		return 0, err
	}
	if err := c.Validate(); err != nil {
		return 0, err
	}
	var n int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = execCountArgs(ctx, tx, concludeSQL, c.MinGames, c.Margin, c.MaxMean)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: conclude %q: %w", d.path, err)
	}
	return n, nil
}

// Checkpoint copies the WAL into the database file and truncates the WAL
// (PRAGMA wal_checkpoint(TRUNCATE)); run it after merges and prunes. It
// fails if readers keep the checkpoint from completing.
func (d *DB) Checkpoint(ctx context.Context) error {
	if err := d.writable("checkpoint"); err != nil {
		return err
	}
	if err := checkpoint(ctx, d.db); err != nil {
		return fmt.Errorf("store: checkpoint %q: %w", d.path, err)
	}
	return nil
}

func checkpoint(ctx context.Context, q *sql.DB) error {
	var busy, logFrames, done int64
	if err := q.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return err
	}
	if busy != 0 {
		return fmt.Errorf("busy: %d of %d WAL frames checkpointed", done, logFrames)
	}
	return nil
}

// Vacuum rebuilds the database file to reclaim the space of deleted rows
// (after a prune), then checkpoints. It needs free disk space about the size
// of the database.
func (d *DB) Vacuum(ctx context.Context) error {
	if err := d.writable("vacuum"); err != nil {
		return err
	}
	if _, err := d.db.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("store: vacuum %q: %w", d.path, err)
	}
	return d.Checkpoint(ctx)
}

// IntegrityCheck runs PRAGMA integrity_check and returns an error wrapping
// ErrCorrupt unless SQLite reports "ok".
func (d *DB) IntegrityCheck(ctx context.Context) error {
	if err := checkRows(ctx, d.db, "PRAGMA integrity_check"); err != nil {
		return fmt.Errorf("store: integrity check %q: %w", d.path, err)
	}
	return nil
}

// inTx runs fn in one transaction and commits it.
func (d *DB) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// execCountArgs executes a statement and returns the rows it changed.
func execCountArgs(ctx context.Context, tx *sql.Tx, query string, args ...any) (int64, error) {
	r, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}
