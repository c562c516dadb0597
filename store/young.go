package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// youngRun is a row of young_runs: a run file in the young directory whose
// positions belong to the database.
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

// cleanYoung removes files of the young directory that the database does
// not list: runs of a merge or prune that crashed before its commit, or
// whose commit failed. Only the writer calls it.
func (d *DB) cleanYoung(ctx context.Context) error {
	runs, err := listYoung(ctx, d.db)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(d.youngDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, r := range runs {
		listed[r.name] = true
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			if err := os.Remove(filepath.Join(d.youngDir, e.Name())); err != nil {
				return fmt.Errorf("remove stray young run: %w", err)
			}
		}
	}
	return nil
}

// snapshot is a consistent view of a database for reading: a transaction
// on the SQLite file and the young runs it lists, opened.
type snapshot struct {
	tx    *sql.Tx
	runs  []youngRun
	files []*os.File
}

// snapshot opens a view. A writer may replace young runs (a prune) between
// the transaction's start and the opening of the files; then it starts
// again: the writer removes old runs only after its commit.
func (d *DB) snapshot(ctx context.Context) (*snapshot, error) {
	for attempt := 0; ; attempt++ {
		s, err := d.trySnapshot(ctx)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || attempt == 20 {
			return s, err
		}
	}
}

func (d *DB) trySnapshot(ctx context.Context) (*snapshot, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(err)
	}
	s := &snapshot{tx: tx}
	if s.runs, err = listYoung(ctx, tx); err != nil {
		s.close()
		return nil, err
	}
	for _, r := range s.runs {
		f, err := os.Open(filepath.Join(d.youngDir, r.name))
		if err != nil {
			s.close()
			return nil, fmt.Errorf("young run: %w", err)
		}
		s.files = append(s.files, f)
	}
	return s, nil
}

func (s *snapshot) close() {
	for _, f := range s.files {
		f.Close()
	}
	s.tx.Rollback()
}

// merger returns a merger over the snapshot's young runs and, with
// withMature, the moves table.
func (s *snapshot) merger(ctx context.Context, withMature bool) (*merger, func(), error) {
	return s.filtered(ctx, withMature, nil)
}

// filtered is merger reading only the young runs' positions whose id
// keep() accepts (all with nil); keep makes one filter per run.
func (s *snapshot) filtered(ctx context.Context, withMature bool, keep func() func(int64) bool) (*merger, func(), error) {
	var srcs []source
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
	for i, f := range s.files {
		r, err := newRunReader(f, f.Name())
		if err != nil {
			return nil, done, fmt.Errorf("young run %s: %w", s.runs[i].name, err)
		}
		if keep != nil {
			r.keep = keep()
		}
		srcs = append(srcs, &runSource{r: r, born: s.runs[i].born})
	}
	m, err := newMerger(srcs, mature)
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
	d.minGames = DefaultPruneMinGames
	if v, err := strconv.ParseInt(m[metaPruneMin], 10, 64); err == nil && v >= 1 {
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
	for i, f := range s.files {
		r, err := newRunReader(f, f.Name())
		if err != nil {
			return nil, fmt.Errorf("young run %s: %w", s.runs[i].name, err)
		}
		r.skipKeys = true
		next, _, err := d.count(ctx, x, spare, r)
		if err != nil {
			return nil, fmt.Errorf("young run %s: %w", s.runs[i].name, err)
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
func (d *DB) count(ctx context.Context, x *idIndex, buf []idSlot, r *runReader) (idIndex, int64, error) {
	c := x.cursor(buf)
	var n int64
	for i := 0; ; i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return idIndex{}, 0, err
			}
		}
		p, err := r.next()
		if err != nil {
			return idIndex{}, 0, err
		}
		if p == nil {
			next, _ := c.done()
			return next, n, nil
		}
		v := c.take(p.id)
		if v != promoted {
			if v += p.games(); v >= d.minGames {
				v = promoted
				n++
			}
		}
		c.put(p.id, v)
	}
}

// youngName is the file name of a young run.
func youngName(prefix, id string) string {
	return prefix + "-" + strings.ReplaceAll(id, "/", "_") + runSuffix
}
