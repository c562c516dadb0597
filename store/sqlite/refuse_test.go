package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/storetest"
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
	writeGames(t, d, storetest.RandomGames(1, 30), 30)
	mustClose(t, d)
	newer := filepath.Join(dir, "newer.db")
	d = mustOpen(t, newer)
	mustClose(t, d)
	rawExec(t, newer, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")
	shard := storetest.MustShard(t, dir, storetest.Config, storetest.RandomGames(2, 10))

	cases := []struct {
		name string
		path string
		cfg  store.Config
		want error
	}{
		{"ForeignSQLite", foreign, storetest.Config, store.ErrNotOcvist},
		{"NotSQLite", notSQLite, storetest.Config, store.ErrNotOcvist},
		{"Directory", dir, storetest.Config, store.ErrNotOcvist},
		{"Shard", shard, storetest.Config, store.ErrShard},
		{"OtherRule", ocvist, store.Config{Rule: gomoku.Standard, KeyVersion: 1, BoardSize: 15}, store.ErrRuleMismatch},
		{"OtherKeyVersion", ocvist, store.Config{Rule: gomoku.Freestyle, KeyVersion: 2, BoardSize: 15}, store.ErrKeyVersion},
		{"OtherBoardSize", ocvist, store.Config{Rule: gomoku.Freestyle, KeyVersion: 1, BoardSize: 19}, store.ErrBoardSize},
		{"NewerSchema", newer, storetest.Config, store.ErrSchemaVersion},
		{"BadConfig", filepath.Join(dir, "new.db"), store.Config{Rule: 7, KeyVersion: 1, BoardSize: 15}, store.ErrInvalidConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := dirHash(t, dir)
			d, err := Open(c.path, c.cfg)
			if err == nil {
				d.Close()
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Open: %v, want %v", err, c.want)
			}
			t.Logf("error: %v", err)
			if dirHash(t, dir) != before {
				t.Fatal("refused open changed a file")
			}
		})
	}
	for _, p := range []string{foreign, notSQLite, newer, shard} {
		if _, err := OpenReadOnly(p); err == nil {
			t.Errorf("OpenReadOnly(%s) succeeded", p)
		}
	}
}

// TestMergeRefusals: Merge refuses each bad source with the right sentinel
// and leaves the target's statistics unchanged.
func TestMergeRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	rawExec(t, foreign, "CREATE TABLE moves (key TEXT, mx INTEGER)")
	notSQLite := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notSQLite, make([]byte, 8192), 0o644); err != nil {
		t.Fatal(err)
	}
	games := storetest.RandomGames(8, 300)
	standard := storetest.MustShard(t, dir, store.Config{Rule: gomoku.Standard, KeyVersion: 1, BoardSize: 15}, games)
	keyV2 := storetest.MustShard(t, dir, store.Config{Rule: gomoku.Freestyle, KeyVersion: 2, BoardSize: 15}, games)
	good := storetest.MustShard(t, dir, storetest.Config, games)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	seal := data[len(data)-shard.SealSize:]
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncated := write("shard-truncated.run", append(append([]byte(nil), data[:len(data)/2]...), seal...))
	unsealed := write("shard-unsealed.run", data[:len(data)-1])
	flipped := append([]byte(nil), data...)
	flipped[len(data)/2] ^= 0x10
	corrupt := write("shard-corrupt.run", flipped)
	futureFormat := append([]byte(nil), data...)
	futureFormat[len(shard.Magic)] = shard.Version + 1
	future := write("shard-future.run", futureFormat)
	// A record type from the future, sealed: refused, not skipped.
	unknown := filepath.Join(dir, "shard-unknown.run")
	w, err := shard.Create(unknown, shard.Header{Kind: shard.KindShard, Config: storetest.Config, ID: "future"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Raw([]byte{4, 0}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Seal(shard.Counts{}); err != nil {
		t.Fatal(err)
	}

	target := filepath.Join(dir, "target.db")
	d := mustOpen(t, target)
	writeGames(t, d, storetest.RandomGames(9, 50), 50)
	before := exportString(t, d)

	cases := []struct {
		name, path string
		want       error
	}{
		{"ForeignSQLite", foreign, store.ErrNotOcvist},
		{"NotSQLite", notSQLite, store.ErrNotOcvist},
		{"Directory", dir, store.ErrNotOcvist},
		{"OtherRule", standard, store.ErrRuleMismatch},
		{"OtherKeyVersion", keyV2, store.ErrKeyVersion},
		{"Truncated", truncated, store.ErrCorrupt},
		{"Corrupt", corrupt, store.ErrCorrupt},
		{"Unsealed", unsealed, store.ErrUnpublished},
		{"FutureFormat", future, store.ErrSchemaVersion},
		{"UnknownRecord", unknown, store.ErrSchemaVersion},
		{"Missing", filepath.Join(dir, "shard-missing.run"), os.ErrNotExist},
		{"Itself", target, store.ErrOverlap},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := d.Merge(ctx, c.path)
			if !errors.Is(err, c.want) {
				t.Fatalf("Merge: %+v, %v; want %v", res, err, c.want)
			}
			t.Logf("error: %v", err)
			if exportString(t, d) != before {
				t.Fatal("refused merge changed the target's rows")
			}
		})
	}
	if st, _ := d.Stats(ctx); st.Games != 50 || st.YoungRuns != 1 {
		t.Fatalf("refusals changed the target: %+v", st)
	}
	var runs int
	if err := d.db.QueryRow("SELECT count(DISTINCT run) FROM young_data").Scan(&runs); err != nil || runs != 1 {
		t.Fatalf("refusals left young data: %d runs' worth (%v), want 1", runs, err)
	}
	// The intact shard still merges afterwards.
	if res, err := d.Merge(ctx, good); err != nil || res.AlreadyMerged || res.Games != 300 {
		t.Fatalf("merge good shard: %+v, %v", res, err)
	}
}

