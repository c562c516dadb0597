package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenRefusals: Open refuses each bad file with the right sentinel and
// leaves it byte-identical.
func TestOpenRefusals(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	rawExec(t, foreign, "CREATE TABLE foo (x INTEGER)", "INSERT INTO foo VALUES (1)")
	notSQLite := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notSQLite, []byte("this is not a database, just some text that is long enough ...................................................................................................."), 0o644); err != nil {
		t.Fatal(err)
	}
	ocvist := filepath.Join(dir, "ocvist.db")
	d := mustOpen(t, ocvist)
	if err := d.Write(context.Background(), mustBatch(t, randomGames(1, 30))); err != nil {
		t.Fatal(err)
	}
	mustClose(t, d)
	newer := filepath.Join(dir, "newer.db")
	d = mustOpen(t, newer)
	mustClose(t, d)
	rawExec(t, newer, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")

	cases := []struct {
		name string
		path string
		cfg  Config
		want error
	}{
		{"ForeignSQLite", foreign, testCfg, ErrNotOcvist},
		{"NotSQLite", notSQLite, testCfg, ErrNotOcvist},
		{"Directory", dir, testCfg, ErrNotOcvist},
		{"OtherRule", ocvist, Config{Rule: RuleStandard, KeyVersion: 1, BoardSize: 15}, ErrRuleMismatch},
		{"OtherKeyVersion", ocvist, Config{Rule: RuleFreestyle, KeyVersion: 2, BoardSize: 15}, ErrKeyVersion},
		{"OtherBoardSize", ocvist, Config{Rule: RuleFreestyle, KeyVersion: 1, BoardSize: 19}, ErrBoardSize},
		{"NewerSchema", newer, testCfg, ErrSchemaVersion},
		{"BadConfig", filepath.Join(dir, "new.db"), Config{Rule: "renju", KeyVersion: 1, BoardSize: 15}, ErrInvalidConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before string
			if fi, err := os.Stat(c.path); err == nil && !fi.IsDir() {
				before = fileHash(t, c.path)
			}
			d, err := Open(c.path, c.cfg)
			if err == nil {
				d.Close()
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Open: %v, want %v", err, c.want)
			}
			t.Logf("error: %v", err)
			if before != "" && fileHash(t, c.path) != before {
				t.Fatal("refused file changed")
			}
			if _, err := os.Stat(filepath.Join(dir, "new.db")); err == nil {
				t.Fatal("refused config created a file")
			}
		})
	}
	for _, p := range []string{foreign, notSQLite, newer} {
		if _, err := OpenReadOnly(p); err == nil {
			t.Errorf("OpenReadOnly(%s) succeeded", p)
		}
	}
}

// TestMergeRefusals: Merge refuses each bad source with the right sentinel and
// leaves the target byte-identical.
func TestMergeRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	rawExec(t, foreign, "CREATE TABLE moves (key TEXT, mx INTEGER)")
	notSQLite := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notSQLite, make([]byte, 8192), 0o644); err != nil {
		t.Fatal(err)
	}
	games := randomGames(8, 300)
	standard := mustShard(t, dir, Config{Rule: RuleStandard, KeyVersion: 1, BoardSize: 15}, games, 1)
	keyV2 := mustShard(t, dir, Config{Rule: RuleFreestyle, KeyVersion: 2, BoardSize: 15}, games, 1)
	good := mustShard(t, dir, testCfg, games, 1)
	truncated := filepath.Join(dir, "shard-truncated.db")
	corrupt := filepath.Join(dir, "shard-corrupt.db")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 16*4096 {
		t.Fatalf("shard too small for the test: %d bytes", len(data))
	}
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), data...)
	for i := 6 * 4096; i < 10*4096; i++ {
		bad[i] = byte(i * 7)
	}
	if err := os.WriteFile(corrupt, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	tmpShard, err := CreateShard(dir, testCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, tmpShard.DB)

	target := filepath.Join(dir, "target.db")
	d := mustOpen(t, target)
	if err := d.Write(ctx, mustBatch(t, randomGames(9, 50))); err != nil {
		t.Fatal(err)
	}
	mustClose(t, d)
	hash := fileHash(t, target)

	cases := []struct {
		name, path string
		want       error
	}{
		{"ForeignSQLite", foreign, ErrNotOcvist},
		{"NotSQLite", notSQLite, ErrNotOcvist},
		{"Directory", dir, ErrNotOcvist},
		{"OtherRule", standard, ErrRuleMismatch},
		{"OtherKeyVersion", keyV2, ErrKeyVersion},
		{"Truncated", truncated, ErrCorrupt},
		{"Corrupt", corrupt, ErrCorrupt},
		{"Unpublished", tmpShard.Path(), ErrUnpublished},
		{"Missing", filepath.Join(dir, "shard-missing.db"), os.ErrNotExist},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Open(target, testCfg)
			if err != nil {
				t.Fatal(err)
			}
			before := exportString(t, d)
			res, err := d.Merge(ctx, c.path)
			if !errors.Is(err, c.want) {
				t.Fatalf("Merge: %+v, %v; want %v", res, err, c.want)
			}
			t.Logf("error: %v", err)
			if exportString(t, d) != before {
				t.Fatal("refused merge changed the target's rows")
			}
			mustClose(t, d)
			if fileHash(t, target) != hash {
				t.Fatal("refused merge changed the target file")
			}
		})
	}
	// The intact shard still merges afterwards.
	d = mustOpen(t, target)
	if res, err := d.Merge(ctx, good); err != nil || res.AlreadyMerged {
		t.Fatalf("merge good shard: %+v, %v", res, err)
	}
}
