package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"ocvist/store"
	"ocvist/store/storetest"
)

// copyFile copies the file src to dst as cp does.
func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mustStats reads d's stats.
func mustStats(t testing.TB, d *DB) store.Stats {
	t.Helper()
	s, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCopyIsWhole: a database is its one file. Copied alone (cp a.db
// b.db) once its writer has closed it, with young runs of several chunks
// and promoted rows, the copy reports the same stats and export, leaves
// no journal, WAL or folder behind, counts once with the original in a
// third database, merges more games, and merges into another database.
func TestCopyIsWhole(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.db")
	d := mustOpen(t, a)
	ref := storetest.NewReference()
	for i, n := range []int{300, 700, 200} { // 700 games: a run of several chunks
		games := storetest.RandomGames(uint64(30+i), n)
		writeGames(t, d, games, n)
		ref.Add(games)
		if i == 0 {
			if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 2, Age: 0}); err != nil {
				t.Fatal(err)
			}
			ref = storetest.NewReference() // pruning dropped positions: compare exports from here on
		}
	}
	var chunks int
	if err := d.db.QueryRow("SELECT max(n) FROM (SELECT count(*) AS n FROM young_data GROUP BY run)").Scan(&chunks); err != nil || chunks < 2 {
		t.Fatalf("largest young run in %d chunks (%v), want several", chunks, err)
	}
	mustClose(t, d)
	for _, p := range []string{a + "-journal", a + "-wal", a + ".young"} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s after Close: %v, want none", filepath.Base(p), err)
		}
	}

	other := filepath.Join(t.TempDir(), "b.db")
	copyFile(t, a, other)
	ra, err := OpenReadOnly(a)
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	rb, err := OpenReadOnly(other)
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := mustStats(t, ra), mustStats(t, rb)
	if sa != sb || sa.Games != 1200 || sa.YoungRuns != 2 {
		t.Fatalf("copy's stats %+v, original's %+v (want 1,200 games, 2 young runs)", sb, sa)
	}
	if exportString(t, ra) != exportString(t, rb) {
		t.Fatal("the copy exports other rows")
	}
	for _, r := range []*DB{ra, rb} {
		if err := r.IntegrityCheck(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mustClose(t, rb)
	c := mustOpen(t, filepath.Join(t.TempDir(), "c.db"))
	if res, err := c.Merge(ctx, a); err != nil || res.Games != 1200 {
		t.Fatalf("merge the original into a third database: %+v, %v", res, err)
	}
	if res, err := c.Merge(ctx, other); err != nil || !res.AlreadyMerged {
		t.Fatalf("merge its copy after it: %+v, %v; want AlreadyMerged (the copy has its id)", res, err)
	}
	mustClose(t, c)

	b := mustOpen(t, other)
	more := storetest.RandomGames(40, 100)
	writeGames(t, b, more, 100)
	if s := mustStats(t, b); s.Games != 1300 || s.YoungRuns != 3 {
		t.Fatalf("copy after a merge: %+v", s)
	}
	mustClose(t, b)
	e := mustOpen(t, filepath.Join(t.TempDir(), "e.db"))
	if res, err := e.Merge(ctx, other); err != nil || res.Games != 1300 {
		t.Fatalf("merge the grown copy into another database: %+v, %v", res, err)
	}
}

// The fixture testdata/v4.db (with its folder v4.db.young) was written by
// the code of commit 63e2c95, schema 4 (see testdata/README.md): shards
// of randomGames seeds 1–3 (40 games each) merged and pruned with
// MinGames 1, Age 0 (everything promoted, nothing dropped), then seeds
// 4–6 (40 games each) and a database of seed 7 (20 games) merged as young
// runs born at 160, 200, 240 and 260, then a prune with MinGames 2 that
// expired nothing.
const (
	fixtureExport = "c51d1e0193399fb84330edeb6f66223adf66b5e2cd080e659bdef82bee558c82" // sha256 of its Export
	fixtureSeed5  = "young-4e04e6ab86059850.run"                                       // the run of seed 5, born 200
)

// fixtureStats are the fixture's stats as the code of 63e2c95 printed them.
var fixtureStats = store.Stats{Games: 260, BlackWins: 88, WhiteWins: 96, Draws: 76, Positions: 3486, Moves: 3743, Blacklisted: 183,
	Young: 1750, YoungRuns: 4, MergedShards: 8, Rule: "freestyle", KeyVersion: 1, SchemaVersion: 4, BoardSize: 15}

// fixtureRef is the reference of the fixture's games, without the seeds
// in skip.
func fixtureRef(skip ...uint64) *storetest.Reference {
	ref := storetest.NewReference()
	for s := uint64(1); s <= 7; s++ {
		n := 40
		if s == 7 {
			n = 20
		}
		if !slices.Contains(skip, s) {
			ref.Add(storetest.RandomGames(s, n))
		}
	}
	return ref
}

// legacyFixture copies the schema-4 fixture, its file and folder, into a
// new directory and returns the database's path there.
func legacyFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "v4.db.young")} {
		os.Chmod(p, 0o755)
	}
	return filepath.Join(dir, "v4.db")
}

func exportHash(t testing.TB, d *DB) string {
	t.Helper()
	sum := sha256.Sum256([]byte(exportString(t, d)))
	return hex.EncodeToString(sum[:])
}

