package store

import (
	"context"
	"io"
)

// Store is the set of operations every statistics backend provides, so a
// second backend (PostgreSQL, issue 13) can stand behind the same callers:
// merge sealed run files exactly once (the ledger row with the counts, in
// one transaction), prune, conclude, read (stats, export, the forest's
// scan, the blacklist), and keep run records and generations. *DB, the
// embedded SQLite backend, implements it, and *PG, the PostgreSQL one. The run file format (run.go) and
// Batch are backend-neutral: workers write the same shards whatever stores
// them.
type Store interface {
	Config() Config
	ID() string
	Path() string // the file, or the server's URL with the password masked
	Checkpoint(ctx context.Context) error
	Merge(ctx context.Context, path string) (MergeResult, error)
	Prune(ctx context.Context, c PruneConfig) (PruneResult, error)
	Conclude(ctx context.Context, c ConcludeConfig) (int64, error)
	Stats(ctx context.Context) (Stats, error)
	ScanMoves(ctx context.Context, minGames int64, fn func(MoveStat) error) error
	MoveStats(ctx context.Context, key string) ([]MoveStat, error)
	Export(ctx context.Context, w io.Writer) error
	ExportRun(ctx context.Context, path string) error
	Blacklist(ctx context.Context) (Blacklist, error)
	Merged(ctx context.Context, id string) (bool, error)
	Meta(ctx context.Context) (map[string]string, error)
	SetMeta(ctx context.Context, m map[string]string) error
	AddGeneration(ctx context.Context, g Generation) error
	Generations(ctx context.Context) ([]Generation, error)
	AddTeacherGames(ctx context.Context, games []TeacherGame) (int64, error)
	TeacherGames(ctx context.Context, from, to int, fn func(TeacherGame) error) error
	Close() error
}

var _ Store = (*DB)(nil)
