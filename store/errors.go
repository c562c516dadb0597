package store

import (
	"errors"
	"ocvist/internal/field"
)

// Sentinel errors for expected conditions. Errors returned by this package wrap
// them with the operation and the object; test with errors.Is.
var (
	// ErrNotOcvist: the file is not an Ocvist database or run file (another
	// program's file, a directory, or an empty file where an existing
	// database was required).
	ErrNotOcvist = errors.New("not an Ocvist database")
	// ErrShard: a run file (a worker's shard or a sealed export) was given
	// where a database is wanted; merge it into a database instead.
	ErrShard = errors.New("a shard (run file), not a database")
	// ErrRuleMismatch: the database holds statistics of another rule.
	ErrRuleMismatch = errors.New("rule mismatch")
	// ErrKeyVersion: the database uses another canonical key version.
	ErrKeyVersion = errors.New("key version mismatch")
	// ErrBoardSize: the database was created for another board size.
	ErrBoardSize = errors.New("board size mismatch")
	// ErrSchemaVersion: the database's schema (or a run file's format) is
	// newer than this program's (or, for a read-only open or a merge, not
	// exactly this program's).
	ErrSchemaVersion = errors.New("schema version mismatch")
	// ErrCorrupt: the file is damaged (truncated, malformed, failed check).
	ErrCorrupt = errors.New("database corrupt")
	// ErrReadOnly: a write was attempted on a database opened read-only.
	ErrReadOnly = errors.New("database opened read-only")
	// ErrInUse: another process holds the database's writer lock (one
	// writer per database), or is writing the database a merge reads.
	ErrInUse = errors.New("database in use by another process")
	// ErrUnpublished: a shard that was never sealed and published cannot be
	// merged.
	ErrUnpublished = errors.New("shard not sealed")
	// ErrOverlap: merging would count some games twice or hide some (the
	// source already contains a shard merged here, was merged here in
	// another state, or is this database itself).
	ErrOverlap = errors.New("merge would double-count")
	// ErrReservedMeta: SetMeta was asked to change a key the store manages.
	ErrReservedMeta = errors.New("reserved meta key")
	// ErrInvalidConfig: a Config or operation parameter is out of range
	// (every field.Error is one).
	ErrInvalidConfig = field.ErrInvalid
	// ErrInvalidGame: Batch.Add was given a malformed game.
	ErrInvalidGame = errors.New("invalid game")
	// ErrGenerationExists: AddGeneration was given a generation number
	// already recorded.
	ErrGenerationExists = errors.New("generation already recorded")
	// ErrNoModel: the database keeps no model file of that generation and
	// role (ModelStore).
	ErrNoModel = errors.New("no such model")
)

// DamageError reports a part of a database that cannot be read: a young
// run cut short, corrupt or missing. It wraps ErrCorrupt (and the cause).
// [DB.Check] lists such damage and [DB.Repair] drops it.
type DamageError struct {
	Path string // the database's file
	Run  string // the young run
	Err  error  // "young run NAME: …", wrapping ErrCorrupt
}

func (e *DamageError) Error() string { return e.Err.Error() }
func (e *DamageError) Unwrap() error { return e.Err }

// ErrServer: the PostgreSQL server cannot be reached or refused the
// connection (wrong address, password, database), or went away.
var ErrServer = errors.New("postgres server unavailable")