// TestSecondWriter: acceptance point 4 of issue 9 for the store. A second
// writer (Open, OpenExisting) is refused at once with ErrInUse while the
// first one works on, whose counts stay exact; readers are not refused;
// after Close the lock is free.
func TestSecondWriter(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t, "w.db")
	d := mustOpen(t, path)
	games := storetest.RandomGames(3, 200)
	writeGames(t, d, games[:100], 50)
	for _, open := range []func() (*DB, error){
		func() (*DB, error) { return Open(path, storetest.Config) },
		func() (*DB, error) { return OpenExisting(path) },
	} {
		if e, err := open(); !errors.Is(err, store.ErrInUse) {
			if e != nil {
				e.Close()
			}
			t.Fatalf("second writer: %v, want ErrInUse", err)
		} else {
			t.Logf("error: %v", err)
		}
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	writeGames(t, d, games[100:], 50)
	ref := storetest.NewReference()
	ref.Add(games)
	ref.Check(t, d)
	ref.Check(t, ro)
	mustClose(t, ro)
	// Merging from a database being written is refused too.
	other := mustOpen(t, tempPath(t, "other.db"))
	if _, err := other.Merge(ctx, path); !errors.Is(err, store.ErrInUse) {
		t.Fatalf("merge from a database in use: %v, want ErrInUse", err)
	}
	mustClose(t, d)
	if res, err := other.Merge(ctx, path); err != nil || res.Games != 200 {
		t.Fatalf("merge after the writer closed: %+v, %v", res, err)
	}
	ref.Check(t, other)
}

