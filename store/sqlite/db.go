package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/mattn/go-sqlite3"

	"ocvist/canon"
	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
	"ocvist/store/sqlite/internal/young"
)

// SchemaVersion is the schema version this package writes: the number of
// embedded migrations.
var SchemaVersion = len(migrationNames())

// applicationID marks Ocvist databases in the SQLite header ("OCVS").
const applicationID = 0x4F435653

// driverName is go-sqlite3 with the ocvist_pid(key) SQL function
// (canon.ID), which migration 3 needs.
const driverName = "sqlite3_ocvist"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		return c.RegisterFunc("ocvist_pid", canon.ID, true)
	}})
}

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationNames lists the embedded migrations in order; migration i+1 is
// names[i]. Names start with their zero-padded version.
func migrationNames() []string {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		panic("store: embedded migrations: " + err.Error()) // build defect
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		if v, _, _ := strings.Cut(e.Name(), "_"); v != fmt.Sprintf("%03d", i+1) {
			panic("store: embedded migration out of sequence: " + e.Name()) // build defect
		}
		names[i] = e.Name()
	}
	return names
}

// DB is an open Ocvist statistics database: one SQLite file, its young
// runs included. Its methods are safe for concurrent use by several
// goroutines; they run one at a time.
type DB struct {
	mu       sync.Mutex
	db       *sql.DB
	path     string // absolute
	youngDir string // the young folder of a legacy database (schema 4)
	schema   int    // the file's schema (a reader's may be young.LegacySchema)
	cfg      store.Config
	id       string
	readOnly bool
	lock     *os.File // writer lock; nil when read-only
	// The writer's index, loaded by the first merge or prune (see index):
	// per position id, promoted (−1) or the games of the position in the
	// young runs.
	idx      *young.Index
	minGames int64 // promotion threshold, meta prune_min
	// The learning loop's live members (JoinLoop) and the one leading
	// (0: none): the writer's process is the only one that has any.
	members map[int64]bool
	leader  int64
}

type openMode int

const (
	modeCreate   openMode = iota // Open: create if absent, else check config
	modeExisting                 // OpenExisting: must exist, config from file
	modeReadOnly                 // OpenReadOnly: must exist, never written
)

// Open opens the database at path for writing, creating it with cfg if the
// file is absent (or empty). It takes the database's writer lock (see
// ErrInUse) until Close. An existing file must be an Ocvist database of
// cfg's rule, key version and board size, and of a schema not newer than
// SchemaVersion (older schemas are migrated); otherwise Open returns an
// error wrapping ErrNotOcvist, ErrShard, ErrRuleMismatch, ErrKeyVersion,
// ErrBoardSize, ErrSchemaVersion or ErrCorrupt and leaves the file
// unchanged.
func Open(path string, cfg store.Config) (*DB, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return open(path, &cfg, modeCreate)
}

// OpenExisting opens an existing Ocvist database for writing (taking its
// writer lock), with the configuration recorded in the file. A missing file
// gives an error wrapping fs.ErrNotExist.
func OpenExisting(path string) (*DB, error) {
	return open(path, nil, modeExisting)
}

// OpenReadOnly opens an existing Ocvist database read-only (stats, export,
// fit, merging from it): it never writes or creates a file, so it works in
// a read-only directory and beside a running job, and its write methods
// return ErrReadOnly. The schema must be SchemaVersion, or schema 4 (young
// runs in a folder beside the file), which it reads as it is.
func OpenReadOnly(path string) (*DB, error) {
	return open(path, nil, modeReadOnly)
}

func open(path string, want *store.Config, mode openMode) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	d, err := openAbs(abs, want, mode)
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	return d, nil
}

func openAbs(abs string, want *store.Config, mode openMode) (d *DB, err error) {
	if err := inspectRecovering(abs, mode, want); err != nil {
		return nil, err
	}
	d = &DB{path: abs, youngDir: abs + ".young", readOnly: mode == modeReadOnly}
	if !d.readOnly {
		lock, err := lockWriter(abs)
		if err != nil {
			return nil, err
		}
		d.lock = lock
		defer func() {
			if err != nil {
				unlock(lock)
			}
		}()
	}
	// Inspect again under the lock: another writer may have created it.
	create, h, err := inspect(abs, mode, want)
	if err != nil {
		return nil, err
	}
	if err := d.connect(create, h, want); err != nil {
		return nil, err
	}
	return d, nil
}

