package store

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
)

func TestWriteMatchesReference(t *testing.T) {
	d := mustOpen(t, tempPath(t, "w.db"))
	ref := newReference()
	for i, seed := range []uint64{1, 2, 3} {
		games := randomGames(seed, 200+100*i)
		if err := d.Write(context.Background(), mustBatch(t, games)); err != nil {
			t.Fatal(err)
		}
		ref.add(games)
	}
	ref.check(t, d)
}

// TestCountConservation: two shards merged into a third database hold exactly
// the sums, row by row; merging a shard again changes nothing.
func TestCountConservation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gamesA, gamesB := randomGames(11, 400), randomGames(22, 300)
	shardA := mustShard(t, dir, testCfg, gamesA, 3)
	shardB := mustShard(t, dir, testCfg, gamesB, 2)

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
	ref := newReference()
	ref.add(gamesA)
	ref.add(gamesB)
	ref.check(t, d)

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
	gamesA, gamesB := randomGames(1, 50), randomGames(2, 60)
	shardA := mustShard(t, dir, testCfg, gamesA, 1)
	shardB := mustShard(t, dir, testCfg, gamesB, 1)

	x := mustOpen(t, filepath.Join(dir, "x.db"))
	if _, err := x.Merge(ctx, shardA); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Merge(ctx, x.Path()); !errors.Is(err, ErrOverlap) {
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
	ref := newReference()
	ref.add(gamesA)
	ref.add(gamesB)
	ref.check(t, y)

	z := mustOpen(t, filepath.Join(dir, "z.db"))
	if _, err := z.Merge(ctx, shardA); err != nil {
		t.Fatal(err)
	}
	before := exportString(t, z)
	if _, err := z.Merge(ctx, filepath.Join(dir, "x.db")); !errors.Is(err, ErrOverlap) {
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
	km := KeyMove{"0000x", Move{1, 0}}
	lose := Game{Records: []Record{{"", Move{0, 0}, -1}, {"0000x", Move{1, 0}, 1}}, Result: -1, Blacklist: []KeyMove{{"", Move{0, 0}}}}
	win := Game{Records: []Record{{"", Move{0, 0}, 1}, {"0000x", Move{1, 0}, -1}}, Result: 1, Blacklist: []KeyMove{km}}
	credit := Game{Records: []Record{{"", Move{0, 0}, -1}, {"0000x", Move{1, 0}, 1}}, Result: -1}
	for _, g := range []Game{win, credit, lose} {
		if err := d.Write(ctx, mustBatch(t, []Game{g})); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := d.MoveStats(ctx, "0000x")
	if err != nil {
		t.Fatal(err)
	}
	want := []MoveStat{{Key: "0000x", Move: Move{1, 0}, WSum: 1, Games: 3, Blacklisted: true, PositionGames: 3}}
	if !reflect.DeepEqual(ms, want) {
		t.Fatalf("move stats %+v, want %+v", ms, want)
	}
	bl, err := d.Blacklist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(bl) != 2 || !bl.Contains("0000x", Move{1, 0}) || !bl.Contains("", Move{0, 0}) {
		t.Fatalf("blacklist %v", bl)
	}
}

func TestBatchAddInvalid(t *testing.T) {
	for name, g := range map[string]Game{
		"Weight":           {Records: []Record{{"", Move{}, 2}}},
		"Result":           {Result: 3},
		"RepeatedPosition": {Records: []Record{{"a", Move{}, 0}, {"a", Move{1, 1}, 0}}},
	} {
		t.Run(name, func(t *testing.T) {
			b := NewBatch()
			if err := b.Add(g); !errors.Is(err, ErrInvalidGame) {
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
	if err := d.Write(context.Background(), mustBatch(t, randomGames(5, 10))); err != nil {
		t.Fatal(err)
	}
	s, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"games", "positions", "moves", "blacklisted", "rule", "key_version", "schema_version", "board_size", "black_wins", "white_wins", "draws", "merged_shards", "file_bytes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("stats JSON lacks %q: %s", k, b)
		}
	}
	if s.Games != 10 || s.Rule != RuleFreestyle || s.SchemaVersion != SchemaVersion || s.FileBytes == 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestMetaAndGenerations(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, tempPath(t, "m.db"))
	if err := d.SetMeta(ctx, map[string]string{"seed": "42", "config": `{"radius":2}`}); err != nil {
		t.Fatal(err)
	}
	if err := d.SetMeta(ctx, map[string]string{"seed": "1", "rule": "standard"}); !errors.Is(err, ErrReservedMeta) {
		t.Fatalf("set reserved: %v, want ErrReservedMeta", err)
	}
	m, err := d.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m["seed"] != "42" || m["rule"] != RuleFreestyle || m["db_id"] != d.ID() || m["schema_version"] != strconv.Itoa(SchemaVersion) {
		t.Fatalf("meta %v", m)
	}
	g := Generation{Gen: 1, Games: 1000, Rows: 50, FitSeconds: 1.5, AUC: 0.8, Score: 0.6, ScoreLow: 0.55, ScoreHigh: 0.65, Model: "data/g1.model", Seed: 7}
	if err := d.AddGeneration(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := d.AddGeneration(ctx, g); !errors.Is(err, ErrGenerationExists) {
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
	ctx := context.Background()
	path := tempPath(t, "r.db")
	d := mustOpen(t, path)
	games := randomGames(9, 40)
	if err := d.Write(ctx, mustBatch(t, games)); err != nil {
		t.Fatal(err)
	}
	want := exportString(t, d)
	mustClose(t, d)
	hash := fileHash(t, path)

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := exportString(t, ro); got != want {
		t.Fatal("read-only export differs")
	}
	if err := ro.Write(ctx, mustBatch(t, games)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write read-only: %v", err)
	}
	mustClose(t, ro)
	if fileHash(t, path) != hash {
		t.Fatal("read-only open changed the file")
	}

	e, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Config() != testCfg || exportString(t, e) != want {
		t.Fatalf("reopened config %+v or data differ", e.Config())
	}
	if _, err := OpenExisting(tempPath(t, "absent.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenExisting absent: %v", err)
	}
}

// TestShardUnpublished: a shard never published is not visible as
// shard-*.db, cannot be merged, and CleanTemp removes it.
func TestShardUnpublished(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := CreateShard(dir, testCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, mustBatch(t, randomGames(3, 20))); err != nil {
		t.Fatal(err)
	}
	tmp := s.Path()
	mustClose(t, s.DB) // a crash: closed, never published
	if got, _ := ListShards(dir); len(got) != 0 {
		t.Fatalf("unpublished shard visible: %v", got)
	}
	if !IsTempShard(tmp) || !strings.HasPrefix(filepath.Base(tmp), ".shard-") {
		t.Fatalf("temporary name %q", tmp)
	}
	d := mustOpen(t, filepath.Join(dir, "main.db"))
	if _, err := d.Merge(ctx, tmp); !errors.Is(err, ErrUnpublished) {
		t.Fatalf("merge temp: %v, want ErrUnpublished", err)
	}
	// Renamed by hand, it is still not published.
	renamed := filepath.Join(dir, "shard-byhand.db")
	if err := os.Rename(tmp, renamed); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Merge(ctx, renamed); !errors.Is(err, ErrUnpublished) {
		t.Fatalf("merge renamed unpublished: %v, want ErrUnpublished", err)
	}
	if err := os.Rename(renamed, tmp); err != nil {
		t.Fatal(err)
	}
	removed, err := CleanTemp(dir)
	if err != nil || len(removed) == 0 {
		t.Fatalf("CleanTemp: %v, %v", removed, err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("temp shard survives CleanTemp: %v", err)
	}

	s2, err := CreateShard(dir, testCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Discard(); err != nil {
		t.Fatal(err)
	}
	final := mustShard(t, dir, testCfg, randomGames(4, 10), 1)
	got, _ := ListShards(dir)
	if len(got) != 1 || got[0] != final {
		t.Fatalf("ListShards %v, want [%s]", got, final)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".shard-*")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(final + suffix); err == nil {
			t.Fatalf("published shard has %s file", suffix)
		}
	}
}
