package store

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/gomoku"
)

// randomBoard is a board of 1 to 60 stones placed at random, each player in
// turn, without a five.
func randomBoard(rng *rand.Rand) *gomoku.Board {
	b := gomoku.New(gomoku.Options{Rule: gomoku.Freestyle})
	for n := 1 + rng.IntN(60); n > 0; n-- {
		p := gomoku.Point(rng.IntN(gomoku.NumCells))
		if b.At(p) == gomoku.Empty {
			b.Put(p, gomoku.Player(1+n%2))
			if b.Over() {
				b.Undo()
			}
		}
	}
	return b
}

// image is b under the board symmetry s.
func image(t *testing.T, b *gomoku.Board, s canon.Sym) *gomoku.Board {
	t.Helper()
	out := gomoku.New(b.Options())
	for p := range gomoku.Point(gomoku.NumCells) {
		if c := b.At(p); c != gomoku.Empty {
			x, y := s.Apply(p.X(), p.Y(), gomoku.Size, gomoku.Size)
			if err := out.Put(gomoku.Pt(x, y), c); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// TestKeysThroughRuns: the key format is canon's alone. For 400 random
// positions, each of the 8 images of the board gets one key from canon;
// written by the store into a run (packed by canon) and read back, every
// key is the text canon made, and its stones are the position's (Decode,
// placed on an empty board, give the same key).
func TestKeysThroughRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	keys := map[string]bool{}
	for range 400 {
		b := randomBoard(rng)
		key := canon.Of(b).Key
		for s := range canon.Sym(canon.NumSyms) {
			if k := canon.Of(image(t, b, s)).Key; k != key {
				t.Fatalf("image %v has key %q, the board %q", s, k, key)
			}
		}
		keys[key] = true
	}
	ps := make([]position, 0, len(keys))
	for key := range keys {
		ps = append(ps, position{id: canon.ID(key), key: []byte(key), hasKey: true, moves: []moveRow{{wsum: 1, games: 1}}})
	}
	slices.SortFunc(ps, func(p, q position) int { return cmpPos(&p, &q) })
	path := filepath.Join(t.TempDir(), "keys.run")
	w, err := createRun(path, runHeader{kind: kindShard, cfg: testCfg, id: "keys"})
	if err != nil {
		t.Fatal(err)
	}
	packed := 0
	for i := range ps {
		if ps[i].encoded()[0] == keyPacked {
			packed++
		}
		if err := w.position(&ps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := w.seal(totals{}); err != nil {
		t.Fatal(err)
	}
	if packed != len(ps) {
		t.Errorf("%d of %d keys packed; every key of a board packs", packed, len(ps))
	}
	r, err := openRun(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for i := 0; ; i++ {
		p, err := r.next()
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			if i != len(ps) {
				t.Fatalf("read %d positions, wrote %d", i, len(ps))
			}
			break
		}
		got := string(p.text())
		if got != string(ps[i].key) || p.id != canon.ID(got) {
			t.Fatalf("position %d read as %q (id %d), written %q (id %d)", i, got, p.id, ps[i].key, ps[i].id)
		}
		stones, _, _, err := canon.Decode(got)
		if err != nil {
			t.Fatal(err)
		}
		if k, err := canon.Key(stones); err != nil || k != got {
			t.Fatalf("the stones of %q give the key %q, %v", got, k, err)
		}
	}
}

// TestUnpackableKeys: keys that do not pack (out of order, more than 255
// stones, a cell off the 16x16 grid) are written as text and read back as
// they were.
func TestUnpackableKeys(t *testing.T) {
	for _, key := range []string{
		"0100x0000o",                 // out of order
		strings.Repeat("0000x", 256), // too many (and not a position: the run does not care)
		"1600x",                      // column 16
		"0000x0000o",                 // one cell twice
		"00a0x",                      // not digits
	} {
		enc := appendKey(nil, []byte(key))
		if enc[0] != keyText {
			t.Errorf("%.20q… packed: %x", key, enc[:min(len(enc), 8)])
		}
		if got := string(decodeKey(nil, enc)); got != key {
			t.Errorf("%.20q… read back as %.20q…", key, got)
		}
	}
}

// The fixtures testdata/v6.db, v6.run and v6-teacher.run were written by
// the code of 2bbdf22, the last before canon owned the packed key and the
// id (see testdata/README.md).
var (
	fixture6Stats = Stats{Games: 100, BlackWins: 31, WhiteWins: 39, Draws: 30, Positions: 1336, Moves: 1434, Blacklisted: 70,
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
	ref := newReference()
	for _, s := range []struct {
		seed uint64
		n    int
	}{{10, 40}, {11, 40}, {13, 20}, {12, 30}} {
		ref.add(randomGames(s.seed, s.n))
	}
	ref.check(t, d)
	if res, err := d.Check(ctx, CheckConfig{}); err != nil || len(res.Problems) != 0 {
		t.Fatalf("check: %+v, %v", res, err)
	}
}
