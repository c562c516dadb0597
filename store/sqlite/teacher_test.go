package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/storetest"
)

// TestTeacherShards: teacher games come in through sealed teacher shards
// (format 2, kind T), exactly once: they round-trip with their plies in
// (gen, game) order whatever the order written; the same shard merged
// again changes nothing; another shard with a game already stored keeps
// the stored one and counts a duplicate; a window reads only its
// generations; prune never touches them; the stats count games, shards
// and the shards' games; a malformed game writes nothing. Self-play
// shards are still format 1.
func TestTeacherShards(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, tempPath(t, "t.db"))
	games := storetest.TeacherGames(3, 4)
	dir := t.TempDir()
	reversed := append([]store.TeacherGame(nil), games...)
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	path, err := shard.WriteTeacherShard(ctx, dir, storetest.Config, reversed, map[string]string{"gen": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); b[len(shard.Magic)] != 2 || b[len(shard.Magic)+1] != shard.KindTeacher {
		t.Errorf("teacher shard: format %d kind %q, want 2 and T", b[len(shard.Magic)], b[len(shard.Magic)+1])
	}
	if b, _ := os.ReadFile(storetest.MustShard(t, dir, storetest.Config, storetest.RandomGames(1, 3))); b[len(shard.Magic)] != 1 {
		t.Errorf("self-play shard: format %d, want 1 (as before format 2)", b[len(shard.Magic)])
	}
	info, err := shard.ReadTeacherShard(path)
	if err != nil || !reflect.DeepEqual(info.Games, games) || info.Meta["gen"] != "1" {
		t.Fatalf("read teacher shard: %v, games equal %v, meta %v", err, reflect.DeepEqual(info.Games, games), info.Meta)
	}
	for round, want := range []store.MergeResult{{ShardID: info.ID, TeacherGames: 12}, {ShardID: info.ID, AlreadyMerged: true}} {
		if res, err := d.Merge(ctx, path); err != nil || res != want {
			t.Fatalf("round %d: %+v, %v; want %+v", round, res, err, want)
		}
	}
	again := storetest.TeacherGames(3, 5)[8:10] // games 3 and 4 of generation 2: 3 is stored
	again[0].Winner = gomoku.Black
	if res := storetest.MergeTeacher(t, d, again); res.TeacherGames != 1 || res.Duplicates != 1 {
		t.Errorf("a shard with a stored game: %+v, want 1 added and 1 duplicate", res)
	}
	if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 2}); err != nil {
		t.Fatal(err)
	}
	want := append(append([]store.TeacherGame(nil), games[4:8]...), again[1])
	want = append(want, games[8:]...)
	if got := storetest.ReadTeacher(t, d, 2, 3); !reflect.DeepEqual(got, want) {
		t.Errorf("generations 2..3:\n%+v\nwant\n%+v", got, want)
	}
	if n, err := d.TeacherStored(ctx, 2); err != nil || n != 5 {
		t.Errorf("generation 2 stores %d games (%v), want 5", n, err)
	}
	st := mustStats(t, d)
	if st.TeacherGames != 13 || st.TeacherShards != 2 || st.TeacherShardGames != 14 || st.Games != 0 || st.MergedShards != 2 {
		t.Errorf("stats: %+v; want 13 teacher games, 2 teacher shards of 14 games, no games", st)
	}
	bad := []store.TeacherGame{{Gen: 9, Moves: []gomoku.Point{1, 2}, Book: 1, Teacher: []gomoku.Point{2}},
		{Gen: 9, Game: 1, Moves: []gomoku.Point{1, 2}, Book: 1}}
	empty := t.TempDir()
	if _, err := shard.WriteTeacherShard(ctx, empty, storetest.Config, bad, nil); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a game without its teacher moves: %v, want ErrCorrupt", err)
	}
	twice := []store.TeacherGame{games[0], games[0]}
	if _, err := shard.WriteTeacherShard(ctx, empty, storetest.Config, twice, nil); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a game twice: %v, want ErrCorrupt", err)
	}
	if left, _ := os.ReadDir(empty); len(left) != 0 {
		t.Errorf("refused teacher shards left %d files", len(left))
	}
}