// TestLegacyReadOnly: a database of schema 4, written by the code of
// 63e2c95, opened read-only reads its young runs in the folder where they
// are, with exactly the stats and export that code gave, checks clean, and
// no file of its directory is created or changed (a read-only directory
// is tested when not running as root).
func TestLegacyReadOnly(t *testing.T) {
	ctx := context.Background()
	path := legacyFixture(t)
	dir := filepath.Dir(path)
	before := dirHash(t, dir)
	if os.Geteuid() != 0 {
		os.Chmod(filepath.Join(dir, "v4.db.young"), 0o555)
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
		defer os.Chmod(filepath.Join(dir, "v4.db.young"), 0o755)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustStats(t, ro)
	s.FileBytes = 0
	if s != fixtureStats {
		t.Fatalf("stats %+v, want %+v", s, fixtureStats)
	}
	if h := exportHash(t, ro); h != fixtureExport {
		t.Fatalf("export hash %s, want %s", h, fixtureExport)
	}
	fixtureRef().Check(t, ro)
	if res, err := ro.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 || res.YoungRuns != 4 || res.Games != 260 || res.Sources != 8 {
		t.Fatalf("check: %+v, %v", res, err)
	}
	mustClose(t, ro)
	if dirHash(t, dir) != before {
		t.Fatal("reading the legacy database changed its directory")
	}
}

// TestLegacyMigrates: opened for writing, the schema-4 fixture is migrated
// (migration 5, recorded): its young runs move into the file, byte for
// byte, with their sources and results, and the folder is removed; every
// count, the stats and the export stay exactly those 63e2c95 gave; it
// checks clean, is whole as one copied file, and keeps working.
func TestLegacyMigrates(t *testing.T) {
	ctx := context.Background()
	path := legacyFixture(t)
	folder := map[string][]byte{}
	entries, err := os.ReadDir(path + ".young")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(path+".young", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		folder[e.Name()] = b
	}
	d, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := os.Stat(path + ".young"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("young folder after the migration: %v", err)
	}
	var n, v int
	if err := d.db.QueryRow("SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &v); err != nil || n != SchemaVersion || v != SchemaVersion {
		t.Fatalf("schema_migrations: %d rows, max version %d (%v)", n, v, err)
	}
	for name, b := range folder {
		var got []byte
		if err := d.db.QueryRow("SELECT group_concat(data, x'') FROM (SELECT data FROM young_data WHERE run = ? ORDER BY off)", name).Scan(&got); err != nil || string(got) != string(b) {
			t.Fatalf("young run %s: %d bytes imported (%v), the file had %d", name, len(got), err, len(b))
		}
	}
	// Sources and results: those of the shards merged.
	var black, white, draws, sourced int64
	if err := d.db.QueryRow(`SELECT sum(black_wins), sum(white_wins), sum(draws), count(*) FROM young_runs
		WHERE source IN (SELECT shard_id FROM merged_shards WHERE via = '')`).Scan(&black, &white, &draws, &sourced); err != nil {
		t.Fatal(err)
	}
	young := fixtureRef(1, 2, 3)
	if sourced != 4 || black != young.Black || white != young.White || draws != young.Draws {
		t.Fatalf("young runs' recorded results %d/%d/%d of %d sourced runs, want %d/%d/%d of 4", black, white, draws, sourced, young.Black, young.White, young.Draws)
	}
	s := mustStats(t, d)
	s.FileBytes = 0
	want := fixtureStats
	want.SchemaVersion = SchemaVersion
	if s != want {
		t.Fatalf("stats %+v, want %+v", s, want)
	}
	if h := exportHash(t, d); h != fixtureExport {
		t.Fatalf("export hash %s, want %s", h, fixtureExport)
	}
	ref := fixtureRef()
	ref.Check(t, d)
	if res, err := d.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 || res.YoungRuns != 4 {
		t.Fatalf("check: %+v, %v", res, err)
	}
	mustClose(t, d)

	cp := filepath.Join(t.TempDir(), "copy.db")
	copyFile(t, path, cp)
	c := mustOpen(t, cp)
	if h := exportHash(t, c); h != fixtureExport {
		t.Fatal("the migrated file, copied alone, exports other rows")
	}
	more := storetest.RandomGames(8, 60)
	writeGames(t, c, more, 30)
	ref.Add(more)
	if _, err := c.Prune(ctx, store.PruneConfig{MinGames: 1, Age: 0}); err != nil {
		t.Fatal(err)
	}
	ref.Check(t, c)
	if res, err := c.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 || res.YoungRuns != 0 {
		t.Fatalf("check after pruning everything: %+v, %v", res, err)
	}
}

// TestLegacyMergeSource: a schema-4 database is merged as a source, read
// where it is, without being changed.
func TestLegacyMergeSource(t *testing.T) {
	ctx := context.Background()
	path := legacyFixture(t)
	before := dirHash(t, filepath.Dir(path))
	d := mustOpen(t, tempPath(t, "t.db"))
	if res, err := d.Merge(ctx, path); err != nil || res.Games != 260 {
		t.Fatalf("merge the legacy database: %+v, %v", res, err)
	}
	fixtureRef().Check(t, d)
	if dirHash(t, filepath.Dir(path)) != before {
		t.Fatal("merging from the legacy database changed its directory")
	}
}
