package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
)

// SchemaVersion is the schema version this package writes: the number of
// embedded migrations.
var SchemaVersion = len(migrationNames())

// applicationID marks Ocvist databases in the SQLite header ("OCVS").
const applicationID = 0x4F435653

// Reserved meta keys, managed by the store.
const (
	metaSchemaVersion = "schema_version"
	metaKeyVersion    = "key_version"
	metaRule          = "rule"
	metaBoardSize     = "board_size"
	metaCreated       = "created"
	metaID            = "db_id"
	metaKind          = "kind"
	metaPublished     = "published"
)

var reservedMeta = map[string]bool{
	metaSchemaVersion: true, metaKeyVersion: true, metaRule: true, metaBoardSize: true,
	metaCreated: true, metaID: true, metaKind: true, metaPublished: true,
}

const (
	kindDB    = "db"
	kindShard = "shard"
)

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

// DB is an open Ocvist statistics database. Its methods are safe for
// concurrent use by several goroutines.
type DB struct {
	db       *sql.DB
	path     string // absolute
	cfg      Config
	id       string
	kind     string
	readOnly bool
}

// header is what a database file says about itself in its meta table.
type header struct {
	cfg       Config
	schema    int
	id        string
	kind      string
	published bool
}

type openMode int

const (
	modeCreate   openMode = iota // Open: create if absent, else check config
	modeExisting                 // OpenExisting: must exist, config from file
	modeReadOnly                 // OpenReadOnly: must exist, never written
)

// Open opens the database at path for reading and writing, creating it with
// cfg if the file is absent (or empty). An existing file must be an Ocvist
// database of cfg's rule, key version and board size, and of a schema not
// newer than SchemaVersion (older schemas are migrated); otherwise Open
// returns an error wrapping ErrNotOcvist, ErrRuleMismatch, ErrKeyVersion,
// ErrBoardSize, ErrSchemaVersion or ErrCorrupt and leaves the file unchanged.
func Open(path string, cfg Config) (*DB, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return open(path, &cfg, modeCreate, kindDB, nil)
}

// OpenExisting opens an existing Ocvist database for reading and writing,
// taking its configuration from the file (e.g. for merge without knowing the
// rule). A missing file gives an error wrapping fs.ErrNotExist.
func OpenExisting(path string) (*DB, error) {
	return open(path, nil, modeExisting, "", nil)
}

// OpenReadOnly opens an existing Ocvist database read-only (e.g. for stats):
// it never writes the file, and its write methods return ErrReadOnly. The
// schema must be exactly SchemaVersion.
func OpenReadOnly(path string) (*DB, error) {
	return open(path, nil, modeReadOnly, "", nil)
}

// open implements Open, OpenExisting, OpenReadOnly and shard creation. want
// is nil when the configuration is taken from the file.
func open(path string, want *Config, mode openMode, kind string, meta map[string]string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	create, h, err := inspect(abs, mode)
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	if !create && want != nil {
		if err := compatible(*want, h); err != nil {
			return nil, fmt.Errorf("store: open %q: %w", path, err)
		}
	}
	if !create && (h.schema > SchemaVersion || mode == modeReadOnly && h.schema != SchemaVersion) {
		return nil, fmt.Errorf("store: open %q: %w: file has schema %d, this program %d", path, ErrSchemaVersion, h.schema, SchemaVersion)
	}
	d := &DB{path: abs, readOnly: mode == modeReadOnly}
	d.db, err = sql.Open("sqlite3", dsn(abs, mode == modeReadOnly, kind == kindShard))
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	if kind == kindShard {
		// One connection: Publish changes the journal mode, which needs it.
		d.db.SetMaxOpenConns(1)
	}
	ctx := context.Background()
	switch {
	case create:
		h, err = initialize(ctx, d.db, *want, kind, meta)
	case mode != modeReadOnly && h.schema < SchemaVersion:
		err = migrateExisting(ctx, d.db, h.schema)
		h.schema = SchemaVersion
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("store: open %q: %w", path, err), d.db.Close())
	}
	d.cfg, d.id, d.kind = h.cfg, h.id, h.kind
	return d, nil
}