// TestRemergeGrown: acceptance point 4 of issue 9. A database merged, then
// grown, is refused as a source (ErrOverlap, nothing changed), not reported
// as already merged; in the same state it is already merged; its new
// shards merge on their own.
func TestRemergeGrown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := mustOpen(t, filepath.Join(dir, "a.db"))
	writeGames(t, a, storetest.RandomGames(1, 100), 100)
	mustClose(t, a)
	target := mustOpen(t, filepath.Join(dir, "t.db"))
	if _, err := target.Merge(ctx, filepath.Join(dir, "a.db")); err != nil {
		t.Fatal(err)
	}
	if res, err := target.Merge(ctx, filepath.Join(dir, "a.db")); err != nil || !res.AlreadyMerged {
		t.Fatalf("merge of the same state again: %+v, %v; want AlreadyMerged", res, err)
	}
	a = mustOpen(t, filepath.Join(dir, "a.db"))
	newer := storetest.MustShard(t, dir, storetest.Config, storetest.RandomGames(2, 40))
	if _, err := a.Merge(ctx, newer); err != nil {
		t.Fatal(err)
	}
	mustClose(t, a)
	before := exportString(t, target)
	res, err := target.Merge(ctx, filepath.Join(dir, "a.db"))
	if !errors.Is(err, store.ErrOverlap) || res.Games != 0 {
		t.Fatalf("merge of a grown database: %+v, %v; want ErrOverlap", res, err)
	}
	t.Logf("error: %v", err)
	if exportString(t, target) != before {
		t.Fatal("refused merge changed the target")
	}
	if res, err := target.Merge(ctx, newer); err != nil || res.Games != 40 {
		t.Fatalf("merge of the new shard itself: %+v, %v", res, err)
	}
	ref := storetest.NewReference()
	ref.Add(storetest.RandomGames(1, 100))
	ref.Add(storetest.RandomGames(2, 40))
	ref.Check(t, target)
}

// TestPrunedCopyCannotHide: acceptance point 4 of issue 9. A pruned copy of
// a database merged first does not make the original count as merged: the
// original is refused (ErrOverlap), so no shard's games are silently
// skipped; and a run file cannot be pruned at all.
func TestPrunedCopyCannotHide(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.db")
	d := mustOpen(t, orig)
	writeGames(t, d, storetest.RandomGames(5, 200), 100)
	mustClose(t, d)
	cp := filepath.Join(dir, "copy.db")
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, data, 0o644); err != nil { // the database is its one file
		t.Fatal(err)
	}
	c := mustOpen(t, cp)
	if res, err := c.Prune(ctx, store.PruneConfig{MinGames: 2, Age: 0}); err != nil || res.Positions == 0 {
		t.Fatalf("prune copy: %+v, %v", res, err)
	}
	mustClose(t, c)
	target := mustOpen(t, filepath.Join(dir, "t.db"))
	if _, err := target.Merge(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if res, err := target.Merge(ctx, orig); !errors.Is(err, store.ErrOverlap) || res.AlreadyMerged {
		t.Fatalf("merge of the original after its pruned copy: %+v, %v; want ErrOverlap", res, err)
	}
	shard := storetest.MustShard(t, dir, storetest.Config, storetest.RandomGames(6, 10))
	if _, err := Open(shard, storetest.Config); !errors.Is(err, store.ErrShard) {
		t.Fatalf("open a shard to prune it: %v, want ErrShard", err)
	}
}

// TestReadOnlyUse: reading a database (stats, export, scan, blacklist,
// merging from it) creates and changes no file in its directory, so it
// works where the directory is read-only; a directory that really is
// read-only is tested when not running as root (root ignores permissions).
func TestReadOnlyUse(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.db")
	d := mustOpen(t, path)
	writeGames(t, d, storetest.RandomGames(4, 100), 50)
	mustClose(t, d)
	os.Remove(lockPath(path)) // as if copied here without it
	before := dirHash(t, dir)
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o755)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Stats(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Blacklist(ctx); err != nil {
		t.Fatal(err)
	}
	exportString(t, ro)
	mustClose(t, ro)
	target := mustOpen(t, tempPath(t, "t.db"))
	if res, err := target.Merge(ctx, path); err != nil || res.Games != 100 {
		t.Fatalf("merge from a read-only place: %+v, %v", res, err)
	}
	if dirHash(t, dir) != before {
		t.Fatal("reading changed the database's directory")
	}
	if os.Geteuid() != 0 {
		_, err := Open(filepath.Join(dir, "new.db"), storetest.Config)
		if !errors.Is(err, os.ErrPermission) {
			t.Fatalf("create in a read-only directory: %v, want permission denied", err)
		}
	}
}
