// Package store persists Ocvist's self-play statistics in SQLite (go-sqlite3).
//
// # Vocabulary
//
// A position is identified by its canonical key (a string produced by package
// canon; opaque here; the empty board's key is ""). A move is a [Move], an
// offset from the canonical box corner (it may be negative). A finished game is
// a [Game]: one [Record] per move (weight +1 for the winner's moves, −1 for the
// loser's, 0 in a draw), the blacklisted moves (the loser's last move) and the
// result.
//
// # Use
//
// Self-play aggregates games in memory with a [Batch] (early positions repeat a
// lot) and writes it with [DB.Write] in one transaction. A worker writes into
// its own [Shard] (created under a temporary name, [Shard.Publish] renames it
// when complete); the coordinator merges published shards into the main
// database with [DB.Merge], which adds counts exactly and records the shard in a
// ledger so that merging it again changes nothing. After merging: [DB.Prune]
// (only ever on merged data, never inside a worker), [DB.Conclude], then
// [DB.Checkpoint] or [DB.Vacuum]. The forest reads training rows with
// [DB.ScanMoves]; self-play loads the blacklist with [DB.Blacklist].
//
// A database records the rule, key version, board size and schema version it
// was created with; [Open] and [DB.Merge] refuse, with a sentinel error and
// without modifying anything, a file that is not an Ocvist database
// ([ErrNotOcvist]), or one of another rule ([ErrRuleMismatch]), key version
// ([ErrKeyVersion]), board size ([ErrBoardSize]) or a newer schema
// ([ErrSchemaVersion]); a damaged file gives [ErrCorrupt]. [Open] migrates an
// older schema in place; [DB.Merge] refuses a source of any other schema
// version (ErrSchemaVersion) rather than migrate it, since sources are never
// modified: merge shards with the program that wrote them, or open them with
// [Open] first.
//
// # Contract
//
// The package never prints, exits or starts goroutines. Every public operation
// is one transaction (or one statement): it happens entirely or not at all. A
// [DB] is safe for use by several goroutines of one process; several processes
// may read one database while one writes, but workers should each write their
// own shard (two writers of one WAL file are no faster than one). Errors start
// with "store: ", name the operation and the object, and wrap a sentinel where
// the condition is expected (test with errors.Is).
//
// # Schema (version 2; migrations embedded from migrations/*.sql)
//
// Databases use WAL journaling and PRAGMA application_id 0x4F435653 ("OCVS").
// Published shards are converted to rollback-journal mode so that one file is
// the whole shard.
//
//	schema_migrations(version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)
//	    one row per applied migration.
//	meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID
//	    reserved keys: schema_version, key_version, rule, board_size, created
//	    (RFC 3339 UTC), db_id (random hex; a shard's shard_id), kind ("db" or
//	    "shard"), published ("1" once a shard is complete); other keys are
//	    free-form run records (seed, config JSON) set with [DB.SetMeta].
//	moves(key TEXT, mx INTEGER, my INTEGER, wsum INTEGER, games INTEGER,
//	      blacklisted INTEGER, PRIMARY KEY(key, mx, my)) WITHOUT ROWID
//	    per (position, move): sum of weights, number of games in which the move
//	    was played in the position, and 1 if the move is blacklisted (sticky).
//	positions(key, games) VIEW:
//	        SELECT key, sum(games) FROM moves GROUP BY key
//	    per position: number of games in which it occurred. Derived, not
//	    stored: every game that reaches a position plays exactly one recorded
//	    move there, and prune deletes a position's moves together, so the sum
//	    is exact. (Schema 1 stored it as a table, which doubled the rows every
//	    write and merge placed in the B-trees; migration 2 drops the table,
//	    leaving its pages free for reuse until a [DB.Vacuum].)
//	totals(id INTEGER PRIMARY KEY CHECK (id = 1), games, black_wins,
//	       white_wins, draws)
//	    one row: counts of recorded games by result.
//	merged_shards(shard_id TEXT PRIMARY KEY, path TEXT, games INTEGER,
//	              merged_at TEXT, via TEXT) WITHOUT ROWID
//	    the merge ledger: every database whose counts were added here, directly
//	    (via = "") or inside another merged database (via = its db_id).
//	generations(gen INTEGER PRIMARY KEY, games, rows, fit_seconds REAL,
//	            auc REAL, score REAL, score_low REAL, score_high REAL,
//	            model TEXT, seed INTEGER, created TEXT)
//	    one row per learning-loop generation; see [Generation].
//
// Shard files are named shard-<id>.db when published and .shard-<id>.tmp.db
// while being written; a temporary shard is never merged ([CleanTemp] removes
// those left by a crash).
package store