// inspect decides whether abs must be created and otherwise reads its header
// through a read-only connection, so that a refused file is never modified.
func inspect(abs string, mode openMode) (create bool, h header, err error) {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) && mode == modeCreate:
		return true, h, nil
	case err != nil:
		return false, h, err
	case fi.IsDir():
		return false, h, fmt.Errorf("%w: is a directory", ErrNotOcvist)
	}
	h, empty, err := probe(context.Background(), abs)
	switch {
	case err != nil:
		return false, h, err
	case empty && mode == modeCreate:
		return true, h, nil
	case empty:
		return false, h, fmt.Errorf("%w: empty database", ErrNotOcvist)
	}
	return false, h, nil
}

// probe reads the header of the SQLite file at abs read-only. empty reports a
// file with no tables and no application id (a new database).
func probe(ctx context.Context, abs string) (h header, empty bool, err error) {
	db, err := sql.Open("sqlite3", dsn(abs, true, false))
	if err != nil {
		return h, false, err
	}
	defer db.Close() // read-only: nothing to lose
	var appID, tables int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return h, false, classify(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return h, false, classify(err)
	}
	if appID == 0 && tables == 0 {
		return h, true, nil
	}
	if appID != applicationID {
		return h, false, fmt.Errorf("%w: SQLite file of another program (application id %#x, want %#x)", ErrNotOcvist, appID, applicationID)
	}
	if err := checkLength(ctx, db, abs); err != nil {
		return h, false, err
	}
	m, err := readMeta(ctx, db)
	if err != nil {
		return h, false, classify(err)
	}
	h, err = parseHeader(m)
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
		return classify(err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return classify(err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if fi.Size() < pages*size {
		return fmt.Errorf("%w: truncated: %d bytes, want %d", ErrCorrupt, fi.Size(), pages*size)
	}
	return nil
}

// classify maps SQLite's "not a database" and corruption codes to sentinels.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrNotADB:
			return fmt.Errorf("%w: %v", ErrNotOcvist, err)
		case sqlite3.ErrCorrupt:
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	if strings.Contains(err.Error(), "no such table") {
		return fmt.Errorf("%w: %v", ErrNotOcvist, err)
	}
	return err
}

// parseHeader extracts the reserved meta keys.
func parseHeader(m map[string]string) (header, error) {
	var h header
	var err error
	num := func(k string) int {
		v, e := strconv.Atoi(m[k])
		if e != nil && err == nil {
			err = fmt.Errorf("%w: meta %s = %q", ErrNotOcvist, k, m[k])
		}
		return v
	}
	h.schema = num(metaSchemaVersion)
	h.cfg.KeyVersion = num(metaKeyVersion)
	h.cfg.BoardSize = num(metaBoardSize)
	h.cfg.Rule, h.id, h.kind = m[metaRule], m[metaID], m[metaKind]
	h.published = m[metaPublished] == "1"
	if err == nil && (h.id == "" || h.kind == "") {
		err = fmt.Errorf("%w: meta lacks db_id or kind", ErrNotOcvist)
	}
	return h, err
}

// compatible checks that the file's header matches the wanted configuration.
func compatible(want Config, h header) error {
	switch {
	case h.cfg.Rule != want.Rule:
		return fmt.Errorf("%w: file has rule %q, want %q", ErrRuleMismatch, h.cfg.Rule, want.Rule)
	case h.cfg.KeyVersion != want.KeyVersion:
		return fmt.Errorf("%w: file has key version %d, want %d", ErrKeyVersion, h.cfg.KeyVersion, want.KeyVersion)
	case h.cfg.BoardSize != want.BoardSize:
		return fmt.Errorf("%w: file has board size %d, want %d", ErrBoardSize, h.cfg.BoardSize, want.BoardSize)
	}
	return nil
}

// dsn builds the go-sqlite3 data source name. Read-write connections use WAL
// and take the write lock at BEGIN (no deadlocking lock upgrades); shards skip
// fsync while being written (Publish syncs the finished file).
func dsn(abs string, readOnly, shard bool) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	u := "file:" + r.Replace(abs) + "?_busy_timeout=10000"
	switch {
	case readOnly:
		return u + "&mode=ro"
	case shard:
		return u + "&_journal_mode=WAL&_txlock=immediate&_synchronous=OFF"
	}
	return u + "&_journal_mode=WAL&_txlock=immediate&_synchronous=NORMAL&_cache_size=-65536"
}

