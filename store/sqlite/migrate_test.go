package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"ocvist/store"
	"ocvist/store/storetest"
)

// downgradeToV2 rewrites a schema-3 database whose positions are all
// promoted as schema 2 stored it: moves keyed by key text, the positions
// view, no young runs, no kept blacklist, no seals.
func downgradeToV2(t *testing.T, path string) {
	t.Helper()
	rawExec(t, path,
		"PRAGMA journal_mode = DELETE",
		"CREATE TABLE moves2 (key TEXT NOT NULL, mx INTEGER NOT NULL, my INTEGER NOT NULL, wsum INTEGER NOT NULL, games INTEGER NOT NULL, blacklisted INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (key, mx, my)) WITHOUT ROWID",
		"INSERT INTO moves2 SELECT key, mx, my, wsum, games, blacklisted FROM moves",
		"DROP TABLE moves",
		"ALTER TABLE moves2 RENAME TO moves",
		"CREATE VIEW positions (key, games) AS SELECT key, sum(games) FROM moves GROUP BY key",
		"DROP TABLE young_runs",
		"DROP TABLE young_data",
		"DROP TABLE blacklist",
		"ALTER TABLE merged_shards DROP COLUMN seal",
		"ALTER TABLE merged_shards DROP COLUMN kind",
		"DROP TABLE teacher_plans",
		"DROP TABLE teacher_claims",
		"DROP TABLE teacher_games",
		"ALTER TABLE generations DROP COLUMN details",
		"DELETE FROM schema_migrations WHERE version > 2",
		"UPDATE meta SET value = '2' WHERE key = 'schema_version'")
}

// TestMigrateV2: Open migrates a schema-2 database (moves keyed by key
// text) to the current schema (ordered by position id), keeping every
// count, and records the migrations; a read-only open refuses it.
func TestMigrateV2(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t, "v2.db")
	games := storetest.RandomGames(11, 300)
	ref := storetest.NewReference()
	ref.Add(games)
	d := mustOpen(t, path)
	writeGames(t, d, games, 300)
	if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 1, Age: 0}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, d)
	downgradeToV2(t, path)
	if _, err := OpenReadOnly(path); !errors.Is(err, store.ErrSchemaVersion) {
		t.Fatalf("OpenReadOnly of schema 2: %v, want ErrSchemaVersion", err)
	}

	d = mustOpen(t, path)
	defer mustClose(t, d)
	ref.Check(t, d)
	var n, v int
	if err := d.db.QueryRow("SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &v); err != nil || n != SchemaVersion || v != SchemaVersion {
		t.Fatalf("schema_migrations: %d rows, max version %d (%v); want %d, %d", n, v, err, SchemaVersion, SchemaVersion)
	}
	var bad int
	if err := d.db.QueryRow("SELECT count(*) FROM moves WHERE pid != ocvist_pid(key)").Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d rows with a wrong position id (%v)", bad, err)
	}
	if err := d.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	// The migrated database keeps working: merge more and compare again.
	more := storetest.RandomGames(12, 100)
	ref.Add(more)
	writeGames(t, d, more, 50)
	ref.Check(t, d)
}

// TestMergeRefusesV2Database: a database of schema 2 is refused as a merge
// source with ErrSchemaVersion (sources are never migrated), and both
// files stay byte-identical.
func TestMergeRefusesV2Database(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	d := mustOpen(t, old)
	writeGames(t, d, storetest.RandomGames(13, 50), 50)
	if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 1, Age: 0}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, d)
	downgradeToV2(t, old)
	target := filepath.Join(dir, "main.db")
	d = mustOpen(t, target)
	writeGames(t, d, storetest.RandomGames(14, 50), 50)
	before, oldBefore := exportString(t, d), fileHash(t, old)
	if _, err := d.Merge(ctx, old); !errors.Is(err, store.ErrSchemaVersion) {
		t.Fatalf("merge of a schema-2 database: %v, want ErrSchemaVersion", err)
	}
	if exportString(t, d) != before || fileHash(t, old) != oldBefore {
		t.Fatal("refused merge changed a file")
	}
	mustClose(t, d)
}
