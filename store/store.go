package store

import (
	"context"
	"io"
)

// Store is the set of operations every statistics backend provides, so a
// second backend (PostgreSQL) can stand behind the same callers:
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
	Totals(ctx context.Context) (Totals, error)
	ScanMoves(ctx context.Context, minGames int64, fn func(MoveStat) error) error
	MoveStats(ctx context.Context, key string) ([]MoveStat, error)
	Export(ctx context.Context, w io.Writer) error
	ExportRun(ctx context.Context, path string) error
	Blacklist(ctx context.Context) (Blacklist, error)
	Merged(ctx context.Context, id string) (bool, error)
	Meta(ctx context.Context) (map[string]string, error)
	SetMeta(ctx context.Context, m map[string]string) error
	// RecordRun numbers a new run in one transaction: n is one more than
	// the meta key "runs" (0 if absent), "runs" becomes n and the keys
	// fields(n) returns are set, so two jobs starting at once on one
	// database never take the same number.
	RecordRun(ctx context.Context, fields func(n int) map[string]string) (int, error)
	AddGeneration(ctx context.Context, g Generation) error
	Generations(ctx context.Context) ([]Generation, error)
	TeacherGames(ctx context.Context, from, to int, fn func(TeacherGame) error) error
	TeacherStored(ctx context.Context, gen int) (int64, error)
	PlanTeacher(ctx context.Context, p TeacherPlan) (TeacherPlan, error)
	JoinLoop(ctx context.Context) (LoopMember, error)
	Close() error
}

// ModelStore is a store that keeps the model files of the learning loop's
// generations, so that every machine feeding it can fetch the current
// models (README.md, "One job on many machines"): *PG does; a SQLite database's
// models are files beside it. The roles are RolePolicy and RoleValue.
type ModelStore interface {
	// PutModel stores b as generation gen's model of the role, replacing
	// what it held (a generation is rerun after a crash before its
	// record).
	PutModel(ctx context.Context, gen int, role string, b []byte) error
	// Model returns a model with its bytes, checked against their SHA-256
	// (ErrCorrupt if they differ); ErrNoModel if there is none.
	Model(ctx context.Context, gen int, role string) (Model, error)
	// Models lists the models kept, without their bytes, by generation
	// and role.
	Models(ctx context.Context) ([]Model, error)
}

// The roles of a generation's model files.
const (
	RolePolicy = "policy"
	RoleValue  = "value"
)

// Model is one model file of a generation as a ModelStore keeps it.
type Model struct {
	Gen     int
	Role    string
	Bytes   []byte // nil in Models' list
	Size    int64
	SHA256  string // hex digest of the bytes
	Created string // RFC 3339, UTC
}