// inspectRecovering inspects abs before any lock is taken, so that a
// refused file is refused early. A writer that died in a transaction left
// its journal, which only a writer can roll back: a read-only inspect
// meets it as "readonly database", so roll it back (if no writer is
// running) and inspect again.
func inspectRecovering(abs string, mode openMode, want *store.Config) error {
	_, _, err := inspect(abs, mode, want)
	if sqlerr.IsReadOnly(err) && mode == modeReadOnly {
		if rerr := recoverJournal(abs); rerr != nil {
			return fmt.Errorf("%w (a crashed job left a journal to roll back: %v)", err, rerr)
		}
		_, _, err = inspect(abs, mode, want)
	}
	return err
}

// connect opens d's SQL connection and brings the file to the current
// schema: created (create) or migrated from h's schema; a writer removes
// what is left of a legacy young folder. It closes the connection on
// error.
func (d *DB) connect(create bool, h meta.Header, want *store.Config) error {
	var err error
	d.db, err = sql.Open(driverName, dsn(d.path, d.readOnly))
	if err != nil {
		return err
	}
	if !d.readOnly {
		// One connection: statements of one operation never wait for each
		// other.
		d.db.SetMaxOpenConns(1)
	}
	ctx := context.Background()
	switch {
	case create:
		h, err = initialize(ctx, d.db, *want)
	case !d.readOnly && h.Schema < SchemaVersion:
		err = migrateExisting(ctx, d.db, h.Schema, d.youngDir)
		h.Schema = SchemaVersion
	}
	if err != nil {
		return errors.Join(err, d.db.Close())
	}
	if !d.readOnly {
		young.RemoveDir(d.youngDir)
	}
	d.cfg, d.id, d.schema = h.Config, h.ID, h.Schema
	return nil
}

// inspect decides whether abs must be created and otherwise reads its header
// through a read-only connection, so that a refused file is never modified.
func inspect(abs string, mode openMode, want *store.Config) (create bool, h meta.Header, err error) {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) && mode == modeCreate:
		if dir, err := os.Stat(filepath.Dir(abs)); err != nil {
			return false, h, err
		} else if !dir.IsDir() {
			return false, h, fmt.Errorf("%s is not a directory", filepath.Dir(abs))
		}
		return true, h, nil
	case err != nil:
		return false, h, err
	case fi.IsDir():
		return false, h, fmt.Errorf("%w: is a directory", store.ErrNotOcvist)
	case shard.IsRunFile(abs):
		return false, h, fmt.Errorf("%w: merge it into a database instead", store.ErrShard)
	}
	h, empty, err := probe(context.Background(), abs)
	switch {
	case err != nil:
		return false, h, err
	case empty && mode == modeCreate:
		return true, h, nil
	case empty:
		return false, h, fmt.Errorf("%w: empty database", store.ErrNotOcvist)
	case h.Kind != meta.KindDB:
		return false, h, fmt.Errorf("%w: a shard of an older version (kind %q): merge it into a database", store.ErrShard, h.Kind)
	case want != nil:
		if err := meta.Compatible(*want, h); err != nil {
			return false, h, err
		}
	}
	if h.Schema > SchemaVersion || mode == modeReadOnly && h.Schema < young.LegacySchema {
		return false, h, fmt.Errorf("%w: file has schema %d, this program %d", store.ErrSchemaVersion, h.Schema, SchemaVersion)
	}
	return false, h, nil
}

// probe reads the header of the SQLite file at abs read-only. empty reports a
// file with no tables and no application id (a new database).
func probe(ctx context.Context, abs string) (h meta.Header, empty bool, err error) {
	db, err := sql.Open(driverName, dsn(abs, true))
	if err != nil {
		return h, false, err
	}
	defer db.Close() // read-only: nothing to lose
	var appID, tables int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return h, false, sqlerr.Classify(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return h, false, sqlerr.Classify(err)
	}
	if appID == 0 && tables == 0 {
		return h, true, nil
	}
	if appID != applicationID {
		return h, false, fmt.Errorf("%w: SQLite file of another program (application id %#x, want %#x)", store.ErrNotOcvist, appID, applicationID)
	}
	if err := checkLength(ctx, db, abs); err != nil {
		return h, false, err
	}
	m, err := readMeta(ctx, db)
	if err != nil {
		return h, false, sqlerr.Classify(err)
	}
	h, err = meta.Parse(m)
	return h, false, err
}