// TestTeacherShardRefused: a damaged teacher shard, a teacher game in a
// statistics shard and a record type from the future are refused with
// nothing stored; a sealed export of a database that merged teacher
// shards does not list them, so merging it elsewhere leaves them
// mergeable there.
func TestTeacherShardRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := mustOpen(t, filepath.Join(dir, "d.db"))
	path, err := shard.WriteTeacherShard(ctx, t.TempDir(), storetest.Config, storetest.TeacherGames(1, 6), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	flipped := append([]byte(nil), data...)
	flipped[len(data)/2] ^= 0x10
	corrupt := filepath.Join(dir, "shard-corrupt.run")
	os.WriteFile(corrupt, flipped, 0o644)
	inShard := filepath.Join(dir, "shard-mixed.run")
	w, err := shard.Create(inShard, shard.Header{Kind: shard.KindShard, Config: storetest.Config, ID: "mixed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Raw(shard.AppendTeacher(nil, &storetest.TeacherGames(1, 1)[0])); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Seal(shard.Counts{Games: 1, Draws: 1}); err != nil {
		t.Fatal(err)
	}
	future := filepath.Join(dir, "shard-future.run")
	if w, err = shard.Create(future, shard.Header{Kind: shard.KindTeacher, Config: storetest.Config, ID: "future"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Raw([]byte{4, 0}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Seal(shard.Counts{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
	}{{corrupt, store.ErrCorrupt}, {inShard, store.ErrCorrupt}, {future, store.ErrSchemaVersion}} {
		res, err := d.Merge(ctx, c.path)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %+v, %v; want %v", filepath.Base(c.path), res, err, c.want)
		}
		t.Logf("error: %v", err)
	}
	if st := mustStats(t, d); st.TeacherGames != 0 || st.MergedShards != 0 {
		t.Fatalf("refused shards stored %d games, %d ledger entries", st.TeacherGames, st.MergedShards)
	}
	if res, err := d.Merge(ctx, path); err != nil || res.TeacherGames != 6 {
		t.Fatalf("merge: %+v, %v", res, err)
	}
	writeGames(t, d, storetest.RandomGames(3, 20), 20)
	export := filepath.Join(dir, "d.run")
	if err := d.ExportRun(ctx, export); err != nil {
		t.Fatal(err)
	}
	e := mustOpen(t, filepath.Join(dir, "e.db"))
	if res, err := e.Merge(ctx, export); err != nil || res.Games != 20 {
		t.Fatalf("merge the export: %+v, %v", res, err)
	}
	if res, err := e.Merge(ctx, path); err != nil || res.TeacherGames != 6 {
		t.Errorf("the teacher shard after the export that did not carry it: %+v, %v; want its 6 games", res, err)
	}
}

// The fixture testdata/v5.db was written by the code of 0d9aba0 (schema
// 5, before teacher shards; see testdata/README.md): a young run of
// randomGames seed 9 (30 games), the three teacher games of
// fixtureTeacherGames added by that code's AddTeacherGames, and a
// generation; testdata/v1.run is a shard of seed 8 (30 games) that code
// wrote, format 1.
func fixtureTeacherGames() []store.TeacherGame {
	var out []store.TeacherGame
	for i := range 3 {
		g := store.TeacherGame{Gen: 1 + i/2, Game: i, Book: 2, Winner: gomoku.Player(i % 3)}
		for k := range 9 + i {
			g.Moves = append(g.Moves, gomoku.Point(7*15+k+15*(k%2)))
		}
		g.Teacher = append([]gomoku.Point(nil), g.Moves[2:]...)
		g.Teacher[0] = 0
		out = append(out, g)
	}
	return out
}

// TestSchema5Reads: today's databases and shards still read. The schema-5
// fixture opened read-only gives its teacher games (without plies) and
// counts; opened for writing it is migrated to schema 6 with its games as
// they were, and takes the format-1 shard of that code and new teacher
// shards.
func TestSchema5Reads(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"v5.db", "v1.run"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	path := filepath.Join(dir, "v5.db")
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := storetest.ReadTeacher(t, ro, 0, 9); !reflect.DeepEqual(got, fixtureTeacherGames()) {
		t.Fatalf("read-only teacher games:\n%+v\nwant\n%+v", got, fixtureTeacherGames())
	}
	if st := mustStats(t, ro); st.SchemaVersion != 5 || st.Games != 30 || st.TeacherGames != 3 || st.TeacherShards != 0 {
		t.Fatalf("read-only stats %+v", st)
	}
	mustClose(t, ro)
	d, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := storetest.ReadTeacher(t, d, 0, 9); !reflect.DeepEqual(got, fixtureTeacherGames()) {
		t.Fatal("the migration changed the teacher games")
	}
	if res, err := d.Merge(ctx, filepath.Join(dir, "v1.run")); err != nil || res.Games != 30 {
		t.Fatalf("merge the format-1 shard: %+v, %v", res, err)
	}
	// Games 1..3 of generation 2: game 2 is the fixture's, which stays.
	if res := storetest.MergeTeacher(t, d, storetest.TeacherGames(2, 4)[5:]); res.TeacherGames != 2 || res.Duplicates != 1 {
		t.Errorf("merge a teacher shard: %+v, want 2 games and 1 duplicate", res)
	}
	if got := storetest.ReadTeacher(t, d, 2, 2); len(got) != 3 || !reflect.DeepEqual(got[1], fixtureTeacherGames()[2]) {
		t.Errorf("generation 2: %+v", got)
	}
	st := mustStats(t, d)
	if st.SchemaVersion != SchemaVersion || st.Games != 60 || st.TeacherGames != 5 || st.TeacherShards != 1 || st.TeacherShardGames != 3 {
		t.Fatalf("after the migration: %+v", st)
	}
	if res, err := d.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 {
		t.Fatalf("check: %+v, %v", res, err)
	}
}
