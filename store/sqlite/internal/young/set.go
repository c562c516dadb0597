package young

import (
	"context"
	"fmt"
	"os"

	"ocvist/store"
	"ocvist/store/shard"
)

// Set is the young runs of a database as one transaction sees them, each
// opened on demand: their bytes in young_data or, in a database of schema
// 4 read without migrating it, files of its young folder.
type Set struct {
	Runs     []Run
	ctx      context.Context
	q        Querier
	path     string     // the database, for DamageError
	legacy   bool       // schema 4: the runs are files
	files    []*os.File // legacy: the runs' files, opened (nil: see openErrs)
	openErrs []error
}

// Load lists the young runs of the database at path, in q's transaction.
func Load(ctx context.Context, q Querier, path string) (*Set, error) {
	runs, err := List(ctx, q)
	if err != nil {
		return nil, err
	}
	return &Set{Runs: runs, ctx: ctx, q: q, path: path}, nil
}

// LoadLegacy lists the young runs of a database of schema 4 at path and
// opens their files in the folder dir. A legacy writer removed a run's
// file only after the commit that expired it, so the files q's
// transaction lists are there unless damage took them.
func LoadLegacy(ctx context.Context, q Querier, path, dir string) (*Set, error) {
	s, err := Load(ctx, q, path)
	if err != nil {
		return nil, err
	}
	s.legacy = true
	s.files, s.openErrs = openLegacy(dir, s.Runs)
	return s, nil
}

// Legacy reports a set of a schema-4 database, whose runs are files.
func (s *Set) Legacy() bool { return s.legacy }

// Close closes the legacy runs' files.
func (s *Set) Close() {
	for _, f := range s.files {
		if f != nil {
			f.Close()
		}
	}
}

// Open opens a reader of the run i.
func (s *Set) Open(i int) (*shard.Reader, error) {
	if !s.legacy {
		return Open(s.ctx, s.q, s.path, s.Runs[i])
	}
	f := s.files[i]
	if f == nil {
		return nil, Damaged(s.path, s.Runs[i].Name, s.openErrs[i])
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r, err := shard.NewReader(f, fi.Size(), s.Runs[i].Name)
	if err != nil {
		return nil, Damaged(s.path, s.Runs[i].Name, err)
	}
	return r, nil
}

// Source opens the run i as a source of a k-way merge, its positions born
// when the run was, reading only those whose id keep accepts (all with
// nil; see shard.Reader.Keep).
func (s *Set) Source(i int, keep func(int64) bool) (shard.Source, error) {
	r, err := s.Open(i)
	if err != nil {
		return nil, err
	}
	r.Keep = keep
	return &source{r: r, born: s.Runs[i].Born, db: s.path}, nil
}

// Verify reads the run i through, checking everything a run holds (ids
// against keys too), and returns its footer. A run that is not whole, or
// not of a kind a young run can be, gives a DamageError.
func (s *Set) Verify(i int) (shard.Footer, error) {
	r, err := s.Open(i)
	if err != nil {
		return shard.Footer{}, err
	}
	r.Strict = true
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := s.ctx.Err(); err != nil {
				return shard.Footer{}, err
			}
		}
		p, err := r.Next()
		if err != nil {
			return shard.Footer{}, Damaged(s.path, s.Runs[i].Name, err)
		}
		if p == nil {
			break
		}
	}
	if r.Header.Kind == shard.KindShard || r.Header.Kind == shard.KindExport {
		return r.Footer, nil
	}
	return r.Footer, Damaged(s.path, s.Runs[i].Name, fmt.Errorf("%w: a young run of kind %q", store.ErrCorrupt, r.Header.Kind))
}

// Merge opens the young runs of the database at path for one k-way merge,
// in q's transaction (their positions keep the birth their runs record).
func Merge(ctx context.Context, q Querier, path string, runs []Run) (*shard.Merger, error) {
	var srcs []shard.Source
	for _, run := range runs {
		r, err := Open(ctx, q, path, run)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, &source{r: r, db: path})
	}
	return shard.NewMerger(srcs, -1)
}

// source reads a run; positions without a born count get born. The run is
// a young run of the database db, whose damage is a DamageError.
type source struct {
	r    *shard.Reader
	born int64
	db   string
}

func (s *source) Next() (*shard.Position, error) {
	p, err := s.r.Next()
	if err != nil {
		return nil, Damaged(s.db, s.r.Path, err)
	}
	if p != nil && p.Born == 0 {
		p.Born = s.born
	}
	return p, nil
}
