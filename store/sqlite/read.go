package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"ocvist/canon"
	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
	"ocvist/store/sqlite/internal/young"
)

// Stats summarises the database, its young runs included. It reads every
// position (a merge over the moves table and the young runs), so it takes
// time proportional to the database.
func (d *DB) Stats(ctx context.Context) (store.Stats, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st, err := d.stats(ctx)
	if err != nil {
		return store.Stats{}, fmt.Errorf("store: stats %q: %w", d.path, err)
	}
	return st, nil
}

func (d *DB) stats(ctx context.Context) (store.Stats, error) {
	s := store.Stats{Rule: d.cfg.Rule.String(), KeyVersion: d.cfg.KeyVersion, SchemaVersion: d.schema, BoardSize: d.cfg.BoardSize}
	snap, err := d.snapshot(ctx)
	if err != nil {
		return s, err
	}
	defer snap.close()
	const counts = `SELECT t.games, t.black_wins, t.white_wins, t.draws,
		(SELECT count(*) FROM merged_shards), (SELECT count(*) FROM generations), (SELECT count(*) FROM blacklist),
		(SELECT count(*) FROM teacher_games)
		FROM totals t WHERE t.id = 1`
	err = snap.tx.QueryRowContext(ctx, counts).Scan(&s.Games, &s.BlackWins, &s.WhiteWins, &s.Draws,
		&s.MergedShards, &s.Generations, &s.PrunedBlack, &s.TeacherGames)
	if err == nil && d.schema >= schemaTeacherShards {
		err = snap.tx.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(games), 0) FROM merged_shards WHERE kind = ?", shard.LedgerTeacher).
			Scan(&s.TeacherShards, &s.TeacherShardGames)
	}
	if err != nil {
		return s, sqlerr.Classify(err)
	}
	s.Blacklisted = s.PrunedBlack
	s.YoungRuns = int64(len(snap.set.Runs))
	if err := countPositions(ctx, snap, &s); err != nil {
		return s, err
	}
	s.FileBytes = fileBytes(d.path)
	if snap.set.Legacy() {
		for _, r := range snap.set.Runs {
			s.FileBytes += r.Bytes
		}
	}
	return s, nil
}

// countPositions reads the snapshot's positions through and adds to s
// their positions, moves, blacklisted moves and those still young (below
// the prune threshold recorded in meta).
func countPositions(ctx context.Context, snap *snapshot, s *store.Stats) error {
	minGames := int64(store.DefaultPruneMinGames)
	var v string
	if snap.tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", meta.KeyPruneMin).Scan(&v) == nil {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			minGames = n
		}
	}
	m, done, err := snap.merger(ctx, true)
	defer done()
	if err != nil {
		return err
	}
	return m.Each(func(p *shard.Merged) error {
		s.Positions++
		s.Moves += int64(len(p.Moves))
		if !p.Mature && p.Games() < minGames {
			s.Young++
		}
		for _, r := range p.Moves {
			if r.Blacklisted {
				s.Blacklisted++
			}
		}
		return nil
	})
}

