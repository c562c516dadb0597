package search

import (
	"context"
	"testing"
)

// TestLostRootHoldsOut: when every move loses, the search does not answer
// at the first iteration that sees it. Bounded by depth, it finishes every
// iteration to the last (each lost one in full windows, so the root moves'
// scores are exact) and plays the move that holds out longest, and of
// those one that makes a four, else a three, if any does; bounded by
// nodes, it spends them all (or reaches the deepest iteration).
func TestLostRootHoldsOut(t *testing.T) {
	const depth, nodes = 5, 20_000
	cfg := DefaultConfig()
	cfg.TTBits = 14 // a small table, cleared before every search
	s := New(cfg)
	lost, withTies := 0, 0
	for i, pos := range randomPositions(17, 600, 10, 40) {
		s.Clear()
		if res, _ := s.Search(context.Background(), pos, Limits{Nodes: 3000}); MatePlies(res.Score) >= 0 || res.Depth == 0 || len(res.Root) == 1 {
			continue // not seen lost by a small search (a cheap sieve), lost by rule (two five-points to stop), or one move
		}
		s.Clear()
		res, err := s.Search(context.Background(), pos, Limits{Depth: depth})
		if err != nil {
			t.Fatal(err)
		}
		if MatePlies(res.Score) >= 0 {
			continue // the loss lies deeper than depth
		}
		lost++
		if res.Depth != depth {
			t.Errorf("position %d: lost in %d, answered at depth %d of %d", i, -MatePlies(res.Score), res.Depth, depth)
		}
		if res.Root[0].Move != res.Move || res.Root[0].Score != res.Score {
			t.Fatalf("position %d: played %v (%d), root %v", i, res.Move, res.Score, res.Root)
		}
		s.pos = pos
		ties := 0
		for _, r := range res.Root {
			switch {
			case r.Score > res.Score:
				t.Errorf("position %d: %v holds out longer (%d) than the move played, %v (%d)", i, r.Move, r.Score, res.Move, res.Score)
			case r.Score == res.Score && r.Move != res.Move:
				ties++
				if s.threatRank(r.Move) > s.threatRank(res.Move) {
					t.Errorf("position %d: %v holds out as long as %v and makes a stronger threat", i, r.Move, res.Move)
				}
			}
		}
		if ties > 0 {
			withTies++
		}
		s.Clear()
		if res, err = s.Search(context.Background(), pos, Limits{Nodes: nodes}); err != nil {
			t.Fatal(err)
		}
		if MatePlies(res.Score) < 0 && res.Nodes < nodes && res.Depth < MaxDepth {
			t.Errorf("position %d: lost in %d, answered at depth %d after %d of %d nodes", i, -MatePlies(res.Score), res.Depth, res.Nodes, nodes)
		}
	}
	t.Logf("%d lost roots, %d with moves that hold out equally long", lost, withTies)
	if lost < 10 || withTies < 3 {
		t.Errorf("a weak check: %d lost roots, %d with ties", lost, withTies)
	}
}
