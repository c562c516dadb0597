package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/storetest"
)

// TestMergeMatchesReference: shards merged one by one hold exactly the
// reference counts, before and after a prune that drops nothing, and after
// reopening.
func TestMergeMatchesReference(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t, "w.db")
	d := mustOpen(t, path)
	ref := storetest.NewReference()
	for i, seed := range []uint64{1, 2, 3} {
		games := storetest.RandomGames(seed, 200+100*i)
		writeGames(t, d, games, 90)
		ref.Add(games)
	}
	ref.Check(t, d)
	res, err := d.Prune(ctx, store.PruneConfig{MinGames: 2, Age: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.Positions != 0 || res.Runs != 0 || res.YoungRuns != 12 || res.Mature == 0 || res.Young == 0 {
		t.Fatalf("prune %+v: want 12 young runs, none expired, some positions promoted, some young", res)
	}
	ref.Check(t, d)
	more := storetest.RandomGames(4, 150)
	writeGames(t, d, more, 150)
	ref.Add(more)
	ref.Check(t, d)
	// Lowering the threshold and expiring every run promotes everything:
	// no position is lost, no count changes.
	if res, err := d.Prune(ctx, store.PruneConfig{MinGames: 1, Age: 0}); err != nil || res.Positions != 0 || res.YoungRuns != 0 || res.Young != 0 {
		t.Fatalf("prune to min 1: %+v, %v", res, err)
	}
	ref.Check(t, d)
	mustClose(t, d)
	d = mustOpen(t, path)
	ref.Check(t, d)
	if err := d.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCountConservation: two shards merged into a third database hold exactly
// the sums, row by row; merging a shard again changes nothing.
func TestCountConservation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gamesA, gamesB := storetest.RandomGames(11, 400), storetest.RandomGames(22, 300)
	shardA := storetest.MustShard(t, dir, storetest.Config, gamesA)
	shardB := storetest.MustShard(t, dir, storetest.Config, gamesB)

	d := mustOpen(t, filepath.Join(dir, "main.db"))
	for _, p := range []string{shardA, shardB} {
		res, err := d.Merge(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if res.AlreadyMerged || res.Games == 0 || res.Moves == 0 {
			t.Fatalf("merge %s: %+v", p, res)
		}
	}
	ref := storetest.NewReference()
	ref.Add(gamesA)
	ref.Add(gamesB)
	ref.Check(t, d)

	before := exportString(t, d)
	statsBefore, _ := d.Stats(ctx)
	res, err := d.Merge(ctx, shardA)
	if err != nil {
		t.Fatal(err)
	}
	if !res.AlreadyMerged || res.Games != 0 {
		t.Fatalf("second merge: %+v, want AlreadyMerged and nothing added", res)
	}
	if after := exportString(t, d); after != before {
		t.Fatal("export changed after merging the same shard twice")
	}
	statsAfter, _ := d.Stats(ctx)
	if statsAfter.Games != statsBefore.Games || statsAfter.MergedShards != 2 {
		t.Fatalf("stats after re-merge %+v, before %+v", statsAfter, statsBefore)
	}
	if err := d.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMergeNested: a merged database carries its ledger, so no shard is ever
// counted twice through it.
func TestMergeNested(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gamesA, gamesB := storetest.RandomGames(1, 50), storetest.RandomGames(2, 60)
	shardA := storetest.MustShard(t, dir, storetest.Config, gamesA)
	shardB := storetest.MustShard(t, dir, storetest.Config, gamesB)

	x := mustOpen(t, filepath.Join(dir, "x.db"))
	if _, err := x.Merge(ctx, shardA); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Merge(ctx, x.Path()); !errors.Is(err, store.ErrOverlap) {
		t.Fatalf("merge into itself: %v, want ErrOverlap", err)
	}
	mustClose(t, x)

	y := mustOpen(t, filepath.Join(dir, "y.db"))
	for _, p := range []string{filepath.Join(dir, "x.db"), shardB} {
		if _, err := y.Merge(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := y.Merge(ctx, shardA); err != nil || !res.AlreadyMerged {
		t.Fatalf("merge A after X (which holds A): %+v, %v; want AlreadyMerged", res, err)
	}
	ref := storetest.NewReference()
	ref.Add(gamesA)
	ref.Add(gamesB)
	ref.Check(t, y)

	z := mustOpen(t, filepath.Join(dir, "z.db"))
	if _, err := z.Merge(ctx, shardA); err != nil {
		t.Fatal(err)
	}
	before := exportString(t, z)
	if _, err := z.Merge(ctx, filepath.Join(dir, "x.db")); !errors.Is(err, store.ErrOverlap) {
		t.Fatalf("merge X (holding A) after A: %v, want ErrOverlap", err)
	}
	if exportString(t, z) != before {
		t.Fatal("refused merge changed the target")
	}
}

// TestBlacklistSticky: a blacklisted move later credited +1 stays
// blacklisted, and nothing breaks (the original program crashed here).
func TestBlacklistSticky(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, tempPath(t, "b.db"))
	mv := canon.Move{X: 1, Y: 0}
	km := store.KeyMove{Key: "0000x", Move: mv}
	lose := store.Game{Records: []store.Record{{Key: "", Move: canon.Move{}, Weight: -1}, {Key: "0000x", Move: mv, Weight: 1}}, Result: -1, Blacklist: []store.KeyMove{{Key: "", Move: canon.Move{}}}}
	win := store.Game{Records: []store.Record{{Key: "", Move: canon.Move{}, Weight: 1}, {Key: "0000x", Move: mv, Weight: -1}}, Result: 1, Blacklist: []store.KeyMove{km}}
	credit := store.Game{Records: []store.Record{{Key: "", Move: canon.Move{}, Weight: -1}, {Key: "0000x", Move: mv, Weight: 1}}, Result: -1}
	for _, g := range []store.Game{win, credit, lose} {
		writeGames(t, d, []store.Game{g}, 1)
	}
	want := []store.MoveStat{{Key: "0000x", Move: mv, WSum: 1, Games: 3, Blacklisted: true, PositionGames: 3}}
	for _, when := range []string{"young", "promoted"} {
		ms, err := d.MoveStats(ctx, "0000x")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ms, want) {
			t.Fatalf("%s: move stats %+v, want %+v", when, ms, want)
		}
		bl, err := d.Blacklist(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if bl.Len() != 2 || !bl.Contains("0000x", mv) || !bl.Contains("", canon.Move{}) || bl.Contains("0000x", canon.Move{}) {
			t.Fatalf("%s: blacklist %v", when, bl)
		}
		if _, err := d.Prune(ctx, store.DefaultPrune()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBatchAddInvalid(t *testing.T) {
	for name, g := range map[string]store.Game{
		"Weight":           {Records: []store.Record{{Key: "", Move: canon.Move{}, Weight: 2}}},
		"Result":           {Result: 3},
		"RepeatedPosition": {Records: []store.Record{{Key: "a", Move: canon.Move{}, Weight: 0}, {Key: "a", Move: canon.Move{X: 1, Y: 1}, Weight: 0}}},
	} {
		t.Run(name, func(t *testing.T) {
			b := shard.NewBatch()
			if err := b.Add(g); !errors.Is(err, store.ErrInvalidGame) {
				t.Fatalf("Add: %v, want ErrInvalidGame", err)
			}
			if b.Len() != 0 || b.Rows() != 0 || b.Positions() != 0 {
				t.Fatal("a refused game changed the batch")
			}
		})
	}
}

func TestStatsJSON(t *testing.T) {
	d := mustOpen(t, tempPath(t, "s.db"))
	writeGames(t, d, storetest.RandomGames(5, 10), 10)
	s, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"games", "positions", "moves", "blacklisted", "young", "young_runs", "pruned_black", "rule", "key_version", "schema_version", "board_size", "black_wins", "white_wins", "draws", "merged_shards", "file_bytes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("stats JSON lacks %q: %s", k, b)
		}
	}
	if s.Games != 10 || s.Rule != "freestyle" || s.SchemaVersion != SchemaVersion || s.FileBytes == 0 || s.YoungRuns != 1 || s.Young == 0 || s.Young == s.Positions {
		t.Fatalf("stats %+v", s)
	}
}

func TestMetaAndGenerations(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, tempPath(t, "m.db"))
	if err := d.SetMeta(ctx, map[string]string{"seed": "42", "config": `{"radius":2}`}); err != nil {
		t.Fatal(err)
	}
	if err := d.SetMeta(ctx, map[string]string{"seed": "1", "rule": "standard"}); !errors.Is(err, store.ErrReservedMeta) {
		t.Fatalf("set reserved: %v, want ErrReservedMeta", err)
	}
	m, err := d.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m["seed"] != "42" || m["rule"] != "freestyle" || m["db_id"] != d.ID() || m["schema_version"] != strconv.Itoa(SchemaVersion) {
		t.Fatalf("meta %v", m)
	}
	g := store.Generation{Gen: 1, Games: 1000, Rows: 50, FitSeconds: 1.5, AUC: 0.8, Score: 0.6, ScoreLow: 0.55, ScoreHigh: 0.65, Model: "data/g1.model", Seed: 7}
	if err := d.AddGeneration(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := d.AddGeneration(ctx, g); !errors.Is(err, store.ErrGenerationExists) {
		t.Fatalf("duplicate generation: %v", err)
	}
	gs, err := d.Generations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 1 || gs[0].Created == "" {
		t.Fatalf("generations %+v", gs)
	}
	g.Created = gs[0].Created
	if gs[0] != g {
		t.Fatalf("generation %+v, want %+v", gs[0], g)
	}
	var n int
	if err := d.db.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&n); err != nil || n != SchemaVersion {
		t.Fatalf("schema_migrations rows %d (%v), want %d", n, err, SchemaVersion)
	}
}

// TestReopen: Open of an existing database keeps its data; OpenExisting reads
// the configuration; OpenReadOnly never writes.
func TestReopen(t *testing.T) {
	path := tempPath(t, "r.db")
	d := mustOpen(t, path)
	writeGames(t, d, storetest.RandomGames(9, 40), 20)
	want := exportString(t, d)
	mustClose(t, d)
	hash := dirHash(t, filepath.Dir(path))

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := exportString(t, ro); got != want {
		t.Fatal("read-only export differs")
	}
	if _, err := ro.Prune(context.Background(), store.DefaultPrune()); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("prune read-only: %v", err)
	}
	if _, err := ro.Merge(context.Background(), path); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("merge into read-only: %v", err)
	}
	mustClose(t, ro)
	if dirHash(t, filepath.Dir(path)) != hash {
		t.Fatal("read-only open changed the directory")
	}

	e, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Config() != storetest.Config || exportString(t, e) != want {
		t.Fatalf("reopened config %+v or data differ", e.Config())
	}
	if _, err := OpenExisting(tempPath(t, "absent.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenExisting absent: %v", err)
	}
}

// TestShardUnsealed: a shard whose writing never finished is not listed,
// cannot be merged, and CleanTemp removes it.
func TestShardUnsealed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	final := storetest.MustShard(t, dir, storetest.Config, storetest.RandomGames(3, 20))
	data, err := os.ReadFile(final)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".shard-cut.run.tmp")
	if err := os.WriteFile(tmp, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := shard.ListShards(dir); len(got) != 1 || got[0] != final {
		t.Fatalf("ListShards %v, want [%s]", got, final)
	}
	if !shard.IsTempShard(tmp) || shard.IsTempShard(final) {
		t.Fatalf("IsTempShard(%q) or (%q) wrong", tmp, final)
	}
	d := mustOpen(t, filepath.Join(dir, "main.db"))
	if _, err := d.Merge(ctx, tmp); !errors.Is(err, store.ErrUnpublished) {
		t.Fatalf("merge temp: %v, want ErrUnpublished", err)
	}
	// Renamed by hand, it is still not sealed.
	renamed := filepath.Join(dir, "shard-byhand.run")
	if err := os.Rename(tmp, renamed); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Merge(ctx, renamed); !errors.Is(err, store.ErrUnpublished) {
		t.Fatalf("merge renamed unsealed: %v, want ErrUnpublished", err)
	}
	if err := os.Rename(renamed, tmp); err != nil {
		t.Fatal(err)
	}
	removed, err := shard.CleanTemp(dir)
	if err != nil || len(removed) != 1 {
		t.Fatalf("CleanTemp: %v, %v", removed, err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("temp shard survives CleanTemp: %v", err)
	}
	if st, _ := d.Stats(ctx); st.Games != 0 {
		t.Fatalf("refused merges added %d games", st.Games)
	}
}

// dirHash hashes every file of dir (names and contents).
func dirHash(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b.WriteString(p + " " + fileHash(t, p) + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
