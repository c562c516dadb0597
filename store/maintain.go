package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Prune defaults: a position is promoted into the moves table once seen in
// DefaultPruneMinGames games; one that stays below that for
// DefaultPruneAge later games is dropped.
const (
	DefaultPruneMinGames = 2
	DefaultPruneAge      = 100_000
)

// PruneConfig sets Prune's thresholds.
type PruneConfig struct {
	// MinGames: a position seen in at least this many games is promoted
	// (≥ 1). Promoted positions are never dropped.
	MinGames int64
	// Age: a young position whose first game was at least this many games
	// ago (in the database's game count) and that is still below MinGames is
	// dropped (≥ 0; 0 drops every young position below MinGames).
	Age int64
}

// DefaultPrune holds the default thresholds.
var DefaultPrune = PruneConfig{MinGames: DefaultPruneMinGames, Age: DefaultPruneAge}

// Validate reports whether c is usable (wrapping ErrInvalidConfig if not).
func (c PruneConfig) Validate() error {
	if c.MinGames < 1 || c.Age < 0 {
		return fmt.Errorf("store: prune config: min games %d (want ≥ 1), age %d (want ≥ 0): %w", c.MinGames, c.Age, ErrInvalidConfig)
	}
	return nil
}

// PruneResult reports what Prune did.
type PruneResult struct {
	Runs        int   // young runs folded together
	Positions   int64 // positions dropped
	Moves       int64 // move rows dropped
	Blacklisted int64 // blacklisted moves of dropped positions, kept
	Promoted    int64 // positions that joined the moves table
	Updated     int64 // move rows added to or updated in the moves table
	Young       int64 // positions left young
	YoungRows   int64 // their move rows
	Mature      int64 // positions in the moves table afterwards
}

