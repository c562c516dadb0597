package store

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// pgMaintLock is the advisory lock that serializes the transactions
// changing moves (Prune's batches and Conclude) across coordinators:
// merges never touch moves, so they go on meanwhile. It is a transaction
// lock: a batch that fails, is cancelled or loses its client releases it
// with its rollback.
const pgMaintLock = 208754433

// pgPruneBatchRows bounds the young rows one prune transaction expires.
// A batch costs one scan of the young table (the other runs' counts of
// its positions) plus index work proportional to its rows: measured on a
// database of 1.2 million games, 1.1 s for 520,000 expired rows (see
// PG.Prune). Smaller batches would scan young more often; larger ones
// hold the lock longer and redo more after a crash.
const pgPruneBatchRows = 600_000

// pgMaintenance runs fn in a transaction holding pgMaintLock, with room to
// hash a batch's positions in memory and without JIT compilation (the
// statements are simple; compiling them cost more than it saved).
func (p *PG) pgMaintenance(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", pgMaintLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '128MB'; SET LOCAL jit = off"); err != nil {
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
// ages and counts only. Unlike DB.Prune, promotion is judged at expiry
// with c.MinGames: raising the threshold between prunes drops positions
// SQLite had already promoted. It records c.MinGames in the meta.
//
// The due runs expire in batches of about pgPruneBatchRows rows, each one
// transaction under pgMaintLock (merges of other coordinators go on), so
// a cancelled ctx stops Prune within a statement: the server is sent a
// cancel request, the batch rolls back and releases the lock, and the
// batches before it stay done (with the error, res holds what they did).
// A batch's cost is its rows' (index scans and upserts, no plan that
// depends on stale statistics: its own tables are analyzed) plus one
// hashed scan of the young table. c.Progress, if set, hears of each batch.
func (p *PG) Prune(ctx context.Context, c PruneConfig) (PruneResult, error) {
	if err := c.Validate(); err != nil {
		return PruneResult{}, err
	}
	res, err := p.prune(ctx, c)
	return res, p.wrap("prune", err)
}

func (p *PG) prune(ctx context.Context, c PruneConfig) (PruneResult, error) {
	var res PruneResult
	due, left, err := p.dueRuns(ctx, c)
	if err != nil {
		return res, err
	}
	res.YoungRuns = left
	batches := pgBatches(due, p.batchRows)
	var total, done int64
	for _, r := range due {
		total += r.rows
	}
	for i, b := range batches {
		c.report(PruneProgress{Batch: i + 1, Batches: len(batches), Rows: done, TotalRows: total})
		var br PruneResult
		err := p.pgMaintenance(ctx, func(tx pgx.Tx) error {
			br = PruneResult{}
			return expireRuns(ctx, tx, b, c.MinGames, &br)
		})
		if err != nil {
			res.YoungRuns += pgRunsLeft(batches[i:])
			return res, err
		}
		res.add(br)
		for _, r := range b {
			done += r.rows
		}
	}
	c.report(PruneProgress{Batch: len(batches), Batches: len(batches), Rows: done, TotalRows: total, Counting: true})
	err = p.pgMaintenance(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO meta VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
			metaPruneMin, strconv.FormatInt(c.MinGames, 10)); err != nil {
			return err
		}
		return countPromoted(ctx, tx, c.MinGames, &res)
	})
	return res, err
}

// pgRun is a young run as Prune sees it.
type pgRun struct {
	run, rows int64
}

