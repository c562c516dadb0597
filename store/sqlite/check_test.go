package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/storetest"
)

// TestCheckHealthy: Check finds nothing in healthy databases (new, after
// merges, prunes, a merged database, conclude and teacher games), read-only
// or not.
func TestCheckHealthy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	empty := mustOpen(t, filepath.Join(dir, "empty.db"))
	d := mustOpen(t, filepath.Join(dir, "d.db"))
	writeGames(t, d, storetest.RandomGames(1, 300), 100)
	if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 2, Age: 100}); err != nil {
		t.Fatal(err)
	}
	o := mustOpen(t, filepath.Join(dir, "o.db"))
	writeGames(t, o, storetest.RandomGames(2, 50), 50)
	mustClose(t, o)
	if _, err := d.Merge(ctx, filepath.Join(dir, "o.db")); err != nil {
		t.Fatal(err)
	}
	writeGames(t, d, storetest.RandomGames(3, 600), 600)
	if _, err := d.Conclude(ctx, store.ConcludeConfig{MinGames: 2, Margin: 0.5, MaxMean: 1}); err != nil {
		t.Fatal(err)
	}
	storetest.MergeTeacher(t, d, []store.TeacherGame{{Gen: 1, Game: 1, Moves: []gomoku.Point{112}, Book: 1}})
	for _, db := range []*DB{empty, d} {
		for _, quick := range []bool{false, true} {
			res, err := db.Check(ctx, CheckConfig{Quick: quick})
			if err != nil || len(res.Problems) != 0 {
				t.Fatalf("%s (quick %v): %+v, %v", filepath.Base(db.Path()), quick, res, err)
			}
		}
	}
	if res, _ := d.Check(ctx, CheckConfig{}); res.Games != 950 || res.YoungRuns != 3 || res.Sources != 7 {
		t.Fatalf("check read %+v, want 950 games, 3 young runs, 7 ledger entries (one a teacher shard)", res)
	}
	mustClose(t, d)
	ro, err := OpenReadOnly(filepath.Join(dir, "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if res, err := ro.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 || res.YoungRuns != 3 {
		t.Fatalf("read-only check: %+v, %v", res, err)
	}
}

// TestCheckFindsInconsistency: Check reports, one line each, totals whose
// results do not add up, young runs whose game ranges leave the totals or
// overlap, and ledger entries that are missing: problems Repair cannot
// mend (it cannot tell which side is right).
func TestCheckFindsInconsistency(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.db")
	d := mustOpen(t, base)
	writeGames(t, d, storetest.RandomGames(1, 100), 50) // two runs: games 1–50 and 51–100
	o := mustOpen(t, filepath.Join(dir, "o.db"))
	writeGames(t, o, storetest.RandomGames(2, 30), 30)
	mustClose(t, o)
	if _, err := d.Merge(ctx, filepath.Join(dir, "o.db")); err != nil { // a run whose source holds a shard
		t.Fatal(err)
	}
	mustClose(t, d)
	for _, c := range []struct {
		name string
		sql  string
		want []string // the problems' prefixes
	}{
		{"Totals", "UPDATE totals SET black_wins = black_wins + 1", []string{"totals: black "}},
		{"Outside", "UPDATE young_runs SET born = born + 1000 WHERE born = 130", []string{"young run young-"}},
		{"Overlap", "UPDATE young_runs SET born = 60 WHERE born = 50", []string{"young runs young-"}},
		{"SourceMissing", "DELETE FROM merged_shards WHERE shard_id IN (SELECT source FROM young_runs WHERE born = 50)", []string{"ledger: source "}},
		{"SourceGames", "UPDATE merged_shards SET games = 49 WHERE shard_id IN (SELECT source FROM young_runs WHERE born = 50)", []string{"ledger: source "}},
		{"Dangling", "DELETE FROM merged_shards WHERE shard_id IN (SELECT source FROM young_runs WHERE born = 130)",
			[]string{"ledger: shard ", "ledger: source "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.db")
			copyFile(t, base, path)
			withRaw(t, path, func(db *sql.DB) { mustExec(t, db, c.sql) })
			ro, err := OpenReadOnly(path)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			res, err := ro.Check(ctx, CheckConfig{})
			if err != nil || len(res.Problems) != len(c.want) {
				t.Fatalf("check: %+v, %v; want %d problems", res, err, len(c.want))
			}
			for i, p := range res.Problems {
				if !strings.HasPrefix(p.Text, c.want[i]) || p.Repairable {
					t.Errorf("problem %q (repairable %v), want %q…, not repairable", p.Text, p.Repairable, c.want[i])
				}
				t.Logf("check: %s", p.Text)
			}
		})
	}
}
