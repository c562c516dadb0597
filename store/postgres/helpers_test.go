package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/sqlite"
)

var testCfg = store.Config{Rule: gomoku.Freestyle, KeyVersion: 1, BoardSize: 15}

// randomGame plays a random game on a 15x15 board: the first stone in the
// centre, then random empty cells within distance 2 of a stone, so early
// positions repeat across games. Keys are the sorted stone tokens (not
// canonical, which does not matter here).
func randomGame(rng *rand.Rand) store.Game {
	type pt struct{ x, y int }
	stones := map[pt]byte{}
	var tokens []string
	var g store.Game
	n := 3 + rng.IntN(28)
	g.Result = int8(rng.IntN(3) - 1)
	for ply := 0; ply < n; ply++ {
		p := pt{7, 7}
		if ply > 0 {
			for {
				var keys []pt
				for q := range stones {
					keys = append(keys, q)
				}
				slices.SortFunc(keys, func(a, b pt) int { return (a.x*15 + a.y) - (b.x*15 + b.y) })
				q := keys[rng.IntN(len(keys))]
				p = pt{q.x + rng.IntN(5) - 2, q.y + rng.IntN(5) - 2}
				if _, taken := stones[p]; !taken && p.x >= 0 && p.x < 15 && p.y >= 0 && p.y < 15 {
					break
				}
			}
		}
		side, w := byte('x'), g.Result
		if ply%2 == 1 {
			side, w = 'o', -g.Result
		}
		key := strings.Join(tokens, "")
		g.Records = append(g.Records, store.Record{Key: key, Move: canon.Move{X: int8(p.x - 7), Y: int8(p.y - 7)}, Weight: w})
		stones[p] = side
		tokens = append(tokens, fmt.Sprintf("%02d%02d%c", p.x, p.y, side))
		slices.Sort(tokens)
	}
	if g.Result != 0 {
		// The loser's last move: the last record with weight −1.
		for i := len(g.Records) - 1; i >= 0; i-- {
			if g.Records[i].Weight == -1 {
				g.Blacklist = []store.KeyMove{{Key: g.Records[i].Key, Move: g.Records[i].Move}}
				break
			}
		}
	}
	return g
}

func randomGames(seed uint64, n int) []store.Game {
	rng := rand.New(rand.NewPCG(seed, 7))
	games := make([]store.Game, n)
	for i := range games {
		games[i] = randomGame(rng)
	}
	return games
}