// dueRuns lists the young runs old enough to expire, oldest first (none if
// fewer than c.Batch), and counts the runs left.
func (p *PG) dueRuns(ctx context.Context, c PruneConfig) (due []pgRun, left int, err error) {
	rows, err := p.pool.Query(ctx, `SELECT run, rows, (SELECT games FROM totals WHERE id = 1) - born >= $1
		FROM young_runs ORDER BY run`, c.Age)
	if err != nil {
		return nil, 0, err
	}
	var r pgRun
	var old bool
	_, err = pgx.ForEachRow(rows, []any{&r.run, &r.rows, &old}, func() error {
		if old {
			due = append(due, r)
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

// pgBatches splits runs, in order, into batches of at most maxRows rows
// (a larger run alone).
func pgBatches(runs []pgRun, maxRows int64) [][]pgRun {
	var out [][]pgRun
	var rows int64
	for i, r := range runs {
		if i == 0 || rows+r.rows > maxRows {
			out, rows = append(out, nil), 0
		}
		out[len(out)-1] = append(out[len(out)-1], r)
		rows += r.rows
	}
	return out
}

func pgRunsLeft(batches [][]pgRun) int {
	n := 0
	for _, b := range batches {
		n += len(b)
	}
	return n
}

// expireRuns moves the rows of the batch's promoted positions into moves
// and drops the others, in five steps whose plans do not depend on the
// statistics autovacuum may not have gathered yet: the batch's rows
// (young_run index) summed per move into pe and its positions into ph,
// both analyzed; the other runs' games of those positions (one hashed
// scan of young); the positions already in moves (a semi-join, by index
// or hash as ph's size says); then the upsert into moves, the blacklist,
// and the deletes by run.
func expireRuns(ctx context.Context, tx pgx.Tx, batch []pgRun, minGames int64, res *PruneResult) error {
	runs := make([]int64, len(batch))
	for i, r := range batch {
		runs[i] = r.run
	}
	res.Runs = len(batch)
	steps := []struct {
		sql  string
		args []any
	}{
		{`CREATE TEMP TABLE pe ON COMMIT DROP AS SELECT pid, key, mx, my, sum(wsum)::bigint AS wsum,
			sum(games)::bigint AS games, bool_or(bl) AS bl FROM young WHERE run = ANY($1) GROUP BY pid, key, mx, my`, []any{runs}},
		{`CREATE TEMP TABLE ph ON COMMIT DROP AS SELECT pid, sum(games)::bigint AS g, FALSE AS hot FROM pe GROUP BY pid`, nil},
		{`ANALYZE pe, ph`, nil},
		{`UPDATE ph SET g = ph.g + o.g FROM (SELECT y.pid, sum(y.games) AS g FROM young y
			WHERE y.run <> ALL($1) AND y.pid IN (SELECT pid FROM ph) GROUP BY y.pid) o WHERE o.pid = ph.pid`, []any{runs}},
		{`UPDATE ph SET hot = TRUE WHERE g >= $1 OR pid IN (SELECT m.pid FROM moves m WHERE m.pid IN (SELECT pid FROM ph))`, []any{minGames}},
	}
	for _, s := range steps {
		if _, err := tx.Exec(ctx, s.sql, s.args...); err != nil {
			return err
		}
	}
	tag, err := tx.Exec(ctx, `INSERT INTO moves (pid, key, mx, my, wsum, games, blacklisted)
		SELECT pid, key, mx, my, wsum, games, bl FROM pe JOIN ph USING (pid) WHERE ph.hot ORDER BY pid, key, mx, my
		ON CONFLICT (pid, key, mx, my) DO UPDATE SET wsum = moves.wsum + excluded.wsum,
			games = moves.games + excluded.games, blacklisted = moves.blacklisted OR excluded.blacklisted`)
	if err != nil {
		return err
	}
	res.Updated = tag.RowsAffected()
	if err := tx.QueryRow(ctx, `SELECT count(DISTINCT (pid, key)), count(*), count(*) FILTER (WHERE bl)
		FROM pe JOIN ph USING (pid) WHERE NOT ph.hot`).Scan(&res.Positions, &res.Moves, &res.Blacklisted); err != nil {
		return err
	}
	for _, q := range []string{
		"INSERT INTO blacklist SELECT DISTINCT pid, mx, my FROM pe JOIN ph USING (pid) WHERE bl AND NOT ph.hot ON CONFLICT DO NOTHING",
		"DELETE FROM young WHERE run = ANY($1)",
		"DELETE FROM young_runs WHERE run = ANY($1)",
	} {
		var args []any
		if q[0] == 'D' {
			args = []any{runs}
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
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
