package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/store"
	"ocvist/store/shard"
)

// RandomGame plays a random game on a 15x15 board: the first stone in the
// centre, then random empty cells within distance 2 of a stone, so early
// positions repeat across games. Keys are the sorted stone tokens (not
// canonical, which does not matter here).
func RandomGame(rng *rand.Rand) store.Game {
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

// RandomGames are n random games of the seed.
func RandomGames(seed uint64, n int) []store.Game {
	rng := rand.New(rand.NewPCG(seed, 7))
	games := make([]store.Game, n)
	for i := range games {
		games[i] = RandomGame(rng)
	}
	return games
}

// MustBatch batches the games.
func MustBatch(t testing.TB, games []store.Game) *shard.Batch {
	t.Helper()
	b := shard.NewBatch()
	for _, g := range games {
		if err := b.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// MustShard writes the games into a new sealed shard in dir.
func MustShard(t testing.TB, dir string, cfg store.Config, games []store.Game) string {
	t.Helper()
	p, err := MustBatch(t, games).WriteShard(context.Background(), dir, cfg, map[string]string{"seed": "1"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
