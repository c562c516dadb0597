// Package store persists Ocvist's self-play statistics: per (position,
// move) the sum of weights, the number of games and a blacklist flag, with
// the games' totals, a merge ledger, run records and learning-loop
// generations.
//
// # Packages
//
// Package store is the domain: its types ([Game], [Record], [Stats],
// [Config], [TeacherGame], [TeacherPlan], [Claim], [Generation], …), the
// small interfaces callers use ([Store], [ModelStore], [LoopMember]) and
// the errors they test with errors.Is; it has no SQL and no file format.
// Beside it:
//
//   - store/shard: the run (shard) file format, its one home: Batch,
//     the writer, the reader, teacher shards and the sorted merges.
//   - store/sqlite: the SQLite backend (the default; *sqlite.DB), with
//     its young tier in store/sqlite/internal/young and the driver's
//     errors in store/sqlite/internal/sqlerr; check and repair are its
//     own.
//   - store/postgres: the PostgreSQL backend (*postgres.DB), for one job
//     on many machines; it also stores models ([ModelStore]).
//   - store/backend: the one place that opens either, by path or URL.
//   - store/internal/meta and store/internal/claim: what both backends
//     share (the reserved meta keys, the loop's claim protocol).
//   - store/storetest: the backends' shared test helpers (tests only).
//
// Below, "a backend" is either; names such as Merge and Prune are the
// [Store] methods both implement, and sqlite.DB's where only it has them.
//
// # Vocabulary
//
// A position is identified by its canonical key (package canon; opaque
// here) and, for ordering and routing, by its canon.ID, a 64-bit hash of
// the key. A move is a canon.Move. A finished game is a [Game]: one
// [Record] per move (weight +1 for the winner's moves, −1 for the loser's,
// 0 in a draw), the blacklisted moves (the loser's last move) and the
// result. A database's rule is a gomoku.Rule (freestyle, standard or
// renju), recorded in its meta table and in every run file's header;
// statistics of one rule never mix with another's (ErrRuleMismatch). The
// key (package canon) is the same under every rule.
//
// # Design: the store at scale
//
// Measured on the landed generation-0 self-play (2 cores): a game records
// about 44 moves, and about 40 of its positions are new; nearly all of
// them are never seen again. At 8,000 games/s that is 320,000 new
// positions a second, where go-sqlite3 upserts 30–40k rows/s and the old
// store's merges slowed as its B-tree grew. So rows that will be pruned
// never enter a B-tree:
//
//   - Workers batch games in memory (shard.Batch: appending records, no
//     hashing) and publish them (Batch.WriteShard) as a sealed run file:
//     positions sorted by id, key text stored once per position and packed
//     (about a byte a stone), a footer with the totals, a CRC-32C and a
//     trailer. The format is versioned (format 2 added the learning loop's
//     teacher games, record type 3, in teacher shards); store/shard's
//     run.go specifies it.
//   - Merge (SQLite) reads a sealed run once (checksum, order, counts)
//     and, as it reads it, copies its bytes into the database as a young
//     run (in young_data, 256 KiB chunks), and records it in young_runs, the
//     totals and the ledger, in one transaction: its cost is the shard's,
//     not the database's. While reading it, it updates the writer's index
//     (a sorted array of position ids, updated by a merge join): a
//     position seen in prune_min games is promoted. PostgreSQL appends the
//     shard's rows to its young table by COPY instead.
//   - Prune expires the young runs merged at least Age games ago (in
//     the database's game count), in batches: one k-way merge of them moves
//     the rows of promoted positions into the moves table (one
//     upsert per position and batch) and drops the others, keeping their
//     blacklisted moves by position id in the blacklist table; the expired
//     runs' rows and bytes are deleted in the same transaction. What is
//     dropped depends only on ages and counts, never on when Prune ran.
//   - Readers (Stats, Export, ScanMoves, Blacklist, Conclude) see the
//     whole database: a k-way merge of the moves table and every young
//     run, adding counts (a promoted position may have rows in both until
//     its runs expire).
//
// Figures (2 cores shared with other work, so rates vary by tens of
// percent between runs; CPU shares are steadier): with 2 workers the
// coordinator's merges and prunes took 4–9% of the job's CPU on 60-s runs
// (train run prints it); a worker's storing (BenchmarkPlayStored against
// BenchmarkPlay) costs about 4% of its self-play in the CPU profile; a
// young position takes about 50 bytes on disk, so the young runs hold
// about 2 KB per game of the last Age games (100 MB at the default Age of
// 50,000 games) plus up to eight shards awaiting a batched expiry (the
// file keeps its largest size: the pages of expired runs are reused by
// the next merges; SQLite's VACUUM would return them); the writer's index takes
// 16 bytes a position (twice while it is updated);
// the blacklist grows by about one move per decisive game: 16 bytes a move
// in a worker's memory, about 20 on disk, so 16–20 MB per million games.
// Storing young runs in the file instead of beside it (schema 5) costs a
// merge the writing of the shard's bytes: store/sqlite's BenchmarkMerge's 5,000-game
// shard (5 MB) took 35 ms instead of 18 (medians of 4 interleaved runs),
// about 3.5 µs a game; BenchmarkPrune 145 ms instead of 126; a reader
// takes about 0.6 ms more per MB of young run (BenchmarkYoungRead: 7.9
// against 5.0 ms for a 5 MB run read from a file).
//
// # One file (SQLite)
//
// A SQLite database is its one file: the young runs are inside it, so a
// copy of the file (cp a.db b.db) is the whole database, once no job is
// writing it (a writer's transaction is in the file and its -journal until
// it commits; after a crash, the next open rolls the journal back). Beside
// it are only DB.lock, the writer lock, which holds no data, and the
// shards a killed job left in DB.shards/ for its next run to merge (not
// yet part of the database). A database of schema 4 (young runs in a folder
// DB.young/ beside the file) is migrated when it is opened for writing:
// migration 5 copies the folder's runs into the file, in its transaction,
// and then removes the folder; a read-only open reads them in the folder.
//
// sqlite.DB.Check verifies a database without changing it: SQLite's
// integrity check, every young run read through against its row, the
// runs' game ranges, the totals and the ledger. A reader that meets a
// young run it cannot read returns a [DamageError]; sqlite.DB.Repair takes
// such runs out as if they had never been merged (their games off the
// totals, their sources out of the ledger, so that they can be merged
// again) and says what it dropped.
//
// # Use
//
// A worker: shard.NewBatch, Batch.Add per game, Batch.WriteShard every
// few thousand games. The learning loop's teacher games take the same
// path: a worker publishes them with shard.WriteTeacherShard (run format
// 2, kind T), and Merge adds them to the teacher games, once per
// (generation, game), with the ledger row in the same transaction; they
// are never pruned. The loop's members claim blocks of a generation's
// games (Store.JoinLoop, [LoopMember.Claim]; the protocol is
// store/internal/claim's), so that no game is played twice while its
// player lives, on one machine or many. The coordinator opens its store
// through store/backend (one writer per SQLite database: a flock on
// DB.lock, refused at once with [ErrInUse] and released when the process
// dies), then calls Merge per published shard, Prune now and then and at
// the end, and Conclude. Readers open read-only (backend.OpenReadOnlyAt),
// which for SQLite never writes or creates a file, so a database can be
// read in a read-only directory and beside a running job (a reader rolls
// back a crashed writer's journal if no writer is running). ExportRun
// writes a database's state as a sealed export that Merge accepts
// anywhere (either backend), exactly once.
//
// A database records the rule, key version, board size and schema version
// it was created with; opening it and Merge refuse, with a sentinel error
// and without modifying anything, a file that is not an Ocvist database
// ([ErrNotOcvist]), a run file where a database is wanted ([ErrShard]), one
// of another rule ([ErrRuleMismatch]), key version ([ErrKeyVersion]),
// board size ([ErrBoardSize]) or a newer schema or run format
// ([ErrSchemaVersion]); a damaged file gives [ErrCorrupt], a damaged young
// run a [DamageError] (which wraps ErrCorrupt). Opening for writing
// migrates an older schema in place; a SQLite merge source must be of the
// current schema or of schema 4.
//
// # Contract
//
// The store packages never print, exit or start goroutines. Every public
// operation is one transaction: it happens entirely or not at all (a young
// run's bytes are written in the transaction that records it). A backend's
// DB is safe for use by several goroutines of one process (SQLite's
// methods run one at a time). Errors start with "store: ", name the
// operation and the object, and wrap a sentinel where the condition is
// expected (test with errors.Is).
//
// # Formats and where each is specified
//
//   - The canonical key and its packed form: package canon (the key
//     version is recorded in every database and run file).
//   - The run file (shards, exports, young runs, teacher shards) and the
//     teacher games' plies: store/shard (run.go, teachercodec.go), with
//     its format version.
//   - The SQLite schema: store/sqlite/migrations/*.sql, embedded and
//     recorded in schema_migrations; summarised below.
//   - The PostgreSQL schema: store/postgres/migrations/*.sql, likewise.
//   - The meta table's reserved keys: store/internal/meta.
//
// # SQLite schema (version 6; store/sqlite/migrations/*.sql)
//
// SQLite with a rollback journal (writes are few and large; a database
// without a WAL can be read from a read-only directory) and PRAGMA
// application_id 0x4F435653 ("OCVS"). Beside the file DB: DB.lock (the
// writer lock).
//
//	schema_migrations(version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)
//	    one row per applied migration.
//	meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID
//	    reserved keys: schema_version, key_version, rule, board_size, created
//	    (RFC 3339 UTC), db_id (random hex), kind ("db"), state (a new random
//	    id at every change: what a merge ledger records of a database),
//	    prune_min (the promotion threshold); other keys are free-form run
//	    records (seed, config JSON) set with SetMeta.
//	moves(pid INTEGER, key TEXT, mx INTEGER, my INTEGER, wsum INTEGER,
//	      games INTEGER, blacklisted INTEGER,
//	      PRIMARY KEY(pid, key, mx, my)) WITHOUT ROWID
//	    promoted positions' rows (pid = canon.ID(key)), as far as their
//	    young runs have expired; blacklisted is sticky.
//	young_runs(name TEXT PRIMARY KEY, born INTEGER, games, positions, rows,
//	           bytes, source TEXT, black_wins, white_wins, draws) WITHOUT ROWID
//	    the young runs; born is the game count after the merge that added
//	    the run, source its source's id in the ledger, the results those
//	    of its games (NULL: unknown, for a run cut short before migration
//	    5 read them).
//	young_data(run TEXT, off INTEGER, data BLOB, PRIMARY KEY(run, off))
//	    the young runs' bytes (run files), in chunks of up to
//	    256 KiB at offset off.
//	blacklist(pid INTEGER, mx INTEGER, my INTEGER,
//	          PRIMARY KEY(pid, mx, my)) WITHOUT ROWID
//	    blacklisted moves of dropped positions.
//	totals(id INTEGER PRIMARY KEY CHECK (id = 1), games, black_wins,
//	       white_wins, draws)
//	    one row: counts of recorded games by result.
//	merged_shards(shard_id TEXT PRIMARY KEY, path TEXT, games INTEGER,
//	              merged_at TEXT, via TEXT, seal TEXT, kind TEXT) WITHOUT ROWID
//	    the merge ledger: every source whose games were added here, directly
//	    (via = "") or inside another merged source (via = its id), with its
//	    seal (a run's checksum and size, "state <id>" for a database) and
//	    kind ("teacher" for a teacher shard, "" for statistics).
//	generations(gen INTEGER PRIMARY KEY, games, rows, fit_seconds REAL,
//	            auc REAL, score REAL, score_low REAL, score_high REAL,
//	            model TEXT, seed INTEGER, created TEXT, details TEXT)
//	    one row per learning-loop generation; see [Generation].
//	teacher_games(gen INTEGER, game INTEGER, book INTEGER, winner INTEGER,
//	              moves BLOB, teacher BLOB, plies BLOB,
//	              PRIMARY KEY(gen, game)) WITHOUT ROWID
//	    the learning loop's games, see [TeacherGame]: points one byte each
//	    (y·15+x), plies as store/shard encodes them (empty before schema 6).
//	teacher_plans(gen INTEGER PRIMARY KEY, games, block, recipe TEXT, created)
//	teacher_claims(gen INTEGER, block INTEGER, member INTEGER, claimed TEXT,
//	               PRIMARY KEY(gen, block)) WITHOUT ROWID
//	    a generation's quota of teacher games in blocks and who claimed
//	    each block; see [TeacherPlan], [LoopMember].
//
// Shard files are named shard-<id>.run when sealed and .shard-<id>.run.tmp
// while being written; an unsealed file is never merged
// (shard.CleanTemp removes those left by a crash).
package store