// checkLength detects a truncated file: without a WAL, the file must hold all
// the pages SQLite expects.
func checkLength(ctx context.Context, db *sql.DB, abs string) error {
	if _, err := os.Stat(abs + "-wal"); err == nil {
		return nil
	}
	var pages, size int64
	if err := db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return sqlerr.Classify(err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return sqlerr.Classify(err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if fi.Size() < pages*size {
		return fmt.Errorf("%w: truncated: %d bytes, want %d", store.ErrCorrupt, fi.Size(), pages*size)
	}
	return nil
}

// recoverJournal rolls back the journal a crashed writer left, under the
// writer lock: the first read of a read-write connection does it.
func recoverJournal(abs string) error {
	lock, err := lockWriter(abs)
	if err != nil {
		return err
	}
	defer unlock(lock)
	db, err := sql.Open(driverName, "file:"+strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(abs)+"?_busy_timeout=60000")
	if err != nil {
		return err
	}
	var n int
	err = db.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&n)
	return errors.Join(err, db.Close())
}

// dsn builds the go-sqlite3 data source name. The one writer uses a
// rollback journal (its transactions are few and large now that merges
// only record runs, and a database without a WAL can be read from a
// read-only directory, and is not changed by merely opening it) and takes
// the write lock at BEGIN (no deadlocking lock upgrades); readers open the
// file read-only and never create a journal or lock file.
func dsn(abs string, readOnly bool) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	u := "file:" + r.Replace(abs) + "?_busy_timeout=60000"
	if readOnly {
		return u + "&mode=ro"
	}
	return u + "&_journal_mode=DELETE&_txlock=immediate&_synchronous=FULL&_cache_size=-65536"
}

// initialize creates the schema and the meta of a new database in one
// transaction.
func initialize(ctx context.Context, db *sql.DB, cfg store.Config) (meta.Header, error) {
	h := meta.Header{Config: cfg, Schema: SchemaVersion, ID: shard.NewID(), Kind: meta.KindDB}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return h, err
	}
	defer tx.Rollback()
	if err := migrate(ctx, tx, 0, ""); err != nil {
		return h, err
	}
	// A constant, not user input: PRAGMA takes no parameters.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return h, err
	}
	meta := map[string]string{
		meta.KeyKeyVersion: strconv.Itoa(cfg.KeyVersion),
		meta.KeyRule:       cfg.Rule.String(),
		meta.KeyBoardSize:  strconv.Itoa(cfg.BoardSize),
		meta.KeyCreated:    meta.Now(),
		meta.KeyID:         h.ID,
		meta.KeyKind:       meta.KindDB,
	}
	if err := putMeta(ctx, tx, meta); err != nil {
		return h, err
	}
	if err := touch(ctx, tx); err != nil {
		return h, err
	}
	return h, tx.Commit()
}

