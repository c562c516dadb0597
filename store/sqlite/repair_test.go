package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/young"
	"ocvist/store/storetest"
)

// TestRepairHealthy: Repair of a healthy database finds and changes
// nothing; a read-only one refuses.
func TestRepairHealthy(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t, "d.db")
	d := mustOpen(t, path)
	writeGames(t, d, storetest.RandomGames(1, 300), 100)
	if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 2, Age: 100}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, d)
	hash := fileHash(t, path)
	d = mustOpen(t, path)
	if res, err := d.Repair(ctx); err != nil || len(res.Found)+len(res.Dropped)+len(res.Left)+len(res.Corrected)+res.Orphans != 0 {
		t.Fatalf("repair of a healthy database: %+v, %v", res, err)
	}
	mustClose(t, d)
	if fileHash(t, path) != hash {
		t.Fatal("repair of a healthy database changed it")
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Repair(ctx); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("repair read-only: %v, want ErrReadOnly", err)
	}
}

// damageCase is one way a young run gets damaged, applied with SQL on
// the closed database's file to the run name.
type damageCase struct {
	name  string
	apply func(t *testing.T, db *sql.DB, run string)
}

var damageCases = []damageCase{
	{"CutChunk", func(t *testing.T, db *sql.DB, run string) {
		mustExec(t, db, "UPDATE young_data SET data = substr(data, 1, 1000) WHERE run = ? AND off = ?", run, young.Chunk)
	}},
	{"LastChunkGone", func(t *testing.T, db *sql.DB, run string) {
		mustExec(t, db, "DELETE FROM young_data WHERE run = ? AND off = (SELECT max(off) FROM young_data WHERE run = ?)", run, run)
	}},
	{"FlippedBit", func(t *testing.T, db *sql.DB, run string) {
		var b []byte
		if err := db.QueryRow("SELECT data FROM young_data WHERE run = ? AND off = ?", run, young.Chunk).Scan(&b); err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x10
		mustExec(t, db, "UPDATE young_data SET data = ? WHERE run = ? AND off = ?", b, run, young.Chunk)
	}},
	{"BytesGone", func(t *testing.T, db *sql.DB, run string) {
		mustExec(t, db, "DELETE FROM young_data WHERE run = ?", run)
	}},
}

// repairSeeds are the shards of TestRepairDropsDamage: seed 1 merged and
// promoted whole, then seeds 2, 3 and 4 merged as young runs; seed 3's run
// (700 games, several chunks) is the one damaged, so a run was merged
// before it and one after it.
var repairSeeds = []struct {
	seed  uint64
	games int
}{{1, 300}, {2, 200}, {3, 700}, {4, 100}}

