package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"ocvist/canon"
	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/young"
)

// Prune expires the young runs merged at least c.Age games ago: it reads
// each through once, moves the rows of positions promoted since (which
// reached c.MinGames with later games) into the moves table, and drops the
// others, keeping their blacklisted moves (by position id) in the
// blacklist table: the blacklist survives pruning. Counts are conserved
// for everything kept; totals never change. It also records c.MinGames as
// the threshold of the merges that follow.
//
// What is dropped depends only on the runs' ages and the counts, not on
// when or how often Prune ran: pruning in windows keeps exactly what
// pruning once keeps for every position whose games all lie within the last
// c.Age games. A position that straddles the window may keep only its later
// games. Prune is one transaction; on error or cancellation nothing
// changes. Its cost is proportional to the expired runs (plus the promoted
// rows), not to the database. Guarded by BenchmarkPrune.
func (d *DB) Prune(ctx context.Context, c store.PruneConfig) (store.PruneResult, error) {
	if err := d.writable("prune"); err != nil {
		return store.PruneResult{}, err
	}
	if err := c.Validate(); err != nil {
		return store.PruneResult{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	res, err := d.prune(ctx, c)
	if err != nil {
		d.dropIndex()
		return store.PruneResult{}, fmt.Errorf("store: prune %q: %w", d.path, err)
	}
	return res, nil
}

func (d *DB) prune(ctx context.Context, c store.PruneConfig) (res store.PruneResult, err error) {
	if err := d.index(ctx); err != nil {
		return res, err
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer tx.Rollback()
	runs, expired, err := dueRuns(ctx, tx, c)
	if err != nil {
		return res, err
	}
	res.Runs, res.YoungRuns = len(expired), len(runs)-len(expired)
	// A lowered or raised threshold is recorded even with nothing due.
	if len(expired) > 0 || c.MinGames != d.minGames {
		if err := d.commitPrune(ctx, tx, c, expired, &res); err != nil {
			return res, err
		}
	}
	res.Mature = d.idx.Mature()
	res.Young = int64(d.idx.Len()) - d.idx.Mature()
	return res, nil
}

// dueRuns lists the young runs and those of them that expire now: merged
// at least c.Age games ago, once c.Batch of them are due.
func dueRuns(ctx context.Context, tx *sql.Tx, c store.PruneConfig) (runs, expired []young.Run, err error) {
	runs, err = young.List(ctx, tx)
	if err != nil {
		return nil, nil, err
	}
	var games int64
	if err := tx.QueryRowContext(ctx, "SELECT games FROM totals WHERE id = 1").Scan(&games); err != nil {
		return nil, nil, err
	}
	for _, r := range runs {
		if games-r.Born >= c.Age {
			expired = append(expired, r)
		}
	}
	if len(expired) < c.Batch {
		expired = nil
	}
	return runs, expired, nil
}

// commitPrune expires the runs (their rows and bytes go), records
// c.MinGames and commits tx; only then do the index and the threshold
// change.
func (d *DB) commitPrune(ctx context.Context, tx *sql.Tx, c store.PruneConfig, expired []young.Run, res *store.PruneResult) error {
	up := newUpserter(ctx, tx)
	next, err := d.expire(ctx, tx, expired, c.MinGames, up, res)
	if err != nil {
		return err
	}
	for _, r := range expired {
		if err := young.Delete(ctx, tx, r.Name); err != nil {
			return err
		}
	}
	if err := up.flush(); err != nil {
		return err
	}
	if err := putMeta(ctx, tx, map[string]string{meta.KeyPruneMin: strconv.FormatInt(c.MinGames, 10)}); err != nil {
		return err
	}
	if err := touch(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	d.idx.Replace(next)
	d.minGames = c.MinGames
	return nil
}

// expire reads the expired young runs together (a k-way merge) and settles
// each position (see settle). It returns the updated index.
func (d *DB) expire(ctx context.Context, tx *sql.Tx, runs []young.Run, minGames int64, up *upserter, res *store.PruneResult) (young.Index, error) {
	m, err := young.Merge(ctx, tx, d.path, runs)
	if err != nil {
		return young.Index{}, err
	}
	c := d.idx.Cursor()
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return young.Index{}, err
			}
		}
		p, err := m.Next()
		if err != nil {
			return young.Index{}, err
		}
		if p == nil {
			return c.Done(), nil
		}
		if err := settle(c, p, minGames, up, res); err != nil {
			return young.Index{}, err
		}
	}
}

// settle decides one position of the expired runs. Rows of a promoted
// position (or of one that reaches minGames, after the threshold was
// lowered) go to the moves table, once per position; the others are
// dropped, keeping their blacklisted moves, and leave the index. Guarded
// by BenchmarkPrune.
func settle(c *young.Cursor, p *shard.Merged, minGames int64, up *upserter, res *store.PruneResult) error {
	v := c.Take(p.ID)
	if v != young.Promoted && v >= minGames {
		v = young.Promoted
	}
	if v == young.Promoted {
		c.Put(p.ID, v)
		res.Updated += int64(len(p.Moves))
		return up.position(&p.Position)
	}
	c.Put(p.ID, max(v-p.Games(), 0))
	res.Positions++
	res.Moves += int64(len(p.Moves))
	for _, mv := range p.Moves {
		if mv.Blacklisted {
			res.Blacklisted++
			if err := up.blacklist(p.ID, mv); err != nil {
				return err
			}
		}
	}
	return nil
}

// upserter adds promoted rows to the moves table and dropped positions'
// blacklisted moves to the blacklist table, in multi-row statements.
type upserter struct {
	ctx        context.Context
	tx         *sql.Tx
	moves, bls []any
	rows       int64
}

const (
	upsertRows   = 64 // rows per multi-row statement
	moveUpsert   = "INSERT INTO moves (pid, key, mx, my, wsum, games, blacklisted) VALUES "
	moveConflict = " ON CONFLICT (pid, key, mx, my) DO UPDATE SET wsum = wsum + excluded.wsum, games = games + excluded.games, blacklisted = max(blacklisted, excluded.blacklisted)"
	blInsert     = "INSERT OR IGNORE INTO blacklist (pid, mx, my) VALUES "
)

func newUpserter(ctx context.Context, tx *sql.Tx) *upserter {
	return &upserter{ctx: ctx, tx: tx}
}

func (u *upserter) position(p *shard.Position) error {
	key := string(p.Text())
	for _, r := range p.Moves {
		u.moves = append(u.moves, p.ID, key, r.Move.X, r.Move.Y, r.WSum, r.Games, r.Blacklisted)
		u.rows++
		if len(u.moves) == 7*upsertRows {
			if err := u.exec(moveUpsert, "(?, ?, ?, ?, ?, ?, ?)", moveConflict, &u.moves, 7); err != nil {
				return err
			}
		}
	}
	return nil
}

func (u *upserter) blacklist(id int64, r shard.MoveRow) error {
	u.bls = append(u.bls, id, r.Move.X, r.Move.Y)
	if len(u.bls) == 3*upsertRows {
		return u.exec(blInsert, "(?, ?, ?)", "", &u.bls, 3)
	}
	return nil
}

func (u *upserter) flush() error {
	if err := u.exec(moveUpsert, "(?, ?, ?, ?, ?, ?, ?)", moveConflict, &u.moves, 7); err != nil {
		return err
	}
	return u.exec(blInsert, "(?, ?, ?)", "", &u.bls, 3)
}

// exec runs one multi-row statement over the buffered args and empties
// them, under the prune's context: a stop rolls the transaction back.
func (u *upserter) exec(head, values, tail string, args *[]any, cols int) error {
	n := len(*args) / cols
	if n == 0 {
		return nil
	}
	q := head + strings.Repeat(values+", ", n-1) + values + tail
	if _, err := u.tx.ExecContext(u.ctx, q, *args...); err != nil {
		return err
	}
	*args = (*args)[:0]
	return nil
}

// Conclude blacklists, in one transaction, every move with at least
// c.MinGames games whose mean weight (wsum/games) is below the best mean of
// its siblings (the other moves of the same position with at least
// c.MinGames games) by more than c.Margin, and below c.MaxMean, judged on
// the position's whole counts (moves table and young runs). It returns the
// number of moves newly blacklisted; moves already blacklisted stay so.
// Means are compared in float64 with strict inequalities: a move exactly
// Margin below the best, or exactly at MaxMean, is kept. It reads the whole
// database.
func (d *DB) Conclude(ctx context.Context, c store.ConcludeConfig) (int64, error) {
	if err := d.writable("conclude"); err != nil {
		return 0, err
	}
	if err := c.Validate(); err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n, err := d.conclude(ctx, c)
	if err != nil {
		d.dropIndex()
		return 0, fmt.Errorf("store: conclude %q: %w", d.path, err)
	}
	return n, nil
}

// flagged is a move Conclude blacklists.
type flagged struct {
	id  int64
	key string
	m   canon.Move
}

func (d *DB) conclude(ctx context.Context, c store.ConcludeConfig) (int64, error) {
	if err := d.index(ctx); err != nil {
		return 0, err
	}
	bad, err := d.findBad(ctx, c)
	if err != nil || len(bad) == 0 {
		return 0, err
	}
	err = d.inTxLocked(ctx, func(tx *sql.Tx) error {
		const flag = "INSERT INTO moves (pid, key, mx, my, wsum, games, blacklisted) VALUES (?, ?, ?, ?, 0, 0, 1) ON CONFLICT (pid, key, mx, my) DO UPDATE SET blacklisted = 1"
		for _, f := range bad {
			if _, err := tx.ExecContext(ctx, flag, f.id, f.key, f.m.X, f.m.Y); err != nil {
				return err
			}
		}
		return touch(ctx, tx)
	})
	if err != nil {
		return 0, err
	}
	d.promoteFlagged(bad)
	return int64(len(bad)), nil
}

// findBad reads the database through once, in a snapshot, and returns the
// moves to blacklist (see flags).
func (d *DB) findBad(ctx context.Context, c store.ConcludeConfig) ([]flagged, error) {
	s, err := d.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	// A move with MinGames games has a promoted position, unless the
	// prune threshold is above MinGames: then read everything.
	var keep func() func(int64) bool
	if d.minGames <= c.MinGames {
		keep = d.idx.PromotedFilter
	}
	m, done, err := s.filtered(ctx, true, keep)
	defer done()
	if err != nil {
		return nil, err
	}
	var bad []flagged
	err = m.Each(func(p *shard.Merged) error {
		bad = flags(bad, p, c)
		return nil
	})
	return bad, err
}

// flags appends to bad the moves of p that Conclude blacklists: not yet
// blacklisted, with c.MinGames games, a mean below c.MaxMean and more than
// c.Margin below the best mean of the moves with c.MinGames games.
func flags(bad []flagged, p *shard.Merged, c store.ConcludeConfig) []flagged {
	best, any := 0.0, false
	for _, r := range p.Moves {
		if r.Games >= c.MinGames && (!any || r.Mean() > best) {
			best, any = r.Mean(), true
		}
	}
	for _, r := range p.Moves {
		if any && r.Games >= c.MinGames && !r.Blacklisted && r.Mean() < best-c.Margin && r.Mean() < c.MaxMean {
			bad = append(bad, flagged{p.ID, string(p.Text()), r.Move})
		}
	}
	return bad
}

// promoteFlagged marks the flagged positions promoted in the index: they
// now have rows in the moves table (they have at least MinGames games;
// below the threshold, too, their rows are kept from now on).
func (d *DB) promoteFlagged(bad []flagged) {
	slices.SortFunc(bad, func(a, b flagged) int { return cmp.Compare(a.id, b.id) })
	cur := d.idx.Cursor()
	for _, f := range bad {
		cur.Take(f.id)
		cur.Put(f.id, young.Promoted)
	}
	d.idx.Replace(cur.Done())
}

// Checkpoint copies a WAL (left by a schema-2 database, which used one)
// into the database file and truncates it; without a WAL it does nothing.
func (d *DB) Checkpoint(ctx context.Context) error {
	if err := d.writable("checkpoint"); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := checkpoint(ctx, d.db); err != nil {
		return fmt.Errorf("store: checkpoint %q: %w", d.path, err)
	}
	return nil
}

func checkpoint(ctx context.Context, q querier) error {
	var busy, logFrames, done int64
	if err := q.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return err
	}
	if busy != 0 {
		return fmt.Errorf("busy: %d of %d WAL frames checkpointed", done, logFrames)
	}
	return nil
}

// IntegrityCheck runs Check and returns an error wrapping ErrCorrupt,
// with the first problems, unless it found none.
func (d *DB) IntegrityCheck(ctx context.Context) error {
	res, err := d.Check(ctx, CheckConfig{})
	if err == nil && len(res.Problems) > 0 {
		var msgs []string
		for _, p := range res.Problems[:min(len(res.Problems), 5)] {
			msgs = append(msgs, p.Text)
		}
		err = fmt.Errorf("%w: %s", store.ErrCorrupt, strings.Join(msgs, "; "))
	}
	if err != nil {
		return fmt.Errorf("store: integrity check %q: %w", d.path, err)
	}
	return nil
}