// migrateExisting applies the migrations after version from in one
// transaction; youngDir is the legacy young folder (migration 5).
func migrateExisting(ctx context.Context, db *sql.DB, from int, youngDir string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := migrate(ctx, tx, from, youngDir); err != nil {
		return err
	}
	if err := touch(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// migrationCode is the Go code of a migration, run after its SQL in the
// same transaction: migration 5 imports the young folder (young.ImportDir).
var migrationCode = map[int]func(ctx context.Context, tx *sql.Tx, youngDir string) error{
	5: young.ImportDir,
}

// migrate applies the embedded migrations after version from, recording each
// in schema_migrations and the result in meta.schema_version. youngDir is
// the folder of a legacy database's young runs ("" for a new database).
func migrate(ctx context.Context, tx *sql.Tx, from int, youngDir string) error {
	const ledger = `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`
	if _, err := tx.ExecContext(ctx, ledger); err != nil {
		return err
	}
	names := migrationNames()
	for v := from + 1; v <= len(names); v++ {
		src, err := migrationFS.ReadFile("migrations/" + names[v-1])
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(src)); err != nil {
			return fmt.Errorf("migration %s: %w", names[v-1], err)
		}
		if code := migrationCode[v]; code != nil && youngDir != "" {
			if err := code(ctx, tx, youngDir); err != nil {
				return fmt.Errorf("migration %s: %w", names[v-1], err)
			}
		}
		const rec = "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"
		if _, err := tx.ExecContext(ctx, rec, v, names[v-1], meta.Now()); err != nil {
			return err
		}
	}
	return putMeta(ctx, tx, map[string]string{meta.KeySchemaVersion: strconv.Itoa(len(names))})
}

// touch gives the database a new state id: every transaction that changes
// statistics calls it, so a merge ledger can tell two states of one
// database (or of its copies) apart.
func touch(ctx context.Context, q querier) error {
	return putMeta(ctx, q, map[string]string{meta.KeyState: shard.NewID()})
}

// querier is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readMeta reads the whole meta table.
func readMeta(ctx context.Context, q querier) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT key, value FROM meta")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := make(map[string]string)
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, rows.Err()
}

// putMeta inserts or replaces meta entries.
func putMeta(ctx context.Context, q querier, m map[string]string) error {
	const put = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
	for k, v := range m {
		if _, err := q.ExecContext(ctx, put, k, v); err != nil {
			return err
		}
	}
	return nil
}

// Path is the database's absolute file path.
func (d *DB) Path() string { return d.path }

// Config is the configuration recorded in the database.
func (d *DB) Config() store.Config { return d.cfg }

// ID is the database's unique id (db_id).
func (d *DB) ID() string { return d.id }

// Close closes the database and releases the writer lock.
func (d *DB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := errors.Join(d.db.Close(), unlock(d.lock))
	if err != nil {
		return fmt.Errorf("store: close %q: %w", d.path, err)
	}
	return nil
}

// writable returns an error wrapping ErrReadOnly for a read-only database.
func (d *DB) writable(op string) error {
	if d.readOnly {
		return fmt.Errorf("store: %s %q: %w", op, d.path, store.ErrReadOnly)
	}
	return nil
}

// Meta returns all meta entries, reserved ones included.
func (d *DB) Meta(ctx context.Context) (map[string]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, err := readMeta(ctx, d.db)
	if err != nil {
		return nil, fmt.Errorf("store: read meta %q: %w", d.path, err)
	}
	return m, nil
}

// SetMeta records free-form entries (e.g. a run's seed and config JSON) in
// one transaction, replacing existing values. Reserved keys (see the package
// documentation) give an error wrapping ErrReservedMeta and nothing is set.
func (d *DB) SetMeta(ctx context.Context, m map[string]string) error {
	if err := d.writable("set meta"); err != nil {
		return err
	}
	for k := range m {
		if meta.Reserved[k] {
			return fmt.Errorf("store: set meta %q in %q: %w", k, d.path, store.ErrReservedMeta)
		}
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error { return putMeta(ctx, tx, m) })
	if err != nil {
		return fmt.Errorf("store: set meta %q: %w", d.path, err)
	}
	return nil
}

// RecordRun numbers a new run in one (immediate) transaction.
func (d *DB) RecordRun(ctx context.Context, fields func(n int) map[string]string) (int, error) {
	if err := d.writable("record a run"); err != nil {
		return 0, err
	}
	var n int
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var runs string
		switch err := tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'runs'").Scan(&runs); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		}
		next, m, err := meta.NextRun(runs, fields)
		if err != nil {
			return err
		}
		n = next
		return putMeta(ctx, tx, m)
	})
	if err != nil {
		return 0, fmt.Errorf("store: record a run in %q: %w", d.path, err)
	}
	return n, nil
}

// inTx runs fn in one transaction and commits it, one operation at a time.
func (d *DB) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inTxLocked(ctx, fn)
}

func (d *DB) inTxLocked(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// execCount executes a statement and returns the rows it changed.
func execCount(ctx context.Context, q querier, query string, args ...any) (int64, error) {
	r, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

var _ store.Store = (*DB)(nil)