// buildRepairDB builds the database of TestRepairDropsDamage at path
// without the shards of the seeds in skip, and returns the path of seed
// 3's shard (kept in dir).
func buildRepairDB(t *testing.T, path, dir string, skip uint64) string {
	t.Helper()
	ctx := context.Background()
	d := mustOpen(t, path)
	var shard3 string
	for _, s := range repairSeeds {
		p := storetest.MustShard(t, dir, storetest.Config, storetest.RandomGames(s.seed, s.games))
		if s.seed == 3 {
			shard3 = p
		}
		if s.seed != skip {
			if _, err := d.Merge(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if s.seed == 1 {
			if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 1, Age: 0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 2, Age: 1 << 40}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, d)
	return shard3
}

// youngBorn lists the young runs' (born, games), sorted.
func youngBorn(t *testing.T, d *DB) [][2]int64 {
	t.Helper()
	runs, err := young.List(context.Background(), d.db)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int64
	for _, r := range runs {
		out = append(out, [2]int64{r.Born, r.Games})
	}
	slices.SortFunc(out, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	return out
}

// TestRepairDropsDamage: a young run damaged in each way (a chunk cut
// short, its last chunk or all its bytes gone, a flipped bit) makes the
// readers refuse with a DamageError that
// names it; Check finds exactly that run; Repair drops exactly its games,
// positions and rows, with its exact results, and removes its source from
// the ledger. Afterwards the database is the one built without that shard
// (the same export, stats, ledger and young runs' ages), checks clean,
// and the shard merges again.
func TestRepairDropsDamage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.db")
	shard3 := buildRepairDB(t, base, dir, 0)
	twin := filepath.Join(dir, "twin.db")
	buildRepairDB(t, twin, t.TempDir(), 3)
	tw, err := OpenReadOnly(twin)
	if err != nil {
		t.Fatal(err)
	}
	defer tw.Close()
	twinExport, twinStats := exportString(t, tw), mustStats(t, tw)
	third := storetest.NewReference()
	third.Add(storetest.RandomGames(3, 700))
	info, err := shard.ReadShard(shard3)
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range damageCases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.db")
			copyFile(t, base, path)
			var run string
			var positions, rows int64
			withRaw(t, path, func(db *sql.DB) {
				if err := db.QueryRow("SELECT name FROM young_runs WHERE games = 700").Scan(&run); err != nil {
					t.Fatal(err)
				}
				c.apply(t, db, run)
				if err := db.QueryRow("SELECT positions, rows FROM young_runs WHERE name = ?", run).Scan(&positions, &rows); err != nil {
					t.Fatal(err)
				}
			})

			ro, err := OpenReadOnly(path)
			if err != nil {
				t.Fatal(err)
			}
			var de *store.DamageError
			_, err = ro.Stats(ctx)
			if !errors.As(err, &de) || de.Run != run || !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("stats of the damaged database: %v, want a DamageError of %s", err, run)
			}
			t.Logf("stats: %v", err)
			res, err := ro.Check(ctx, CheckConfig{})
			if err != nil || len(res.Problems) != 1 || res.Problems[0].Run != run || !res.Problems[0].Repairable {
				t.Fatalf("check: %+v, %v; want one problem, in %s", res, err, run)
			}
			t.Logf("check: %s", res.Problems[0].Text)
			mustClose(t, ro)

			d := mustOpen(t, path)
			if err := d.IntegrityCheck(ctx); !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("integrity check: %v, want ErrCorrupt", err)
			}
			rep, err := d.Repair(ctx)
			want := DroppedRun{Name: run, Source: info.ID, Games: 700, Positions: positions, Rows: rows,
				Black: third.Black, White: third.White, Draws: third.Draws}
			if err != nil || len(rep.Dropped) != 1 || rep.Dropped[0] != want || rep.Games != 700 || rep.Positions != positions ||
				rep.Rows != rows || rep.Ledger != 1 || len(rep.Left) != 0 || len(rep.Found) != 1 {
				t.Fatalf("repair: %+v, %v; want %+v dropped, 1 ledger entry", rep, err, want)
			}
			if got := exportString(t, d); got != twinExport {
				t.Fatal("after the repair the export is not that of the database built without the shard")
			}
			s := mustStats(t, d)
			s.FileBytes, twinStats.FileBytes = 0, 0
			if s != twinStats {
				t.Fatalf("stats %+v, the database built without the shard %+v", s, twinStats)
			}
			if !slices.Equal(youngBorn(t, d), youngBorn(t, tw)) {
				t.Fatalf("young runs (born, games) %v, without the shard %v", youngBorn(t, d), youngBorn(t, tw))
			}
			if res, err := d.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 {
				t.Fatalf("check after the repair: %+v, %v", res, err)
			}
			if res, err := d.Merge(ctx, shard3); err != nil || res.AlreadyMerged || res.Games != 700 {
				t.Fatalf("merge the dropped run's shard again: %+v, %v", res, err)
			}
			ref := storetest.NewReference()
			for _, s := range repairSeeds {
				ref.Add(storetest.RandomGames(s.seed, s.games))
			}
			ref.Check(t, d)
		})
	}
}

