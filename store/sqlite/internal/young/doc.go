// Package young is the SQLite backend's young tier: the young runs, each
// a run file (store/shard's format) whose positions belong to the
// database until it expires. It owns the tables young_runs (a row per run:
// its name, birth, counts, source and results) and young_data (the runs'
// bytes in chunks), the folder of young run files of a schema-4 database
// (see LegacySchema), and the writer's index of position ids (Index),
// which merges and prunes update as they read runs.
//
// Everything here works in the caller's transaction (a Querier): the
// backend (store/sqlite) begins, commits and rolls back, creates the
// tables (its migrations) and decides when a run is added, expired or
// dropped. A run that cannot be read is reported as a store.DamageError
// (Damaged). The package never prints, exits or starts goroutines.
package young

import (
	"context"
	"database/sql"
)

// Querier is what young needs of a transaction (*sql.Tx, or *sql.DB and
// *sql.Conn outside one).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