// Prune folds the young runs into one (a sequential k-way merge over runs
// sorted by position id), promotes into the moves table every position
// that reached c.MinGames games or was promoted before, and drops the young
// positions whose first game lies at least c.Age games back and that are
// still below c.MinGames. A dropped position's blacklisted moves are kept
// (by position id) in the blacklist table: the blacklist survives pruning.
// Whether a position is dropped depends only on its counts and its age, not
// on when or how often Prune ran, so pruning in windows keeps exactly what
// pruning once keeps for every position whose games all lie within the
// last c.Age games. Counts are conserved: a position is kept whole or
// dropped whole; totals never change.
//
// Prune is one transaction with the new young run written before it; on
// error or cancellation nothing changes. Its cost is proportional to the
// young runs plus the promoted rows it touches, not to the moves table.
// Guarded by BenchmarkPrune.
func (d *DB) Prune(ctx context.Context, c PruneConfig) (PruneResult, error) {
	if err := d.writable("prune"); err != nil {
		return PruneResult{}, err
	}
	if err := c.Validate(); err != nil {
		return PruneResult{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	res, err := d.prune(ctx, c)
	if err != nil {
		return PruneResult{}, fmt.Errorf("store: prune %q: %w", d.path, err)
	}
	return res, nil
}

func (d *DB) prune(ctx context.Context, c PruneConfig) (PruneResult, error) {
	var res PruneResult
	if d.mature == nil {
		ids, err := loadIDs(ctx, d.db)
		if err != nil {
			return res, err
		}
		d.mature = ids
	}
	s, err := d.snapshot(ctx)
	if err != nil {
		return res, err
	}
	defer s.close()
	res.Runs = len(s.runs)
	if len(s.runs) == 0 {
		res.Mature = int64(len(d.mature.ids))
		return res, nil
	}
	var games int64
	if err := s.tx.QueryRowContext(ctx, "SELECT games FROM totals WHERE id = 1").Scan(&games); err != nil {
		return res, err
	}
	m, done, err := s.merger(ctx, false)
	defer done()
	if err != nil {
		return res, err
	}
	id := newID()
	name := youngName("young", id)
	path := filepath.Join(d.young, name)
	w, err := createRun(path, runHeader{kind: kindYoung, cfg: d.cfg, id: id})
	if err != nil {
		return res, err
	}
	sealed := false
	defer func() {
		if !sealed {
			w.abort()
		}
	}()
	up := newUpserter(ctx, s.tx)
	var promoted []int64
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
		}
		p, err := m.next()
		if err != nil {
			return res, err
		}
		if p == nil {
			break
		}
		switch {
		case d.mature.has(p.id) || p.games() >= c.MinGames:
			if !d.mature.has(p.id) {
				promoted = append(promoted, p.id)
			}
			if err := up.position(&p.position); err != nil {
				return res, err
			}
		case games-p.born >= c.Age:
			res.Positions++
			res.Moves += int64(len(p.moves))
			for _, r := range p.moves {
				if r.bl {
					res.Blacklisted++
					if err := up.blacklist(p.id, r); err != nil {
						return res, err
					}
				}
			}
		default:
			res.Young++
			res.YoungRows += int64(len(p.moves))
			if err := w.position(&p.position); err != nil {
				return res, err
			}
		}
	}
	if err := up.flush(); err != nil {
		return res, err
	}
	res.Promoted, res.Updated = int64(len(promoted)), up.rows
	foot := w.foot
	var size int64
	if res.Young > 0 {
		if _, size, err = w.seal(totals{}); err != nil {
			return res, err
		}
	} else {
		w.abort()
	}
	sealed = true
	commit := func() error {
		if _, err := s.tx.ExecContext(ctx, "DELETE FROM young_runs"); err != nil {
			return err
		}
		if res.Young > 0 {
			if _, err := s.tx.ExecContext(ctx, youngAdd, name, 0, 0, foot.positions, foot.rows, size); err != nil {
				return err
			}
		}
		if err := touch(ctx, s.tx); err != nil {
			return err
		}
		return s.tx.Commit()
	}
	if err := commit(); err != nil {
		os.Remove(path)
		return res, err
	}
	for _, r := range s.runs {
		os.Remove(filepath.Join(d.young, r.name)) // a leftover is removed at the next open
	}
	d.mature.add(promoted)
	res.Mature = int64(len(d.mature.ids))
	return res, nil
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

func (u *upserter) position(p *position) error {
	key := string(p.key)
	for _, r := range p.moves {
		u.moves = append(u.moves, p.id, key, r.m.X, r.m.Y, r.wsum, r.games, r.bl)
		u.rows++
		if len(u.moves) == 7*upsertRows {
			if err := u.exec(moveUpsert, "(?, ?, ?, ?, ?, ?, ?)", moveConflict, &u.moves, 7); err != nil {
				return err
			}
		}
	}
	return nil
}

func (u *upserter) blacklist(id int64, r moveRow) error {
	u.bls = append(u.bls, id, r.m.X, r.m.Y)
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
// them. Statements are cached by go-sqlite3 per connection only when
// prepared, so the full-size one is prepared once per transaction.
func (u *upserter) exec(head, values, tail string, args *[]any, cols int) error {
	n := len(*args) / cols
	if n == 0 {
		return nil
	}
	q := head + strings.Repeat(values+", ", n-1) + values + tail
	if _, err := u.tx.ExecContext(context.Background(), q, *args...); err != nil {
		return err
	}
	*args = (*args)[:0]
	return nil
}

// ConcludeConfig sets when Conclude blacklists a move. The defaults are in
// DefaultConclude, the one place they are defined.
type ConcludeConfig struct {
	// MinGames: the move, and every sibling compared with it, has at least
	// this many games (≥ 1).
	MinGames int64 `json:"min_games"`
	// Margin: the move's mean weight is below the best sibling's mean by
	// more than this (≥ 0; means lie in [−1, 1]).
	Margin float64 `json:"margin"`
	// MaxMean: the move's mean is also below this; 1 or more disables the
	// condition.
	MaxMean float64 `json:"max_mean"`
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
// games and their means; b: per position, the best such mean.
const concludeSQL = `WITH
	q AS (SELECT pid, key, mx, my, CAST(wsum AS REAL) / games AS mean FROM moves WHERE games >= ?),
	b AS (SELECT pid, key, max(mean) AS best FROM q GROUP BY pid, key)
UPDATE moves SET blacklisted = 1
FROM q JOIN b ON b.pid = q.pid AND b.key = q.key
WHERE moves.pid = q.pid AND moves.key = q.key AND moves.mx = q.mx AND moves.my = q.my
	AND moves.blacklisted = 0 AND q.mean < b.best - ? AND q.mean < ?`

// Conclude blacklists, in one transaction, every promoted move with at
// least c.MinGames games whose mean weight (wsum/games) is below the best
// mean of its siblings (the other moves of the same position with at least
// c.MinGames games) by more than c.Margin, and below c.MaxMean. It returns
// the number of moves newly blacklisted; moves already blacklisted stay so.
// Means are compared in float64 with strict inequalities: a move exactly
// Margin below the best, or exactly at MaxMean, is kept. Young positions
// are not judged: run Prune first (with a prune threshold not above
// c.MinGames, every position that qualifies is promoted).
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
		if n, err = execCount(ctx, tx, concludeSQL, c.MinGames, c.Margin, c.MaxMean); err != nil {
			return err
		}
		return touch(ctx, tx)
	})
	if err != nil {
		return 0, fmt.Errorf("store: conclude %q: %w", d.path, err)
	}
	return n, nil
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

// Vacuum rebuilds the SQLite file to reclaim the space of deleted rows,
// then checkpoints. It needs free disk space about the size of the file.
func (d *DB) Vacuum(ctx context.Context) error {
	if err := d.writable("vacuum"); err != nil {
		return err
	}
	d.mu.Lock()
	_, err := d.db.ExecContext(ctx, "VACUUM")
	d.mu.Unlock()
	if err != nil {
		return fmt.Errorf("store: vacuum %q: %w", d.path, err)
	}
	return d.Checkpoint(ctx)
}

// IntegrityCheck runs PRAGMA integrity_check and reads every young run
// through (order, counts, checksum); it returns an error wrapping
// ErrCorrupt unless all is well.
func (d *DB) IntegrityCheck(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := checkRows(ctx, d.db, "PRAGMA integrity_check")
	if err == nil {
		err = d.checkYoung(ctx)
	}
	if err != nil {
		return fmt.Errorf("store: integrity check %q: %w", d.path, err)
	}
	return nil
}

func (d *DB) checkYoung(ctx context.Context) error {
	s, err := d.snapshot(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	for i, f := range s.files {
		r, err := newRunReader(f, f.Name())
		if err != nil {
			return fmt.Errorf("young run %s: %w", s.runs[i].name, err)
		}
		for {
			p, err := r.next()
			if err != nil {
				return fmt.Errorf("young run %s: %w", s.runs[i].name, err)
			}
			if p == nil {
				break
			}
		}
	}
	return nil
}

// checkRows runs an integrity pragma and turns anything but "ok" into
// ErrCorrupt with the first messages.
func checkRows(ctx context.Context, q querier, pragma string) error {
	rows, err := q.QueryContext(ctx, pragma)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return classify(err)
		}
		if m != "ok" && len(msgs) < 5 {
			msgs = append(msgs, m)
		}
	}
	if err := rows.Err(); err != nil {
		return classify(err)
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(msgs, "; "))
	}
	return nil
}