// TestRepairLegacyTruncated: the user's report. A database of schema 4
// (written by 63e2c95) with one young-run file truncated: every reader
// refuses with a DamageError; a read-only Check finds it in the folder;
// Repair (after the migration imports the folder, the cut run as it is)
// drops exactly its 40 games, 484 positions and 523 rows, its results
// shared out in proportion (that code never recorded them), and its
// source leaves the ledger. Afterwards the rows are exactly those of the
// other games, and stats, export, merge and prune work.
func TestRepairLegacyTruncated(t *testing.T) {
	ctx := context.Background()
	path := legacyFixture(t)
	file := filepath.Join(path+".young", fixtureSeed5)
	if err := os.Truncate(file, 20000); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() error{
		"stats":     func() error { _, err := ro.Stats(ctx); return err },
		"export":    func() error { return ro.Export(ctx, &strings.Builder{}) },
		"blacklist": func() error { _, err := ro.Blacklist(ctx); return err },
		"scan":      func() error { return ro.ScanMoves(ctx, 0, func(store.MoveStat) error { return nil }) },
	} {
		var de *store.DamageError
		if err := read(); !errors.As(err, &de) || de.Run != fixtureSeed5 || de.Path != path {
			t.Fatalf("%s: %v, want a DamageError of %s in %s", name, err, fixtureSeed5, path)
		}
	}
	res, err := ro.Check(ctx, CheckConfig{})
	if err != nil || len(res.Problems) != 1 || res.Problems[0].Run != fixtureSeed5 || res.YoungRuns != 3 {
		t.Fatalf("check: %+v, %v", res, err)
	}
	t.Logf("check: %s", res.Problems[0].Text)
	mustClose(t, ro)

	target := mustOpen(t, tempPath(t, "t.db"))
	var de *store.DamageError
	if _, err := target.Merge(ctx, path); !errors.As(err, &de) || de.Path != path {
		t.Fatalf("merge from the damaged database: %v, want its DamageError", err)
	}
	d, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rep, err := d.Repair(ctx)
	if err != nil || len(rep.Dropped) != 1 || rep.Games != 40 || rep.Positions != 484 || rep.Rows != 523 || rep.Ledger != 1 || len(rep.Left) != 0 {
		t.Fatalf("repair: %+v, %v", rep, err)
	}
	dr := rep.Dropped[0]
	if dr.Name != fixtureSeed5 || dr.Source != "3bf16e5b9d4b0475" || !dr.Estimated || dr.Black+dr.White+dr.Draws != 40 {
		t.Fatalf("dropped %+v", dr)
	}
	// 40 of 260 games: 88·40/260 = 13.5, 96·40/260 = 14.8, 76·40/260 = 11.7.
	if dr.Black != 13 || dr.White != 15 || dr.Draws != 12 {
		t.Fatalf("estimated results %d/%d/%d, want 13/15/12", dr.Black, dr.White, dr.Draws)
	}
	ref := fixtureRef(5)
	s := ref.CheckRows(t, d)
	if s.BlackWins != 88-13 || s.WhiteWins != 96-15 || s.Draws != 76-12 || s.MergedShards != 7 || s.YoungRuns != 3 {
		t.Fatalf("stats after the repair %+v", s)
	}
	if res, err := d.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 {
		t.Fatalf("check after the repair: %+v, %v", res, err)
	}
	if res, err := target.Merge(ctx, path); err == nil {
		t.Fatalf("merge from a database being written: %+v", res)
	}
	more := storetest.RandomGames(9, 30)
	writeGames(t, d, more, 30)
	ref.Add(more)
	if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 1, Age: 0}); err != nil {
		t.Fatal(err)
	}
	ref.CheckRows(t, d)
	mustClose(t, d)
	if res, err := target.Merge(ctx, path); err != nil || res.Games != 250 {
		t.Fatalf("merge from the repaired database: %+v, %v", res, err)
	}
}

