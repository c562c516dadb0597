package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/storetest"
)

// addCounts adds games to b so that (key, move) gains exactly wsum and games:
// each game is a single record.
func addCounts(t *testing.T, b *shard.Batch, key string, m canon.Move, wsum, games int) {
	t.Helper()
	for i := range games {
		w := int8(0)
		switch {
		case i < wsum:
			w = 1
		case i < -wsum:
			w = -1
		}
		if err := b.Add(store.Game{Records: []store.Record{{Key: key, Move: m, Weight: w}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// mergeBatch publishes b as a shard and merges it into d.
func mergeBatch(t *testing.T, d *DB, b *shard.Batch) store.MergeResult {
	t.Helper()
	p, err := b.WriteShard(context.Background(), t.TempDir(), d.Config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Merge(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// exportSet is an export's rows as a set of lines (the order is by id).
func exportSet(t *testing.T, d *DB) map[string]bool {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(exportString(t, d)), "\n")
	if lines[0] != store.ExportHeader {
		t.Fatalf("export header %q", lines[0])
	}
	m := map[string]bool{}
	for _, l := range lines[1:] {
		m[l] = true
	}
	return m
}

func wantRows(t *testing.T, d *DB, lines ...string) {
	t.Helper()
	got := exportSet(t, d)
	if len(got) != len(lines) {
		t.Fatalf("export has %d rows %v, want %v", len(got), got, lines)
	}
	for _, l := range lines {
		if !got[l] {
			t.Fatalf("export lacks %q: %v", l, got)
		}
	}
}

// TestPruneAge: a position reaching the threshold is promoted as it is
// merged; a young run expires Age games after its merge, and then its
// positions still below the threshold are dropped while the rows of
// positions promoted since move into the moves table; a dropped position's
// blacklisted move is kept.
func TestPruneAge(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, tempPath(t, "p.db"))
	cfg := store.PruneConfig{MinGames: 2, Age: 10}
	b := shard.NewBatch()
	addCounts(t, b, "a", canon.Move{}, 1, 1)           // 1 game: young
	addCounts(t, b, "b", canon.Move{}, 0, 1)           // gets a second game later
	addCounts(t, b, "c", canon.Move{X: 3, Y: 3}, 2, 5) // 5 games: promoted at once
	if err := b.Add(store.Game{Records: []store.Record{{Key: "d", Move: canon.Move{X: 1, Y: 1}, Weight: -1}}, Blacklist: []store.KeyMove{{Key: "d", Move: canon.Move{X: 1, Y: 1}}}, Result: -1}); err != nil {
		t.Fatal(err) // 1 game, blacklisted move
	}
	if res := mergeBatch(t, d, b); res.Promoted != 1 || res.Positions != 4 {
		t.Fatalf("first merge %+v", res)
	}
	res, err := d.Prune(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res != (store.PruneResult{YoungRuns: 1, Young: 3, Mature: 1}) {
		t.Fatalf("first prune %+v", res)
	}
	b.Reset()
	addCounts(t, b, "b", canon.Move{X: -1, Y: 2}, -1, 1) // b reaches 2 games
	addCounts(t, b, "e", canon.Move{}, 0, 9)             // 9 more games: the first run is now 10 games old
	if res := mergeBatch(t, d, b); res.Promoted != 2 {
		t.Fatalf("second merge %+v", res)
	}
	wantRows(t, d, "a,0,0,1,1,0,1", "b,-1,2,-1,1,0,2", "b,0,0,0,1,0,2", "c,3,3,2,5,0,5", "d,1,1,-1,1,1,1", "e,0,0,0,9,0,9")
	if res, err = d.Prune(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if res != (store.PruneResult{Runs: 1, Positions: 2, Moves: 2, Blacklisted: 1, Updated: 2, YoungRuns: 1, Mature: 3}) {
		t.Fatalf("second prune %+v", res)
	}
	wantRows(t, d, "b,-1,2,-1,1,0,2", "b,0,0,0,1,0,2", "c,3,3,2,5,0,5", "e,0,0,0,9,0,9")
	s, _ := d.Stats(ctx)
	if s.Games != 18 || s.Positions != 3 || s.Moves != 4 || s.Young != 0 || s.Blacklisted != 1 || s.PrunedBlack != 1 {
		t.Fatalf("stats after prune %+v (games stay counted, d's blacklisted move stays)", s)
	}
	bl, err := d.Blacklist(ctx)
	if err != nil || bl.Len() != 1 || !bl.Contains("d", canon.Move{X: 1, Y: 1}) {
		t.Fatalf("blacklist after pruning its position: %v, %v", bl, err)
	}
	if res, err := d.Prune(ctx, cfg); err != nil || res != (store.PruneResult{YoungRuns: 1, Mature: 3}) {
		t.Fatalf("third prune %+v, %v; want nothing", res, err)
	}
	if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 0}); !errors.Is(err, store.ErrInvalidConfig) {
		t.Fatalf("prune 0: %v", err)
	}
	if err := d.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestPruneWindows: acceptance point 4 of issue 9. Shards merged one at a
// time and pruned after each keep exactly what one prune at the end keeps
// for every position whose games all lie within the last Age games; and
// with an age covering the whole run, both keep everything, exactly.
func TestPruneWindows(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const shards, per = 8, 150
	var paths []string
	var all [][]store.Game
	for i := range shards {
		g := storetest.RandomGames(uint64(40+i), per)
		all = append(all, g)
		paths = append(paths, storetest.MustShard(t, dir, storetest.Config, g))
	}
	for _, age := range []int64{3 * per, shards * per} {
		t.Run(fmt.Sprintf("age=%d", age), func(t *testing.T) {
			cfg := store.PruneConfig{MinGames: 2, Age: age}
			windowed := mustOpen(t, filepath.Join(t.TempDir(), "w.db"))
			once := mustOpen(t, filepath.Join(t.TempDir(), "o.db"))
			for _, p := range paths {
				for _, d := range []*DB{windowed, once} {
					if _, err := d.Merge(ctx, p); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := windowed.Prune(ctx, cfg); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := once.Prune(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			// Positions whose every game lies in the last age games.
			first := map[string]int{}
			for i, gs := range all {
				for _, g := range gs {
					for _, r := range g.Records {
						if _, ok := first[r.Key]; !ok {
							first[r.Key] = i
						}
					}
				}
			}
			recent := func(line string) bool {
				key, _, _ := strings.Cut(line, ",")
				return int64(shards-first[key])*per <= age
			}
			w, o := exportSet(t, windowed), exportSet(t, once)
			compared := 0
			for l := range o {
				if recent(l) {
					compared++
					if !w[l] {
						t.Fatalf("pruned once keeps %q, pruned in windows does not", l)
					}
				}
			}
			for l := range w {
				if recent(l) && !o[l] {
					t.Fatalf("pruned in windows keeps %q, pruned once does not", l)
				}
			}
			if compared == 0 {
				t.Fatal("no recent rows compared")
			}
			if age == shards*per {
				ref := storetest.NewReference()
				for _, g := range all {
					ref.Add(g)
				}
				ref.Check(t, windowed)
				ref.Check(t, once)
			}
		})
	}
}

func TestConclude(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, tempPath(t, "c.db"))
	b := shard.NewBatch()
	mv := func(x int8) canon.Move { return canon.Move{X: x} }
	// Position k: best mean 0.5.
	addCounts(t, b, "k", mv(0), 10, 20)  // 0.5: best
	addCounts(t, b, "k", mv(1), -15, 20) // −0.75 < 0.5−1 and < −0.5: blacklisted
	addCounts(t, b, "k", mv(2), -10, 20) // −0.5 = 0.5−1 exactly: kept (strict)
	addCounts(t, b, "k", mv(3), -19, 19) // −1 but 19 games: kept
	addCounts(t, b, "k", mv(4), -20, 20) // −1: blacklisted
	// Position k2: a single move with enough games has no sibling.
	addCounts(t, b, "k2", mv(0), -20, 20) // kept
	// Position k3: far below the best but not below MaxMean.
	addCounts(t, b, "k3", mv(0), 12, 20)                  // 0.6
	addCounts(t, b, "k3", canon.Move{X: 0, Y: 1}, -9, 20) // −0.45: 1.05 below, but ≥ −0.5: kept
	// Position k4: the best sibling has too few games to count.
	addCounts(t, b, "k4", mv(0), 5, 5)                     // 1.0 but 5 games
	addCounts(t, b, "k4", canon.Move{X: 1, Y: 1}, -16, 20) // −0.8: only 0.9 below the qualifying best: kept
	addCounts(t, b, "k4", canon.Move{X: 2, Y: 2}, 2, 20)   // 0.1: −0.8 is not below 0.1−1 = −0.9: kept
	mergeBatch(t, d, b)                                    // every position has 2 games or more: promoted
	before := exportString(t, d)
	n, err := d.Conclude(ctx, store.DefaultConclude())
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("concluded %d moves, want 2", n)
	}
	bl, err := d.Blacklist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if bl.Len() != 2 || !bl.Contains("k", mv(1)) || !bl.Contains("k", mv(4)) {
		t.Fatalf("blacklist %v", bl)
	}
	// Nothing but the flags changed.
	after := exportString(t, d)
	flip := strings.NewReplacer("k,1,0,-15,20,0,", "k,1,0,-15,20,1,", "k,4,0,-20,20,0,", "k,4,0,-20,20,1,")
	if flip.Replace(before) != after {
		t.Fatalf("conclude changed more than two flags:\n%s\n%s", before, after)
	}
	if n, err := d.Conclude(ctx, store.DefaultConclude()); err != nil || n != 0 {
		t.Fatalf("second conclude: %d, %v; want 0", n, err)
	}
	if _, err := d.Conclude(ctx, store.ConcludeConfig{MinGames: 0}); !errors.Is(err, store.ErrInvalidConfig) {
		t.Fatalf("conclude with min games 0: %v", err)
	}
	// Disabling MaxMean also catches k3's move.
	if n, err := d.Conclude(ctx, store.ConcludeConfig{MinGames: 20, Margin: 1.0, MaxMean: 1}); err != nil || n != 1 {
		t.Fatalf("conclude without MaxMean: %d, %v; want 1 (k3)", n, err)
	}
}
