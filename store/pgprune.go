package store

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// pgMaintLock is the advisory lock that serializes the transactions
// changing moves (Prune and Conclude) across coordinators: merges never
// touch moves, so they go on meanwhile.
const pgMaintLock = 208754433

// pgMaintenance runs fn in a transaction holding pgMaintLock, with room to
// hash a prune's positions in memory.
func (p *PG) pgMaintenance(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", pgMaintLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '128MB'"); err != nil {
			return err
		}
		return fn(tx)
	})
}

// Prune expires the young runs merged at least c.Age games ago, as
// DB.Prune does: rows of positions promoted (in moves already, or seen in
// c.MinGames games across the young runs, counted by position id) go to
// moves, summed, in key order; the others are dropped, their blacklisted
// moves kept in blacklist. Totals never change; what is dropped depends on
// ages and counts only. One transaction, under pgMaintLock; merges of
// other coordinators go on. Unlike DB.Prune, promotion is judged at expiry
// with c.MinGames: raising the threshold between prunes drops positions
// SQLite had already promoted. It records c.MinGames in the meta.
func (p *PG) Prune(ctx context.Context, c PruneConfig) (PruneResult, error) {
	if err := c.Validate(); err != nil {
		return PruneResult{}, err
	}
	var res PruneResult
	err := p.pgMaintenance(ctx, func(tx pgx.Tx) error {
		res = PruneResult{}
		due, left, err := pgDueRuns(ctx, tx, c)
		if err != nil {
			return err
		}
		res.Runs, res.YoungRuns = len(due), left
		if len(due) > 0 {
			if err := expireRuns(ctx, tx, due, c.MinGames, &res); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO meta VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
			metaPruneMin, strconv.FormatInt(c.MinGames, 10)); err != nil {
			return err
		}
		return countPromoted(ctx, tx, c.MinGames, &res)
	})
	return res, p.wrap("prune", err)
}

// pgDueRuns lists the young runs old enough to expire (none if fewer than
// c.Batch) and counts the runs left.
func pgDueRuns(ctx context.Context, tx pgx.Tx, c PruneConfig) (due []int64, left int, err error) {
	rows, err := tx.Query(ctx, `SELECT run, (SELECT games FROM totals WHERE id = 1) - born >= $1 FROM young_runs ORDER BY run`, c.Age)
	if err != nil {
		return nil, 0, err
	}
	var run int64
	var old bool
	_, err = pgx.ForEachRow(rows, []any{&run, &old}, func() error {
		if old {
			due = append(due, run)
		} else {
			left++
		}
		return nil
	})
	if len(due) < c.Batch {
		left += len(due)
		due = nil
	}
	return due, left, err
}

// expireRuns moves the due runs' rows of promoted positions into moves
// and drops the others.
func expireRuns(ctx context.Context, tx pgx.Tx, due []int64, minGames int64, res *PruneResult) error {
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE expired ON COMMIT DROP AS
		WITH e AS (SELECT pid, key, mx, my, sum(wsum) AS wsum, sum(games) AS games, bool_or(bl) AS bl
			FROM young WHERE run = ANY($1) GROUP BY pid, key, mx, my),
		live AS (SELECT pid, sum(games) AS g FROM young WHERE pid IN (SELECT pid FROM e) GROUP BY pid)
		SELECT e.*, (live.g >= $2 OR EXISTS (SELECT 1 FROM moves m WHERE m.pid = e.pid)) AS hot
		FROM e JOIN live USING (pid)`, due, minGames); err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `INSERT INTO moves (pid, key, mx, my, wsum, games, blacklisted)
		SELECT pid, key, mx, my, wsum, games, bl FROM expired WHERE hot ORDER BY pid, key, mx, my
		ON CONFLICT (pid, key, mx, my) DO UPDATE SET wsum = moves.wsum + excluded.wsum,
			games = moves.games + excluded.games, blacklisted = moves.blacklisted OR excluded.blacklisted`)
	if err != nil {
		return err
	}
	res.Updated = tag.RowsAffected()
	if err := tx.QueryRow(ctx, `SELECT count(DISTINCT (pid, key)), count(*), count(*) FILTER (WHERE bl)
		FROM expired WHERE NOT hot`).Scan(&res.Positions, &res.Moves, &res.Blacklisted); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO blacklist SELECT DISTINCT pid, mx, my FROM expired WHERE bl AND NOT hot ON CONFLICT DO NOTHING"); err != nil {
		return err
	}
	for _, q := range []string{"DELETE FROM young WHERE run = ANY($1)", "DELETE FROM young_runs WHERE run = ANY($1)"} {
		if _, err := tx.Exec(ctx, q, due); err != nil {
			return err
		}
	}
	return nil
}

// countPromoted counts the positions (by id, as DB.Prune's index does) in
// moves, and those of the young runs not promoted.
func countPromoted(ctx context.Context, tx pgx.Tx, minGames int64, res *PruneResult) error {
	return tx.QueryRow(ctx, `SELECT (SELECT count(DISTINCT pid) FROM moves),
		(SELECT count(*) FROM (SELECT pid, sum(games) AS g FROM young GROUP BY pid) y
			WHERE g < $1 AND NOT EXISTS (SELECT 1 FROM moves m WHERE m.pid = y.pid))`, minGames).Scan(&res.Mature, &res.Young)
}

// Conclude blacklists the moves DB.Conclude does, judged on the whole
// counts (moves and young), in one statement under pgMaintLock: a flagged
// move of a young position gets a row in moves (no games, blacklisted),
// which promotes its position, as in SQLite.
func (p *PG) Conclude(ctx context.Context, c ConcludeConfig) (int64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	var n int64
	err := p.pgMaintenance(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `WITH a AS (`+fmt.Sprintf(allMoves, "")+`), s AS (
			SELECT pid, key, mx, my, games, bl, wsum::float8 / games AS mean,
				max(CASE WHEN games >= $1 THEN wsum::float8 / games END) OVER (PARTITION BY pid, key) AS best
			FROM a WHERE games > 0)
			INSERT INTO moves (pid, key, mx, my, wsum, games, blacklisted)
			SELECT pid, key, mx, my, 0, 0, TRUE FROM s
			WHERE games >= $1 AND NOT bl AND mean < best - $2 AND mean < $3 ORDER BY pid, key, mx, my
			ON CONFLICT (pid, key, mx, my) DO UPDATE SET blacklisted = TRUE`, c.MinGames, c.Margin, c.MaxMean)
		n = tag.RowsAffected()
		return err
	})
	return n, p.wrap("conclude", err)
}
