package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ocvist/store"
	"ocvist/store/storetest"
)

func mustOpen(t testing.TB, path string) *DB {
	t.Helper()
	d, err := Open(path, storetest.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func mustClose(t testing.TB, d interface{ Close() error }) {
	t.Helper()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeGames adds games to d through a shard, in chunks of at most chunk
// games, each merged in turn.
func writeGames(t testing.TB, d *DB, games []store.Game, chunk int) {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < len(games); i += chunk {
		p := storetest.MustShard(t, dir, d.Config(), games[i:min(i+chunk, len(games))])
		if res, err := d.Merge(context.Background(), p); err != nil || res.AlreadyMerged {
			t.Fatalf("merge %s: %+v, %v", p, res, err)
		}
	}
}

func exportString(t testing.TB, d *DB) string {
	t.Helper()
	var b strings.Builder
	if err := d.Export(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// fileHash hashes a file and its WAL, if any.
func fileHash(t testing.TB, path string) string {
	t.Helper()
	h := sha256.New()
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rawExec runs SQL on a file directly (to build foreign or altered files).
func rawExec(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// mustExec runs one statement on db.
func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

// withRaw runs fn on a plain connection to the SQLite file at path (to
// damage or alter a closed database).
func withRaw(t *testing.T, path string, fn func(*sql.DB)) {
	t.Helper()
	db, err := sql.Open(driverName, "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	fn(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func tempPath(t testing.TB, name string) string {
	return filepath.Join(t.TempDir(), name)
}