// roURI is the URI under which a source database is attached read-only.
func roURI(abs string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(abs) + "?mode=ro"
}

// initialize creates the schema and the meta of a new database in one
// transaction.
func initialize(ctx context.Context, db *sql.DB, cfg Config, kind string, extra map[string]string) (header, error) {
	h := header{cfg: cfg, schema: SchemaVersion, id: extra[metaID], kind: kind}
	if h.id == "" {
		h.id = newID()
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return h, err
	}
	defer tx.Rollback()
	var tables int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return h, err
	}
	if tables != 0 {
		return h, fmt.Errorf("created concurrently by another process; retry")
	}
	if err := migrate(ctx, tx, 0); err != nil {
		return h, err
	}
	// A constant, not user input: PRAGMA takes no parameters.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return h, err
	}
	meta := map[string]string{
		metaKeyVersion: strconv.Itoa(cfg.KeyVersion),
		metaRule:       cfg.Rule,
		metaBoardSize:  strconv.Itoa(cfg.BoardSize),
		metaCreated:    now(),
		metaID:         h.id,
		metaKind:       kind,
	}
	for k, v := range extra {
		if k != metaID {
			meta[k] = v
		}
	}
	if err := putMeta(ctx, tx, meta); err != nil {
		return h, err
	}
	return h, tx.Commit()
}

// migrateExisting applies the migrations after version from in one
// transaction.
func migrateExisting(ctx context.Context, db *sql.DB, from int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := migrate(ctx, tx, from); err != nil {
		return err
	}
	return tx.Commit()
}

// migrate applies the embedded migrations after version from, recording each
// in schema_migrations and the result in meta.schema_version.
func migrate(ctx context.Context, tx *sql.Tx, from int) error {
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
		const rec = "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"
		if _, err := tx.ExecContext(ctx, rec, v, names[v-1], now()); err != nil {
			return err
		}
	}
	return putMeta(ctx, tx, map[string]string{metaSchemaVersion: strconv.Itoa(len(names))})
}

// querier is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
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

// newID returns 16 random hex digits from crypto/rand.
func newID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("store: crypto/rand: " + err.Error()) // never fails on supported systems
	}
	return hex.EncodeToString(b[:])
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

// Path is the database's absolute file path.
func (d *DB) Path() string { return d.path }

// Config is the configuration recorded in the database.
func (d *DB) Config() Config { return d.cfg }

// ID is the database's unique id (db_id; a shard's shard_id).
func (d *DB) ID() string { return d.id }

// Close closes the database. In WAL mode the last close checkpoints the WAL.
func (d *DB) Close() error {
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("store: close %q: %w", d.path, err)
	}
	return nil
}

// writable returns an error wrapping ErrReadOnly for a read-only database.
func (d *DB) writable(op string) error {
	if d.readOnly {
		return fmt.Errorf("store: %s %q: %w", op, d.path, ErrReadOnly)
	}
	return nil
}

// Meta returns all meta entries, reserved ones included.
func (d *DB) Meta(ctx context.Context) (map[string]string, error) {
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
		if reservedMeta[k] {
			return fmt.Errorf("store: set meta %q in %q: %w", k, d.path, ErrReservedMeta)
		}
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: set meta %q: %w", d.path, err)
	}
	defer tx.Rollback()
	if err := putMeta(ctx, tx, m); err != nil {
		return fmt.Errorf("store: set meta %q: %w", d.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: set meta %q: %w", d.path, err)
	}
	return nil
}
