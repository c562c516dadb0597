package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"ocvist/store"
	"ocvist/store/storetest"
)

// The fixtures testdata/v6.db, v6.run and v6-teacher.run were written by
// the code of 2bbdf22, the last before canon owned the packed key and the
// id (see testdata/README.md).
var (
	fixture6Stats = store.Stats{Games: 100, BlackWins: 31, WhiteWins: 39, Draws: 30, Positions: 1336, Moves: 1434, Blacklisted: 70,
		YoungRuns: 1, MergedShards: 4, TeacherGames: 6, TeacherShards: 1, TeacherShardGames: 6,
		Rule: "freestyle", KeyVersion: 1, SchemaVersion: 6, BoardSize: 15}
	fixture6Export = "7c42a034a3b92adc930aa2cf9e1c1c0e0cab2c87edd73103771d4678d53a56e2"
)

// TestFixture6: a database, a shard and a teacher shard written before
// canon owned the key format open with the same stats and export, merge
// (the shard's games counted once, the teacher shard's duplicate found),
// give every game's rows and check clean.
func TestFixture6(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"v6.db", "v6.run", "v6-teacher.run"} {
		copyFile(t, filepath.Join("testdata", name), filepath.Join(dir, name))
	}
	d, err := OpenExisting(filepath.Join(dir, "v6.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st := mustStats(t, d)
	st.FileBytes = 0
	if st != fixture6Stats {
		t.Fatalf("stats\n%+v\nwant\n%+v", st, fixture6Stats)
	}
	if h := exportHash(t, d); h != fixture6Export {
		t.Fatalf("export hash %s, want %s (as 2bbdf22 exported it)", h, fixture6Export)
	}
	if res, err := d.Merge(ctx, filepath.Join(dir, "v6.run")); err != nil || res.Games != 30 {
		t.Fatalf("merge the shard: %+v, %v", res, err)
	}
	if res, err := d.Merge(ctx, filepath.Join(dir, "v6-teacher.run")); err != nil || res.TeacherGames != 5 || res.Duplicates != 1 {
		t.Fatalf("merge the teacher shard: %+v, %v; want 5 games and 1 duplicate", res, err)
	}
	ref := storetest.NewReference()
	for _, s := range []struct {
		seed uint64
		n    int
	}{{10, 40}, {11, 40}, {13, 20}, {12, 30}} {
		ref.Add(storetest.RandomGames(s.seed, s.n))
	}
	ref.Check(t, d)
	if res, err := d.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 {
		t.Fatalf("check: %+v, %v", res, err)
	}
}
