package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
	"ocvist/store/sqlite/internal/young"
)

// snapshot is a consistent view of a database for reading: a transaction
// on the SQLite file, which holds the young runs' rows and bytes, and the
// young runs it sees. A database of schema 4 read without migrating it
// keeps its young runs in the folder beside it (see young.LegacySchema):
// the snapshot opens their files.
type snapshot struct {
	ctx  context.Context
	tx   *sql.Tx
	path string // the database, for DamageError
	set  *young.Set
}

// snapshot opens a view. Under the rollback journal a reader's
// transaction holds a shared lock from its first read to its end, so no
// writer commits while it lists the young runs and reads them (a legacy
// writer removed a run's file only after the commit that expired it).
func (d *DB) snapshot(ctx context.Context) (*snapshot, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, sqlerr.Classify(err)
	}
	s := &snapshot{ctx: ctx, tx: tx, path: d.path}
	schema, err := schemaOf(ctx, tx)
	switch {
	case err != nil:
	case schema <= young.LegacySchema:
		s.set, err = young.LoadLegacy(ctx, tx, d.path, d.youngDir)
	default:
		s.set, err = young.Load(ctx, tx, d.path)
	}
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	return s, nil
}

// schemaOf reads the schema version recorded in meta.
func schemaOf(ctx context.Context, q querier) (int, error) {
	var v string
	if err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", meta.KeySchemaVersion).Scan(&v); err != nil {
		return 0, sqlerr.Classify(err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: meta %s = %q", store.ErrNotOcvist, meta.KeySchemaVersion, v)
	}
	return n, nil
}

func (s *snapshot) close() {
	s.set.Close()
	s.tx.Rollback()
}

// merger returns a merger over the snapshot's young runs and, with
// withMature, the moves table.
func (s *snapshot) merger(ctx context.Context, withMature bool) (*shard.Merger, func(), error) {
	return s.filtered(ctx, withMature, nil)
}

// filtered is merger reading only the young runs' positions whose id
// keep() accepts (all with nil); keep makes one filter per run.
func (s *snapshot) filtered(ctx context.Context, withMature bool, keep func() func(int64) bool) (*shard.Merger, func(), error) {
	var srcs []shard.Source
	var closers []func() error
	done := func() {
		for _, c := range closers {
			c()
		}
	}
	mature := -1
	if withMature {
		ms, err := newMatureSource(ctx, s.tx)
		if err != nil {
			return nil, done, err
		}
		mature = 0
		srcs = append(srcs, ms)
		closers = append(closers, ms.close)
	}
	for i := range s.set.Runs {
		var k func(int64) bool
		if keep != nil {
			k = keep()
		}
		src, err := s.set.Source(i, k)
		if err != nil {
			return nil, done, err
		}
		srcs = append(srcs, src)
	}
	m, err := shard.NewMerger(srcs, mature)
	return m, done, err
}

// index loads the writer's index (see young.Index): the ids of the moves
// table, then the games of every young run, marking promoted the positions
// that reach the threshold. It must not run inside a transaction (the
// writer has one connection).
func (d *DB) index(ctx context.Context) error {
	if d.idx != nil {
		return nil
	}
	m, err := readMeta(ctx, d.db)
	if err != nil {
		return err
	}
	d.minGames = store.DefaultPruneMinGames
	if v, err := strconv.ParseInt(m[meta.KeyPruneMin], 10, 64); err == nil && v >= 1 {
		d.minGames = v
	}
	x, err := matureIndex(ctx, d.db)
	if err != nil {
		return err
	}
	s, err := d.snapshot(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	if err := s.set.CountAll(x, d.minGames); err != nil {
		return err
	}
	d.idx = x
	return nil
}

// matureIndex is the index of the moves table's positions, all promoted.
func matureIndex(ctx context.Context, q querier) (*young.Index, error) {
	x := &young.Index{}
	c := x.Cursor()
	rows, err := q.QueryContext(ctx, "SELECT DISTINCT pid FROM moves ORDER BY pid")
	if err != nil {
		return nil, sqlerr.Classify(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		c.Put(id, young.Promoted)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	x.Replace(c.Done())
	return x, nil
}

// dropIndex forgets the index; the next merge or prune loads it again from
// what was committed.
func (d *DB) dropIndex() { d.idx = nil }
