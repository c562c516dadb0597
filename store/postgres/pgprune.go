package postgres

import (
	"context"
	"fmt"
	"strconv"

	"ocvist/store"
	"ocvist/store/internal/meta"

	"github.com/jackc/pgx/v5"
)

// pgMaintLock is the advisory lock that serializes the transactions
// changing moves (Prune's batches and Conclude) across coordinators:
// merges never touch moves, so they go on meanwhile. It is a transaction
// lock: a batch that fails, is cancelled or loses its client releases it
// with its rollback.
const pgMaintLock = 208754433

// pgPruneBatchRows bounds the young rows one prune transaction expires:
// a batch costs its rows (see expireBatch), and holds the rows it moves
// until its commit.
const pgPruneBatchRows = 600_000

// pgMaintenance runs fn in a transaction holding pgMaintLock, with room to
// hash in memory and without JIT compilation (the statements are simple;
// compiling them cost more than it saved).
func (p *DB) pgMaintenance(ctx context.Context, fn func(pgx.Tx) error) error {
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
// ages and counts only (as of the prune's start: a run merged meanwhile
// counts at the next prune). Unlike DB.Prune, promotion is judged at
// expiry with c.MinGames: raising the threshold between prunes drops
// positions SQLite had already promoted. It records c.MinGames in the meta.
//
// One connection does the whole prune, holding pgMaintLock (prunes and
// concludes of every coordinator take turns; merges go on). It first
// finds, in one pass over the young table, the positions seen in
// c.MinGames games or in moves already; then it expires the due runs, oldest first, in
// batches of about pgPruneBatchRows rows, each one transaction whose cost
// is its rows'. A cancelled ctx stops it
// within a statement: the server is sent a cancel request, the batch rolls
// back, the connection is closed (the server drops the lock and the
// counts with it), and the batches before stay done (with the error, res
// says what they did). c.Progress, if set, hears of each step. With
// c.SkipCounts the promoted and young positions are not counted after
// (Mature and Young are -1): counting reads moves and young whole.
func (p *DB) Prune(ctx context.Context, c store.PruneConfig) (store.PruneResult, error) {
	if err := c.Validate(); err != nil {
		return store.PruneResult{}, err
	}
	res, err := p.prune(ctx, c)
	return res, p.wrap("prune", err)
}

func (p *DB) prune(ctx context.Context, c store.PruneConfig) (res store.PruneResult, err error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return res, err
	}
	defer func() {
		if err != nil { // a connection left mid-statement, or holding the lock, is closed
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
		conn.Release()
	}()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", pgMaintLock); err != nil {
		return res, err
	}
	if _, err := conn.Exec(ctx, "SET work_mem = '128MB'; SET jit = off"); err != nil {
		return res, err
	}
	if res, err = p.expire(ctx, conn.Conn(), c); err != nil {
		return res, err
	}
	if _, err := conn.Exec(ctx, `INSERT INTO meta VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		meta.KeyPruneMin, strconv.FormatInt(c.MinGames, 10)); err != nil {
		return res, err
	}
	res.Mature, res.Young = -1, -1
	if !c.SkipCounts {
		c.Report(store.PruneProgress{Counting: true})
		if err := countPromoted(ctx, conn.Conn(), c.MinGames, &res); err != nil {
			return res, err
		}
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS ph; RESET work_mem; RESET jit; SELECT pg_advisory_unlock(%d)", pgMaintLock))
	return res, err
}

// expire finds the positions to promote (table ph) and expires the due
// runs in batches.
func (p *DB) expire(ctx context.Context, conn *pgx.Conn, c store.PruneConfig) (store.PruneResult, error) {
	var res store.PruneResult
	due, left, err := pgDueRuns(ctx, conn, c)
	if err != nil {
		return res, err
	}
	res.YoungRuns = left
	if len(due) == 0 {
		return res, nil
	}
	batches := pgBatches(due, p.batchRows)
	var total, done int64
	for _, r := range due {
		total += r.rows
	}
	c.Report(store.PruneProgress{Batches: len(batches), TotalRows: total})
	if err := hotPositions(ctx, conn, c.MinGames); err != nil {
		res.YoungRuns += len(due)
		return res, err
	}
	for i, b := range batches {
		c.Report(store.PruneProgress{Batch: i + 1, Batches: len(batches), Rows: done, TotalRows: total})
		var br store.PruneResult
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			br = store.PruneResult{}
			return expireBatch(ctx, tx, b, &br)
		})
		if err != nil {
			res.YoungRuns += pgRunsLeft(batches[i:])
			return res, err
		}
		res.Add(br)
		for _, r := range b {
			done += r.rows
		}
	}
	return res, nil
}

// pgRun is a young run as Prune sees it.
type pgRun struct {
	run, rows int64
}

// pgDueRuns lists the young runs old enough to expire, oldest first (none
// if fewer than c.Batch), and counts the runs left.
func pgDueRuns(ctx context.Context, conn *pgx.Conn, c store.PruneConfig) (due []pgRun, left int, err error) {
	rows, err := conn.Query(ctx, `SELECT run, rows, (SELECT games FROM totals WHERE id = 1) - born >= $1
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

// hotPositions fills the session's table ph with the positions (ids) of
// the young runs to promote: those seen in minGames games across the young
// runs, and those in moves already. One hashed aggregation of the young
// table (measured: 23 s for 15.7 million rows, which 111,748 positions
// reached 2 games of) with a hash join on the positions of moves (its
// primary key's index, read in order); the batches then never ask moves
// (a per-row EXISTS was once planned as a scan of moves per row, and a
// semi-join per batch scanned moves whole). young is analyzed first (a sample), so
// that the batches' filters on run numbers are judged on its present
// runs: on statistics of its first runs, a filter on new run numbers was
// judged to keep one row and planned as a nested loop over a table per
// row, for minutes.
func hotPositions(ctx context.Context, conn *pgx.Conn, minGames int64) error {
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"ANALYZE young", nil},
		{"DROP TABLE IF EXISTS ph", nil},
		{`CREATE TEMP TABLE ph AS SELECT y.pid FROM young y LEFT JOIN (SELECT DISTINCT pid FROM moves) m USING (pid)
			GROUP BY y.pid HAVING sum(y.games) >= $1 OR bool_or(m.pid IS NOT NULL)`, []any{minGames}},
		{"CREATE UNIQUE INDEX ON ph (pid)", nil},
		{"ANALYZE ph", nil},
	} {
		if _, err := conn.Exec(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// expireBatch moves the rows of the batch's hot positions into moves and
// drops the others, keeping their blacklisted moves. Every statement costs
// the batch's rows: its rows summed per move, marked hot when their
// position is in ph (young_by_run index, a hash join with ph), the upsert,
// the counts, the blacklist, the deletes by run.
func expireBatch(ctx context.Context, tx pgx.Tx, batch []pgRun, res *store.PruneResult) error {
	runs := make([]int64, len(batch))
	for i, r := range batch {
		runs[i] = r.run
	}
	res.Runs = len(batch)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`CREATE TEMP TABLE pe ON COMMIT DROP AS SELECT y.pid, y.key, y.mx, y.my, sum(y.wsum)::bigint AS wsum,
			sum(y.games)::bigint AS games, bool_or(y.bl) AS bl, bool_or(h.pid IS NOT NULL) AS hot
			FROM young y LEFT JOIN ph h USING (pid) WHERE y.run = ANY($1) GROUP BY y.pid, y.key, y.mx, y.my`, []any{runs}},
	} {
		if _, err := tx.Exec(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	tag, err := tx.Exec(ctx, `INSERT INTO moves (pid, key, mx, my, wsum, games, blacklisted)
		SELECT pid, key, mx, my, wsum, games, bl FROM pe WHERE hot ORDER BY pid, key, mx, my
		ON CONFLICT (pid, key, mx, my) DO UPDATE SET wsum = moves.wsum + excluded.wsum,
			games = moves.games + excluded.games, blacklisted = moves.blacklisted OR excluded.blacklisted`)
	if err != nil {
		return err
	}
	res.Updated = tag.RowsAffected()
	if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM (SELECT 1 FROM pe WHERE NOT hot GROUP BY pid, key) p),
		count(*), count(*) FILTER (WHERE bl) FROM pe WHERE NOT hot`).Scan(&res.Positions, &res.Moves, &res.Blacklisted); err != nil {
		return err
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO blacklist SELECT DISTINCT pid, mx, my FROM pe WHERE bl AND NOT hot ON CONFLICT DO NOTHING", nil},
		{"DELETE FROM young WHERE run = ANY($1)", []any{runs}},
		{"DELETE FROM young_runs WHERE run = ANY($1)", []any{runs}},
	} {
		if _, err := tx.Exec(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// countPromoted counts the positions (by id, as DB.Prune's index does) in
// moves, and those of the young runs not promoted.
func countPromoted(ctx context.Context, conn *pgx.Conn, minGames int64, res *store.PruneResult) error {
	return conn.QueryRow(ctx, `SELECT (SELECT count(DISTINCT pid) FROM moves),
		(SELECT count(*) FROM (SELECT pid, sum(games) AS g FROM young GROUP BY pid) y
			WHERE g < $1 AND NOT EXISTS (SELECT 1 FROM moves m WHERE m.pid = y.pid))`, minGames).Scan(&res.Mature, &res.Young)
}

// Conclude blacklists the moves DB.Conclude does, judged on the whole
// counts (moves and young): a flagged move of a young position gets a row
// in moves (no games, blacklisted), which promotes its position, as in
// SQLite. One connection holds pgMaintLock throughout (no prune moves rows
// meanwhile); it sums the young rows per move once into a temporary table
// indexed by position id (one hashed aggregation of young: a few seconds
// for the 2 million rows a prune leaves by default), then judges the
// position ids in 64 ranges, one transaction each, reading
// moves by its primary key's index: a cancelled ctx stops it within a
// statement, the ranges judged staying flagged.
func (p *DB) Conclude(ctx context.Context, c store.ConcludeConfig) (int64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	n, err := p.conclude(ctx, c)
	return n, p.wrap("conclude", err)
}

func (p *DB) conclude(ctx context.Context, c store.ConcludeConfig) (n int64, err error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
		conn.Release()
	}()
	for _, q := range []string{
		fmt.Sprintf("SELECT pg_advisory_lock(%d)", pgMaintLock),
		"SET work_mem = '128MB'; SET jit = off; DROP TABLE IF EXISTS cy",
		`CREATE TEMP TABLE cy AS SELECT pid, key, mx, my, sum(wsum)::bigint AS wsum, sum(games)::bigint AS games,
			bool_or(bl) AS bl FROM young GROUP BY pid, key, mx, my`,
		"CREATE INDEX ON cy (pid); ANALYZE cy",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return n, err
		}
	}
	const step = 1 << (64 - 6) // 64 ranges of ids
	for i := range uint64(1 << 6) {
		// Ids are int64; flipping the sign bit maps the unsigned ranges onto
		// them in order.
		lo, hi := int64(i*step^1<<63), int64((i*step+step-1)^1<<63)
		tag, err := conn.Exec(ctx, `WITH a AS (SELECT pid, key, mx, my, sum(wsum)::bigint AS wsum, sum(games)::bigint AS games,
				bool_or(bl) AS bl FROM (
					SELECT pid, key, mx, my, wsum, games, blacklisted AS bl FROM moves WHERE pid BETWEEN $4 AND $5
					UNION ALL SELECT pid, key, mx, my, wsum, games, bl FROM cy WHERE pid BETWEEN $4 AND $5) u
				GROUP BY pid, key, mx, my),
			s AS (SELECT pid, key, mx, my, games, bl, wsum::float8 / games AS mean,
				max(CASE WHEN games >= $1 THEN wsum::float8 / games END) OVER (PARTITION BY pid, key) AS best
				FROM a WHERE games > 0)
			INSERT INTO moves (pid, key, mx, my, wsum, games, blacklisted)
			SELECT pid, key, mx, my, 0, 0, TRUE FROM s
			WHERE games >= $1 AND NOT bl AND mean < best - $2 AND mean < $3 ORDER BY pid, key, mx, my
			ON CONFLICT (pid, key, mx, my) DO UPDATE SET blacklisted = TRUE`, c.MinGames, c.Margin, c.MaxMean, lo, hi)
		if err != nil {
			return n, err
		}
		n += tag.RowsAffected()
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("DROP TABLE cy; RESET work_mem; RESET jit; SELECT pg_advisory_unlock(%d)", pgMaintLock))
	return n, err
}
