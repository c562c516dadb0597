package store

import "errors"

// Sentinel errors for expected conditions. Errors returned by this package wrap
// them with the operation and the object; test with errors.Is.
var (
	// ErrNotOcvist: the file is not an Ocvist database (not SQLite, another
	// program's SQLite file, a directory, or an empty file where an existing
	// database was required).
	ErrNotOcvist = errors.New("not an Ocvist database")
	// ErrRuleMismatch: the database holds statistics of another rule.
	ErrRuleMismatch = errors.New("rule mismatch")
	// ErrKeyVersion: the database uses another canonical key version.
	ErrKeyVersion = errors.New("key version mismatch")
	// ErrBoardSize: the database was created for another board size.
	ErrBoardSize = errors.New("board size mismatch")
	// ErrSchemaVersion: the database's schema is newer than this program's (or,
	// for a read-only open or a merge, not exactly this program's).
	ErrSchemaVersion = errors.New("schema version mismatch")
	// ErrCorrupt: the file is damaged (truncated, malformed, failed check).
	ErrCorrupt = errors.New("database corrupt")
	// ErrReadOnly: a write was attempted on a database opened read-only.
	ErrReadOnly = errors.New("database opened read-only")
	// ErrUnpublished: a shard that was never published cannot be merged.
	ErrUnpublished = errors.New("shard not published")
	// ErrOverlap: merging would count some games twice (the source already
	// contains a shard merged here, or it is this database itself).
	ErrOverlap = errors.New("merge would double-count")
	// ErrReservedMeta: SetMeta was asked to change a key the store manages.
	ErrReservedMeta = errors.New("reserved meta key")
	// ErrInvalidConfig: a Config or operation parameter is out of range.
	ErrInvalidConfig = errors.New("invalid configuration")
	// ErrInvalidGame: Batch.Add was given a malformed game.
	ErrInvalidGame = errors.New("invalid game")
	// ErrGenerationExists: AddGeneration was given a generation number
	// already recorded.
	ErrGenerationExists = errors.New("generation already recorded")
)
