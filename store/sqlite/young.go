package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"

	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"
)

// youngRun is a row of young_runs: a young run whose positions belong to
// the database, its bytes in young_data (or, in a database of schema 4
// read without migrating it, a file of the young folder).
type youngRun struct {
	name                   string
	born                   int64
	games, positions, rows int64
	bytes                  int64
}

func listYoung(ctx context.Context, q querier) ([]youngRun, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, born, games, positions, rows, bytes FROM young_runs ORDER BY name")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []youngRun
	for rows.Next() {
		var r youngRun
		if err := rows.Scan(&r.name, &r.born, &r.games, &r.positions, &r.rows, &r.bytes); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// openYoung opens a reader of the young run r of the database at path,
// whose bytes are in young_data, in q's transaction. Damage (a run cut
// short, corrupt or missing) is a DamageError.
func openYoung(ctx context.Context, q querier, path string, r youngRun) (*shard.Reader, error) {
	data, err := openYoungData(ctx, q, r.name, r.bytes)
	if err != nil {
		return nil, damaged(path, r.name, err)
	}
	rd, err := shard.NewReader(data, r.bytes, r.name)
	if err != nil {
		return nil, damaged(path, r.name, err)
	}
	return rd, nil
}

// snapshot is a consistent view of a database for reading: a transaction
// on the SQLite file, which holds the young runs' rows and bytes. A
// database of schema 4 read without migrating it keeps its young runs in
// the folder beside it (see legacy.go): the snapshot opens their files.
type snapshot struct {
	ctx      context.Context
	tx       *sql.Tx
	path     string // the database, for DamageError
	runs     []youngRun
	legacy   bool       // schema 4: the runs are files
	files    []*os.File // legacy: the runs' files, opened (nil: see openErrs)
	openErrs []error
}

// snapshot opens a view. Under the rollback journal a reader's
// transaction holds a shared lock from its first read to its end, so no
// writer commits while it lists the young runs and reads them (a legacy
// writer removed a run's file only after the commit that expired it).
func (d *DB) snapshot(ctx context.Context) (*snapshot, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(err)
	}
	s := &snapshot{ctx: ctx, tx: tx, path: d.path}
	schema, err := schemaOf(ctx, tx)
	if err == nil {
		s.legacy = schema <= legacySchema
		s.runs, err = listYoung(ctx, tx)
	}
	if err == nil && s.legacy {
		s.files, s.openErrs = openLegacy(d.youngDir, s.runs)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// schemaOf reads the schema version recorded in meta.
func schemaOf(ctx context.Context, q querier) (int, error) {
	var v string
	if err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", meta.KeySchemaVersion).Scan(&v); err != nil {
		return 0, classify(err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: meta %s = %q", store.ErrNotOcvist, meta.KeySchemaVersion, v)
	}
	return n, nil
}

func (s *snapshot) close() {
	for _, f := range s.files {
		if f != nil {
			f.Close()
		}
	}
	s.tx.Rollback()
}

// run opens a reader of the snapshot's young run i.
func (s *snapshot) run(i int) (*shard.Reader, error) {
	if !s.legacy {
		return openYoung(s.ctx, s.tx, s.path, s.runs[i])
	}
	f := s.files[i]
	if f == nil {
		return nil, damaged(s.path, s.runs[i].name, s.openErrs[i])
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r, err := shard.NewReader(f, fi.Size(), s.runs[i].name)
	if err != nil {
		return nil, damaged(s.path, s.runs[i].name, err)
	}
	return r, nil
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
	for i, run := range s.runs {
		r, err := s.run(i)
		if err != nil {
			return nil, done, err
		}
		if keep != nil {
			r.Keep = keep()
		}
		srcs = append(srcs, &runSource{r: r, born: run.born, db: s.path})
	}
	m, err := shard.NewMerger(srcs, mature)
	return m, done, err
}

// promoted marks a promoted position in the index.
const promoted = -1

// index loads the writer's index (see idIndex): the ids of the moves
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
	spare, err := d.countYoung(ctx, x)
	if err != nil {
		return err
	}
	d.idx, d.spare = x, spare
	return nil
}

// matureIndex is the index of the moves table's positions, all promoted.
func matureIndex(ctx context.Context, q querier) (*idIndex, error) {
	x := &idIndex{}
	rows, err := q.QueryContext(ctx, "SELECT DISTINCT pid FROM moves ORDER BY pid")
	if err != nil {
		return nil, classify(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		x.s = append(x.s, idSlot{id, promoted})
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	x.mature = int64(len(x.s))
	return x, nil
}

// countYoung adds the games of every young run to x, in a snapshot, at
// d.minGames, and returns the spare buffer left over.
func (d *DB) countYoung(ctx context.Context, x *idIndex) (spare []idSlot, err error) {
	s, err := d.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	for i, run := range s.runs {
		r, err := s.run(i)
		if err != nil {
			return nil, err
		}
		r.SkipKeys = true
		next, _, err := d.count(ctx, x, spare, r)
		if err != nil {
			return nil, damaged(d.path, run.name, err)
		}
		spare = x.s
		*x = next
	}
	return spare, nil
}

// dropIndex forgets the index; the next merge or prune loads it again from
// what was committed.
func (d *DB) dropIndex() { d.idx, d.spare = nil, nil }

// count reads the run r through and returns x updated with its positions'
// games, promoting those that reach the threshold, and how many it
// promoted. x itself is not changed; buf is reused for the result.
// Guarded by BenchmarkMerge.
func (d *DB) count(ctx context.Context, x *idIndex, buf []idSlot, r *shard.Reader) (idIndex, int64, error) {
	c := x.cursor(buf)
	var n int64
	for i := 0; ; i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return idIndex{}, 0, err
			}
		}
		p, err := r.Next()
		if err != nil {
			return idIndex{}, 0, err
		}
		if p == nil {
			next, _ := c.done()
			return next, n, nil
		}
		v := c.take(p.ID)
		if v != promoted {
			if v += p.Games(); v >= d.minGames {
				v = promoted
				n++
			}
		}
		c.put(p.ID, v)
	}
}

// youngName is the name of a young run (the file name it had in the
// legacy young folder).
func youngName(prefix, id string) string {
	return prefix + "-" + strings.ReplaceAll(id, "/", "_") + shard.Suffix
}
