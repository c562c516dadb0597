package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// addCounts adds games to b so that (key, move) gains exactly wsum and games:
// each game is a single record.
func addCounts(t *testing.T, b *Batch, key string, m Move, wsum, games int) {
	t.Helper()
	for i := range games {
		w := int8(0)
		switch {
		case i < wsum:
			w = 1
		case i < -wsum:
			w = -1
		}
		if err := b.Add(Game{Records: []Record{{key, m, w}}}); err != nil {
			t.Fatal(err)
		}
	}
}

func csvLines(lines ...string) string {
	return ExportHeader + "\n" + strings.Join(lines, "\n") + "\n"
}

func TestPrune(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, tempPath(t, "p.db"))
	b := NewBatch()
	addCounts(t, b, "a", Move{0, 0}, 1, 1)   // position a: 1 game → pruned
	addCounts(t, b, "b", Move{0, 0}, 0, 1)   // position b: 2 games → kept
	addCounts(t, b, "b", Move{-1, 2}, -1, 1) //
	addCounts(t, b, "c", Move{3, 3}, 2, 5)   // position c: 5 games → kept
	if err := b.Add(Game{Records: []Record{{"d", Move{1, 1}, -1}}, Blacklist: []KeyMove{{"d", Move{1, 1}}}, Result: -1}); err != nil {
		t.Fatal(err) // position d: 1 game, blacklisted move → pruned
	}
	if err := d.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	res, err := d.Prune(ctx, DefaultPruneMinGames)
	if err != nil {
		t.Fatal(err)
	}
	if res != (PruneResult{Positions: 2, Moves: 2}) {
		t.Fatalf("prune result %+v", res)
	}
	want := csvLines(
		"b,-1,2,-1,1,0,2",
		"b,0,0,0,1,0,2",
		"c,3,3,2,5,0,5",
	)
	if got := exportString(t, d); got != want {
		t.Fatalf("after prune:\n%s\nwant:\n%s", got, want)
	}
	s, _ := d.Stats(ctx)
	if s.Games != 9 || s.Positions != 2 || s.Moves != 3 {
		t.Fatalf("stats after prune %+v (games stay counted)", s)
	}
	if res, err := d.Prune(ctx, DefaultPruneMinGames); err != nil || res != (PruneResult{}) {
		t.Fatalf("second prune %+v, %v; want nothing", res, err)
	}
	if _, err := d.Prune(ctx, 0); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("prune 0: %v", err)
	}
	if err := d.Vacuum(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestConclude(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t, tempPath(t, "c.db"))
	b := NewBatch()
	// Position k: best mean 0.5.
	addCounts(t, b, "k", Move{0, 0}, 10, 20)  // 0.5: best
	addCounts(t, b, "k", Move{1, 0}, -15, 20) // −0.75 < 0.5−1 and < −0.5: blacklisted
	addCounts(t, b, "k", Move{2, 0}, -10, 20) // −0.5 = 0.5−1 exactly: kept (strict)
	addCounts(t, b, "k", Move{3, 0}, -19, 19) // −1 but 19 games: kept
	addCounts(t, b, "k", Move{4, 0}, -20, 20) // −1: blacklisted
	// Position k2: a single move with enough games has no sibling.
	addCounts(t, b, "k2", Move{0, 0}, -20, 20) // kept
	// Position k3: far below the best but not below MaxMean.
	addCounts(t, b, "k3", Move{0, 0}, 12, 20) // 0.6
	addCounts(t, b, "k3", Move{0, 1}, -9, 20) // −0.45: 1.05 below, but ≥ −0.5: kept
	// Position k4: the best sibling has too few games to count.
	addCounts(t, b, "k4", Move{0, 0}, 5, 5)    // 1.0 but 5 games
	addCounts(t, b, "k4", Move{1, 1}, -16, 20) // −0.8: only 0.9 below the qualifying best: kept
	addCounts(t, b, "k4", Move{2, 2}, 2, 20)   // 0.1: −0.8 is not below 0.1−1 = −0.9: kept
	if err := d.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	before := exportString(t, d)
	n, err := d.Conclude(ctx, DefaultConclude)
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
	want := Blacklist{{"k", Move{1, 0}}: {}, {"k", Move{4, 0}}: {}}
	if len(bl) != len(want) {
		t.Fatalf("blacklist %v, want %v", bl, want)
	}
	for km := range want {
		if !bl.Contains(km.Key, km.Move) {
			t.Fatalf("blacklist %v lacks %v", bl, km)
		}
	}
	// Nothing but the flags changed.
	after := exportString(t, d)
	flip := strings.NewReplacer("k,1,0,-15,20,0,", "k,1,0,-15,20,1,", "k,4,0,-20,20,0,", "k,4,0,-20,20,1,")
	if flip.Replace(before) != after {
		t.Fatalf("conclude changed more than two flags:\n%s\n%s", before, after)
	}
	if n, err := d.Conclude(ctx, DefaultConclude); err != nil || n != 0 {
		t.Fatalf("second conclude: %d, %v; want 0", n, err)
	}
	if _, err := d.Conclude(ctx, ConcludeConfig{MinGames: 0}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("conclude with min games 0: %v", err)
	}
	// Disabling MaxMean also catches k3's move.
	if n, err := d.Conclude(ctx, ConcludeConfig{MinGames: 20, Margin: 1.0, MaxMean: 1}); err != nil || n != 1 {
		t.Fatalf("conclude without MaxMean: %d, %v; want 1 (k3)", n, err)
	}
}