func mustBatch(t testing.TB, games []store.Game) *shard.Batch {
	t.Helper()
	b := shard.NewBatch()
	for _, g := range games {
		if err := b.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// mustOpen opens a SQLite database of testCfg at path, closed when the test ends.
func mustOpen(t testing.TB, path string) *sqlite.DB {
	t.Helper()
	d, err := sqlite.Open(path, testCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// mergeTeacher writes games as a teacher shard in a temporary directory
// and merges it into d, which must add them all.
func mergeTeacher(t testing.TB, d store.Store, games []store.TeacherGame) store.MergeResult {
	t.Helper()
	path, err := shard.WriteTeacherShard(context.Background(), t.TempDir(), d.Config(), games, map[string]string{"test": "1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Merge(context.Background(), path)
	if err != nil || res.AlreadyMerged || res.TeacherGames+res.Duplicates != int64(len(games)) || res.Games != 0 {
		t.Fatalf("merge teacher shard: %+v, %v", res, err)
	}
	return res
}

// teacherGames are n games of each of generations 1..gens, with plies
// (root scores, some exact) on the odd games.
func teacherGames(gens, n int) []store.TeacherGame {
	var out []store.TeacherGame
	for gen := 1; gen <= gens; gen++ {
		for i := range n {
			g := store.TeacherGame{Gen: gen, Game: i, Book: 1, Winner: gomoku.Player(i % 3),
				Moves: []gomoku.Point{gomoku.Center, gomoku.Point(gen), gomoku.Point(100 + i)}}
			g.Teacher = []gomoku.Point{gomoku.Point(gen), gomoku.Point(200 + i)}
			if i%2 == 1 {
				g.Plies = []store.TeacherPly{
					{Score: -30000, Depth: 0},
					{Score: int16(37 * i), Depth: 9, Exact: true, Root: []store.RootScore{{Move: 200, Score: 12}, {Move: 7, Score: -5}, {Move: 224, Score: -29999}}},
				}
			}
			out = append(out, g)
		}
	}
	return out
}

func readTeacher(t testing.TB, d store.Store, from, to int) []store.TeacherGame {
	t.Helper()
	var got []store.TeacherGame
	if err := d.TeacherGames(context.Background(), from, to, func(g store.TeacherGame) error { got = append(got, g); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// testClaims: acceptance of the claims on either backend, with join
// making a member and gone making one disappear (its process dies, or it
// leaves): a generation's plan is the first one recorded; members claim
// its blocks in order, each once while its member lives, the last block
// short; none is left while the live members hold them; a gone member's
// incomplete block goes to the next claim with only its missing games,
// and its complete ones to nobody; one member leads at a time.
func testClaims(t *testing.T, d store.Store, join func() store.LoopMember, gone func(store.LoopMember)) {
	ctx := context.Background()
	if _, _, err := join().Claim(ctx, 1); !errors.Is(err, store.ErrNoPlan) {
		t.Fatalf("claim without a plan: %v, want ErrNoPlan", err)
	}
	plan := store.TeacherPlan{Gen: 1, Games: 10, Block: 4, Recipe: `{"seed":1}`}
	for _, p := range []store.TeacherPlan{plan, {Gen: 1, Games: 12, Block: 2, Recipe: "other"}} {
		if got, err := d.PlanTeacher(ctx, p); err != nil || got != plan {
			t.Fatalf("plan %+v: %+v, %v; want %+v", p, got, err, plan)
		}
	}
	if _, err := d.PlanTeacher(ctx, store.TeacherPlan{Gen: 2, Games: 0, Block: 1}); !errors.Is(err, store.ErrInvalidConfig) {
		t.Errorf("a plan of no games: %v", err)
	}
	a, b := join(), join()
	c0, ok, err := a.Claim(ctx, 1)
	if err != nil || !ok || !reflect.DeepEqual(c0, store.Claim{Gen: 1, Block: 0, Games: []int{0, 1, 2, 3}}) {
		t.Fatalf("first claim: %+v %v %v", c0, ok, err)
	}
	storeGames(t, d, 1, 4, 6) // part of block 1, before it is claimed
	if got := claimAll(t, b, 1); !reflect.DeepEqual(got, []store.Claim{{Gen: 1, Block: 1, Games: []int{5, 7}}, {Gen: 1, Block: 2, Games: []int{8, 9}}}) {
		t.Fatalf("b's claims: %+v", got)
	}
	if got := claimAll(t, a, 1); len(got) != 0 {
		t.Fatalf("a claimed %+v of live b's blocks", got)
	}
	storeGames(t, d, 1, 0, 1, 2, 3, 5, 7)
	gone(a) // its block complete
	gone(b) // block 1 complete, block 2 not
	c := join()
	if got := claimAll(t, c, 1); !reflect.DeepEqual(got, []store.Claim{{Gen: 1, Block: 2, Games: []int{8, 9}}}) {
		t.Fatalf("after a and b are gone: %+v", got)
	}
	storeGames(t, d, 1, 8)
	gone(c)
	e := join()
	if got := claimAll(t, e, 1); !reflect.DeepEqual(got, []store.Claim{{Gen: 1, Block: 2, Games: []int{9}}}) {
		t.Fatalf("after c is gone: %+v", got)
	}
	if n, err := d.TeacherStored(ctx, 1); err != nil || n != 9 {
		t.Errorf("stored %d, %v; want 9", n, err)
	}
	f := join()
	for _, step := range []struct {
		m    store.LoopMember
		lead bool
	}{{e, true}, {e, true}, {f, false}} {
		if ok, err := step.m.Lead(ctx); err != nil || ok != step.lead {
			t.Fatalf("lead: %v, %v; want %v", ok, err, step.lead)
		}
	}
	if err := e.Unlead(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := f.Lead(ctx); err != nil || !ok {
		t.Fatalf("f leads after e gave it up: %v, %v", ok, err)
	}
	gone(f)
	if ok, err := e.Lead(ctx); err != nil || !ok {
		t.Fatalf("e leads after f is gone: %v, %v", ok, err)
	}
	e.Leave()
}

// claimAll claims blocks of gen for m until none is left, returning them.
func claimAll(t testing.TB, m store.LoopMember, gen int) []store.Claim {
	t.Helper()
	var out []store.Claim
	for {
		c, ok, err := m.Claim(context.Background(), gen)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, c)
	}
}

// storeGames merges games g of generation gen (lo..hi-1) into d.
func storeGames(t testing.TB, d store.Store, gen int, games ...int) {
	t.Helper()
	var tg []store.TeacherGame
	for _, i := range games {
		g := teacherGames(1, 1)[0]
		g.Gen, g.Game = gen, i
		tg = append(tg, g)
	}
	mergeTeacher(t, d, tg)
}