// fileBytes is the size of a SQLite file and its WAL.
func fileBytes(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// scan calls fn with every position of the database (promoted and young,
// combined) in (id, key) order, from one snapshot.
func (d *DB) scan(ctx context.Context, fn func(*shard.Merged) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	snap, err := d.snapshot(ctx)
	if err != nil {
		return err
	}
	defer snap.close()
	m, done, err := snap.merger(ctx, true)
	defer done()
	if err != nil {
		return err
	}
	return m.Each(fn)
}

// ScanMoves calls fn with every (key, move) row with at least minGames
// games, young positions included, grouped by position in (canon.ID,
// key, x, y) order, from one consistent snapshot (for building forest
// training sets). It stops at fn's first error and returns it. fn must not
// call methods of d.
func (d *DB) ScanMoves(ctx context.Context, minGames int64, fn func(store.MoveStat) error) error {
	err := d.scan(ctx, func(p *shard.Merged) error { return shard.MoveStats(&p.Position, minGames, fn) })
	if err != nil {
		return fmt.Errorf("store: scan moves of %q: %w", d.path, err)
	}
	return nil
}

// MoveStats returns the statistics of every stored move of the position with
// key, in (x, y) order; none for an unknown position. It reads the young
// runs through, so it is for tools and tests, not for a hot loop.
func (d *DB) MoveStats(ctx context.Context, key string) ([]store.MoveStat, error) {
	var out []store.MoveStat
	id, k := canon.ID(key), []byte(key)
	err := d.scan(ctx, func(p *shard.Merged) error {
		if p.ID == id && bytes.Equal(p.Text(), k) {
			return shard.MoveStats(&p.Position, 0, func(m store.MoveStat) error { out = append(out, m); return nil })
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: move stats of %q in %q: %w", key, d.path, err)
	}
	return out, nil
}

// Blacklist loads every blacklisted move into memory (for self-play):
// those of promoted and young positions and those kept from pruned ones.
func (d *DB) Blacklist(ctx context.Context) (store.Blacklist, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	bl, err := d.blacklist(ctx)
	if err != nil {
		return store.Blacklist{}, fmt.Errorf("store: load blacklist of %q: %w", d.path, err)
	}
	return bl, nil
}

func (d *DB) blacklist(ctx context.Context) (store.Blacklist, error) {
	snap, err := d.snapshot(ctx)
	if err != nil {
		return store.Blacklist{}, err
	}
	defer snap.close()
	var es []store.BlacklistEntry
	rows, err := snap.tx.QueryContext(ctx, "SELECT pid, mx, my FROM moves WHERE blacklisted != 0 UNION ALL SELECT pid, mx, my FROM blacklist")
	if err != nil {
		return store.Blacklist{}, sqlerr.Classify(err)
	}
	for rows.Next() {
		var e store.BlacklistEntry
		if err := rows.Scan(&e.ID, &e.Move.X, &e.Move.Y); err != nil {
			rows.Close()
			return store.Blacklist{}, err
		}
		es = append(es, e)
	}
	if err := rows.Close(); err != nil {
		return store.Blacklist{}, err
	}
	for i, run := range snap.set.Runs {
		r, err := snap.set.Open(i)
		if err != nil {
			return store.Blacklist{}, err
		}
		for {
			p, err := r.Next()
			if err != nil {
				return store.Blacklist{}, young.Damaged(d.path, run.Name, err)
			}
			if p == nil {
				break
			}
			for _, m := range p.Moves {
				if m.Blacklisted {
					es = append(es, store.BlacklistEntry{ID: p.ID, Move: m.Move})
				}
			}
		}
	}
	return store.BlacklistOf(es), nil
}

// Export writes every move row, young positions included, as CSV (RFC
// 4180): the header ExportHeader, then one line per (key, move), grouped
// by position in (canon.ID, key, x, y) order, with blacklisted as 0 or
// 1. The output depends only on the stored counts, so two databases with
// equal statistics export identical bytes. Blacklisted moves kept from
// pruned positions have no row (their keys are not kept).
func (d *DB) Export(ctx context.Context, w io.Writer) error {
	cw := csv.NewWriter(w)
	err := cw.Write(strings.Split(store.ExportHeader, ","))
	rec := make([]string, 7)
	if err == nil {
		err = d.scan(ctx, func(p *shard.Merged) error {
			return shard.MoveStats(&p.Position, 0, func(m store.MoveStat) error {
				return cw.Write(store.ExportRecord(rec, m))
			})
		})
	}
	if err == nil {
		cw.Flush()
		err = cw.Error()
	}
	if err != nil {
		return fmt.Errorf("store: export %q: %w", d.path, err)
	}
	return nil
}

// AddGeneration records a generation; an already recorded number gives an
// error wrapping ErrGenerationExists and changes nothing.
func (d *DB) AddGeneration(ctx context.Context, g store.Generation) error {
	if err := d.writable("add generation"); err != nil {
		return err
	}
	if g.Created == "" {
		g.Created = meta.Now()
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM generations WHERE gen = ?", g.Gen).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return store.ErrGenerationExists
		}
		const ins = `INSERT INTO generations (gen, games, rows, fit_seconds, auc, score, score_low, score_high, model, seed, created, details)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		_, err := tx.ExecContext(ctx, ins, g.Gen, g.Games, g.Rows, g.FitSeconds, g.AUC, g.Score, g.ScoreLow, g.ScoreHigh, g.Model, g.Seed, g.Created, g.Details)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: add generation %d to %q: %w", g.Gen, d.path, err)
	}
	return nil
}

// Generations returns the recorded generations in increasing order.
func (d *DB) Generations(ctx context.Context) ([]store.Generation, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rows, err := d.db.QueryContext(ctx, `SELECT gen, games, rows, fit_seconds, auc, score, score_low, score_high, model, seed, created, details
		FROM generations ORDER BY gen`)
	if err != nil {
		return nil, fmt.Errorf("store: list generations of %q: %w", d.path, err)
	}
	defer rows.Close()
	var out []store.Generation
	for rows.Next() {
		var g store.Generation
		if err := rows.Scan(&g.Gen, &g.Games, &g.Rows, &g.FitSeconds, &g.AUC, &g.Score, &g.ScoreLow, &g.ScoreHigh, &g.Model, &g.Seed, &g.Created, &g.Details); err != nil {
			return nil, fmt.Errorf("store: list generations of %q: %w", d.path, err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list generations of %q: %w", d.path, err)
	}
	return out, nil
}
