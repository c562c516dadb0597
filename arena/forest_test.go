package arena

import (
	"context"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/policy"
)

// TestForestAgent: the forest agent plays its policy's best move, ranks
// the candidates best first, blends the statistics it is given and refuses
// a rule its model was not fitted for.
func TestForestAgent(t *testing.T) {
	m, _ := shippedModels(t)
	a, err := NewForest(m, ForestConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() != "forest" {
		t.Errorf("name %q", a.Name())
	}
	if err := a.NewGame(gomoku.Standard); err == nil || !strings.Contains(err.Error(), "fitted for freestyle, not standard") {
		t.Errorf("NewGame(standard) with the shipped model: %v", err)
	}
	if err := a.NewGame(gomoku.Freestyle); err != nil {
		t.Fatal(err)
	}
	b := gomoku.New(gomoku.Options{})
	b.Play(gomoku.Center)
	b.Play(gomoku.Pt(8, 8))
	ranked := a.Rank(b)
	p, err := a.Move(context.Background(), b, gomoku.Clock{})
	if err != nil || len(ranked) == 0 || p != ranked[0].Point {
		t.Fatalf("move %v, %v; ranked first %v", p, err, ranked)
	}
	for i := 1; i < len(ranked); i++ {
		if ranked[i].Score > ranked[i-1].Score {
			t.Fatalf("rank %d scores %v after %v", i, ranked[i].Score, ranked[i-1].Score)
		}
	}
	// A move stored as lost in 1000 games drops below every other.
	c := canon.Of(b)
	stats := policy.Stats{{Key: c.Key, Move: c.ToCanon(p)}: {Key: c.Key, Move: c.ToCanon(p), WSum: -1000, Games: 1000}}
	sa, err := NewForest(m, ForestConfig{Name: "with-stats", Stats: stats})
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := sa.Move(context.Background(), b, gomoku.Clock{}); q == p || sa.Name() != "with-stats" {
		t.Errorf("with statistics against %v it still plays %v", p, q)
	}
}
