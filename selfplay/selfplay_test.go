package selfplay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/shard"
)

// fingerprint is the hash of 300 generation-0 games at seed (1, 2). A
// change of behaviour (filter, policy, keys, recording) changes it; the
// commit that changes it must say why.
const fingerprint = "780043f0b5194a2ee3244434d037b8ba6bf5c64a2321aa8b04930e9303cbf9a9"

func TestFingerprint(t *testing.T) {
	pl := New(Config{}, Uniform{}, store.Blacklist{})
	rng := rand.New(rand.NewPCG(1, 2))
	h := sha256.New()
	for range 300 {
		g := pl.Play(rng)
		fmt.Fprintf(h, "%d %v|", g.Result, g.Blacklist)
		for _, r := range g.Records {
			fmt.Fprintf(h, "%s %d %d %d;", r.Key, r.Move.X, r.Move.Y, r.Weight)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != fingerprint {
		t.Errorf("fingerprint %s, want %s", got, fingerprint)
	}
}

// replay checks a game record against the stones actually played: each
// key is the key of the position before the move, each canonical move is
// the played cell's, and the game ended where the record ends.
func replay(t *testing.T, cfg Config, moves []gomoku.Point, g store.Game) *gomoku.Board {
	t.Helper()
	b := gomoku.New(cfg.boardOptions())
	opening := len(moves) - len(g.Records)
	seen := map[string]bool{}
	for i, p := range moves {
		if i >= opening {
			r := g.Records[i-opening]
			c := canon.Of(b)
			if m := c.ToCanon(p); c.Key != r.Key || m.X != r.Move.X || m.Y != r.Move.Y {
				t.Fatalf("record %d: %q %v, board gives %q %v", i, r.Key, r.Move, c.Key, m)
			}
			if seen[r.Key] {
				t.Fatalf("record %d: position %q twice in one game", i, r.Key)
			}
			seen[r.Key] = true
		}
		if err := b.Play(p); err != nil {
			t.Fatal(err)
		}
	}
	if !b.Over() {
		t.Fatalf("game recorded before its end:\n%s", b)
	}
	return b
}

// TestRecords: the records of games under each rule replay on a board
// whose Play is the referee (under Renju it refuses Black's forbidden
// points), with the right weights, result and blacklist.
func TestRecords(t *testing.T) {
	for _, cfg := range []Config{{}, {Rule: gomoku.Standard, Radius: 1}, {MaxPly: 12}, {Rule: gomoku.Renju}} {
		pl := New(cfg, Uniform{}, store.Blacklist{})
		rng := rand.New(rand.NewPCG(9, 9))
		results := map[int8]int{}
		for range 300 {
			g := pl.Play(rng)
			b := replay(t, cfg, pl.Moves(), g)
			results[g.Result]++
			var want int8
			switch b.Winner() {
			case gomoku.Black:
				want = 1
			case gomoku.White:
				want = -1
			}
			if g.Result != want {
				t.Fatalf("result %d, board winner %v", g.Result, b.Winner())
			}
			n := len(g.Records)
			for i, r := range g.Records {
				// Records alternate movers; the last record is the winner's move.
				w := int8(0)
				if want != 0 {
					w = 1
					if (n-1-i)%2 == 1 {
						w = -1
					}
				}
				if r.Weight != w {
					t.Fatalf("record %d of %d: weight %d, want %d", i, n, r.Weight, w)
				}
			}
			if want == 0 && len(g.Blacklist) != 0 {
				t.Fatal("a draw blacklisted a move")
			}
			if want != 0 && (len(g.Blacklist) != 1 || g.Blacklist[0].Key != g.Records[n-2].Key || g.Blacklist[0].Move != g.Records[n-2].Move) {
				t.Fatalf("blacklist %v, loser's last move %v", g.Blacklist, g.Records[n-2])
			}
		}
		if cfg.MaxPly == 12 && results[0] == 0 {
			t.Error("ply limit 12 gave no draws")
		}
		if cfg.MaxPly == 0 && (results[1] == 0 || results[-1] == 0) {
			t.Errorf("results %v: both colours should win some games", results)
		}
	}
}

// TestBlacklistAvoided: with every reply to the centre stone but one
// blacklisted, every game plays that one; with all blacklisted, games still
// go on.
func TestBlacklistAvoided(t *testing.T) {
	b := gomoku.New(gomoku.Options{})
	b.Play(gomoku.Center)
	c := canon.Of(b)
	all := map[store.KeyMove]bool{}
	for _, p := range b.Candidates(nil) {
		all[store.KeyMove{Key: c.Key, Move: c.ToCanon(p)}] = true
	}
	if len(all) != 5 { // radius 2 around a stone: 24 cells in 5 symmetry classes
		t.Fatalf("%d move classes around the centre stone, want 5", len(all))
	}
	diag := c.ToCanon(gomoku.Pt(8, 8))
	keep := store.KeyMove{Key: c.Key, Move: diag}
	if !all[keep] {
		t.Fatalf("move %v not among %v", keep, all)
	}
	var some, every []store.KeyMove
	for km := range all {
		every = append(every, km)
		if km != keep {
			some = append(some, km)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		bl   store.Blacklist
		only bool
	}{{store.NewBlacklist(some...), true}, {store.NewBlacklist(every...), false}} {
		pl := New(Config{}, Uniform{}, tc.bl)
		moves := map[canon.Move]int{}
		for range 200 {
			g := pl.Play(rng)
			moves[g.Records[0].Move]++
		}
		if tc.only && (len(moves) != 1 || moves[keep.Move] != 200) {
			t.Errorf("with 4 of 5 replies blacklisted, played %v", moves)
		}
		if !tc.only && len(moves) < 4 {
			t.Errorf("with every reply blacklisted, played only %v", moves)
		}
	}
}

func TestOpenings(t *testing.T) {
	ops := [][]gomoku.Point{
		{gomoku.Center, gomoku.Center + 1, gomoku.Center + 2*gomoku.Size},
		{gomoku.Pt(0, 0), gomoku.Pt(1, 1), gomoku.Pt(0, 2), gomoku.Pt(2, 2), gomoku.Pt(4, 4)},
	}
	cfg := Config{Openings: ops}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	pl := New(cfg, Uniform{}, store.Blacklist{})
	rng := rand.New(rand.NewPCG(5, 6))
	used := map[int]int{}
	for range 100 {
		g := pl.Play(rng)
		// The first record's position has the opening's stones.
		stones, _, _, err := canon.Decode(g.Records[0].Key)
		if err != nil {
			t.Fatal(err)
		}
		used[len(stones)]++
		replay(t, cfg, pl.Moves(), g)
		if op := ops[map[int]int{3: 0, 5: 1}[len(stones)]]; !slices.Equal(pl.Moves()[:len(op)], op) {
			t.Fatalf("game began %v, not with opening %v", pl.Moves()[:len(op)], op)
		}
	}
	if used[3] == 0 || used[5] == 0 || used[3]+used[5] != 100 {
		t.Errorf("openings used %v", used)
	}
	bad := Config{Openings: [][]gomoku.Point{{gomoku.Center, gomoku.Center}}}
	if err := bad.Validate(); err == nil {
		t.Error("an opening with an occupied cell was accepted")
	}
}

// BenchmarkPlay: one generation-0 game recorded in memory per op (target:
// 2,000 games/s per core).
func BenchmarkPlay(b *testing.B) {
	pl := New(Config{}, Uniform{}, store.Blacklist{})
	rng := rand.New(rand.NewPCG(1, 1))
	plies := 0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		plies += len(pl.Play(rng).Records)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(plies)/float64(b.N), "plies/game")
}

// BenchmarkPlayStored: BenchmarkPlay plus the worker's whole storing cost
// (store.Batch.Add of every game, and a sealed shard every 5,000 games), so
// that the two side by side give what storing costs a worker per game.
func BenchmarkPlayStored(b *testing.B) {
	pl := New(Config{}, Uniform{}, store.Blacklist{})
	rng := rand.New(rand.NewPCG(1, 1))
	batch := shard.NewBatch()
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if err := batch.Add(pl.Play(rng)); err != nil {
			b.Fatal(err)
		}
		if batch.Len() == 5000 {
			if _, err := batch.WriteShard(context.Background(), dir, store.DefaultConfig(gomoku.Freestyle), nil); err != nil {
				b.Fatal(err)
			}
			batch.Reset()
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}