// TestRepairCorrectsRow: a young_runs row that disagrees with its run,
// whole and sealed, is found and corrected from the run: nothing dropped,
// every count as before.
func TestRepairCorrectsRow(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t, "d.db")
	d := mustOpen(t, path)
	ref := storetest.NewReference()
	games := storetest.RandomGames(1, 200)
	ref.Add(games)
	writeGames(t, d, games, 100)
	before := mustStats(t, d)
	mustClose(t, d)
	var run string
	withRaw(t, path, func(db *sql.DB) {
		if err := db.QueryRow("SELECT min(name) FROM young_runs").Scan(&run); err != nil {
			t.Fatal(err)
		}
		mustExec(t, db, "UPDATE young_runs SET positions = positions + 1, draws = draws + 1 WHERE name = ?", run)
	})
	d = mustOpen(t, path)
	defer d.Close()
	res, err := d.Check(ctx, CheckConfig{})
	if err != nil || len(res.Problems) != 1 || res.Problems[0].Run != run || !res.Problems[0].Repairable {
		t.Fatalf("check: %+v, %v", res, err)
	}
	t.Logf("check: %s", res.Problems[0].Text)
	rep, err := d.Repair(ctx)
	if err != nil || len(rep.Dropped) != 0 || !slices.Equal(rep.Corrected, []string{run}) || len(rep.Left) != 0 {
		t.Fatalf("repair: %+v, %v", rep, err)
	}
	if res, err := d.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 || mustStats(t, d) != before {
		t.Fatalf("after the repair: %+v, %v", res, err)
	}
	ref.Check(t, d)
}

// TestRepairLeaves: bytes of no young run are found and deleted; totals
// whose results disagree with their games are found but left (Repair
// cannot tell which is right) and, with nothing else wrong, the file is
// not changed.
func TestRepairLeaves(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t, "d.db")
	d := mustOpen(t, path)
	writeGames(t, d, storetest.RandomGames(1, 100), 50)
	want := exportString(t, d)
	mustClose(t, d)
	withRaw(t, path, func(db *sql.DB) {
		mustExec(t, db, "INSERT INTO young_data (run, off, data) VALUES ('young-stray.run', 0, x'00')")
	})
	d = mustOpen(t, path)
	res, err := d.Check(ctx, CheckConfig{})
	if err != nil || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Text, "young-stray.run") || !res.Problems[0].Repairable {
		t.Fatalf("check: %+v, %v", res, err)
	}
	if rep, err := d.Repair(ctx); err != nil || rep.Orphans != 1 || len(rep.Dropped) != 0 || len(rep.Left) != 0 {
		t.Fatalf("repair: %+v, %v", rep, err)
	}
	if res, err := d.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 || exportString(t, d) != want {
		t.Fatalf("after the repair: %+v, %v", res, err)
	}
	mustClose(t, d)

	withRaw(t, path, func(db *sql.DB) { mustExec(t, db, "UPDATE totals SET draws = draws + 1") })
	hash := fileHash(t, path)
	d = mustOpen(t, path)
	defer d.Close()
	res, err = d.Check(ctx, CheckConfig{})
	if err != nil || len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0].Text, "totals:") || res.Problems[0].Repairable {
		t.Fatalf("check: %+v, %v", res, err)
	}
	t.Logf("check: %s", res.Problems[0].Text)
	if rep, err := d.Repair(ctx); err != nil || len(rep.Left) != 1 || len(rep.Dropped) != 0 {
		t.Fatalf("repair: %+v, %v", rep, err)
	}
	if fileHash(t, path) != hash {
		t.Fatal("a repair that mended nothing changed the file")
	}
}

// TestShareOut: results of unknown runs are shared out in proportion,
// adding up, never above the totals' own.
func TestShareOut(t *testing.T) {
	for _, c := range []struct {
		g       int64
		t       shard.Counts
		b, w, d int64
	}{
		{40, shard.Counts{Games: 260, Black: 88, White: 96, Draws: 76}, 13, 15, 12},
		{1, shard.Counts{Games: 3, Black: 1, White: 1, Draws: 1}, 1, 0, 0},
		{3, shard.Counts{Games: 3, Black: 0, White: 3, Draws: 0}, 0, 3, 0},
		{0, shard.Counts{Games: 10, Black: 5, White: 5, Draws: 0}, 0, 0, 0},
		{7, shard.Counts{Games: 10, Black: 5, White: 5, Draws: 0}, 4, 3, 0},
		{5, shard.Counts{Games: 0, Black: 0, White: 0, Draws: 0}, 0, 0, 5},
	} {
		b, w, d := shareOut(c.g, c.t)
		if b != c.b || w != c.w || d != c.d {
			t.Errorf("shareOut(%d, %+v) = %d/%d/%d, want %d/%d/%d", c.g, c.t, b, w, d, c.b, c.w, c.d)
		}
	}
}
