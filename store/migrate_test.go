package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// downgradeToV1 rewrites a schema-2 database file as schema 1 would have
// stored it: a positions table holding each key's games.
func downgradeToV1(t *testing.T, path string) {
	t.Helper()
	rawExec(t, path,
		"DROP VIEW positions",
		"CREATE TABLE positions (key TEXT PRIMARY KEY, games INTEGER NOT NULL) WITHOUT ROWID",
		"INSERT INTO positions (key, games) SELECT key, sum(games) FROM moves GROUP BY key",
		"DELETE FROM schema_migrations WHERE version > 1",
		"UPDATE meta SET value = '1' WHERE key = 'schema_version'")
}

// TestMigrateV1: Open migrates a schema-1 database (positions table) to the
// derived positions view, keeping every count, and records the migration.
func TestMigrateV1(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t, "v1.db")
	games := randomGames(11, 300)
	ref := newReference()
	ref.add(games)
	d := mustOpen(t, path)
	if err := d.Write(ctx, mustBatch(t, games)); err != nil {
		t.Fatal(err)
	}
	mustClose(t, d)
	downgradeToV1(t, path)
	if _, err := OpenReadOnly(path); !errors.Is(err, ErrSchemaVersion) {
		t.Fatalf("OpenReadOnly of schema 1: %v, want ErrSchemaVersion", err)
	}

	d = mustOpen(t, path)
	defer mustClose(t, d)
	ref.check(t, d)
	var typ string
	if err := d.db.QueryRow("SELECT type FROM sqlite_schema WHERE name = 'positions'").Scan(&typ); err != nil || typ != "view" {
		t.Fatalf("positions is %q (%v), want a view", typ, err)
	}
	var n, v int
	if err := d.db.QueryRow("SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &v); err != nil || n != 2 || v != 2 {
		t.Fatalf("schema_migrations: %d rows, max version %d (%v); want 2, 2", n, v, err)
	}
	m, err := d.Meta(ctx)
	if err != nil || m["schema_version"] != "2" {
		t.Fatalf("meta schema_version %q (%v), want 2", m["schema_version"], err)
	}
	if err := d.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	// The migrated database keeps working: write more and compare again.
	more := randomGames(12, 100)
	ref.add(more)
	if err := d.Write(ctx, mustBatch(t, more)); err != nil {
		t.Fatal(err)
	}
	ref.check(t, d)
}

// TestMergeRefusesV1Shard: a shard of schema 1 is refused by Merge with
// ErrSchemaVersion (it is not migrated: sources are never modified), and both
// files stay byte-identical.
func TestMergeRefusesV1Shard(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	shard := mustShard(t, dir, testCfg, randomGames(13, 50), 1)
	downgradeToV1(t, shard)
	rawExec(t, shard, "PRAGMA journal_mode = DELETE")
	target := filepath.Join(dir, "main.db")
	d := mustOpen(t, target)
	defer mustClose(t, d)
	if err := d.Write(ctx, mustBatch(t, randomGames(14, 50))); err != nil {
		t.Fatal(err)
	}
	if err := d.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	before, shardBefore := fileHash(t, target), fileHash(t, shard)
	if _, err := d.Merge(ctx, shard); !errors.Is(err, ErrSchemaVersion) {
		t.Fatalf("merge of a schema-1 shard: %v, want ErrSchemaVersion", err)
	}
	if fileHash(t, target) != before || fileHash(t, shard) != shardBefore {
		t.Fatal("refused merge changed a file")
	}
}
