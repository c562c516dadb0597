package search

import (
	"context"
	"strings"
	"testing"
)

// TestPartialRoot: a search cut short by its node limit plays the move of
// its last finished iteration, unless Config.PartialRoot is on and, in the
// iteration cut short, a later root move beat that one, both searched to
// the end at the new depth: then it plays the later move, with its score,
// at the finished iteration's depth, first in Result.Root. Otherwise the
// two searches are the same, node for node.
func TestPartialRoot(t *testing.T) {
	on, off := DefaultConfig(), DefaultConfig()
	on.PartialRoot, off.PartialRoot = true, false
	fired := 0
	for _, nodes := range []int64{4000, 9000, 20000} {
		for i := range BenchPositions() {
			a, err := New(on).Search(context.Background(), BenchPositions()[i], Limits{Nodes: nodes})
			if err != nil {
				t.Fatal(err)
			}
			b, err := New(off).Search(context.Background(), BenchPositions()[i], Limits{Nodes: nodes})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.Reason, "cut short") {
				t.Fatalf("position %d, %d nodes: off, the reason %q", i+1, nodes, b.Reason)
			}
			if a.Nodes != b.Nodes {
				t.Errorf("position %d, %d nodes: %d nodes searched on, %d off", i+1, nodes, a.Nodes, b.Nodes)
			}
			if !strings.Contains(a.Reason, "cut short") {
				if a.Move != b.Move || a.Score != b.Score || a.Depth != b.Depth {
					t.Errorf("position %d, %d nodes: on %v %+d depth %d (%s), off %v %+d depth %d: want the same",
						i+1, nodes, a.Move, a.Score, a.Depth, a.Reason, b.Move, b.Score, b.Depth)
				}
				continue
			}
			fired++
			mine, first := a.Root[0], a.Root[1] // the move played first, then the iteration's first
			switch {
			case a.Move == b.Move || first.Move != b.Move:
				t.Errorf("position %d, %d nodes: on %v, off %v, the iteration's first move %v: want on to leave off's move, the first",
					i+1, nodes, a.Move, b.Move, first.Move)
			case mine.Move != a.Move || mine.Score != a.Score || first.Score >= a.Score:
				t.Errorf("position %d, %d nodes: %v scored %+d (result %+d), the first move %v %+d: want it to beat the first",
					i+1, nodes, a.Move, mine.Score, a.Score, first.Move, first.Score)
			case a.Score >= mateBound || a.Depth != b.Depth:
				t.Errorf("position %d, %d nodes: score %+d at depth %d (off: depth %d): want no win, the finished depth",
					i+1, nodes, a.Score, a.Depth, b.Depth)
			}
		}
	}
	if fired == 0 {
		t.Fatal("no search took a move from an iteration cut short: the test's positions or limits no longer show it")
	}
	t.Logf("%d of %d searches played a move from the iteration cut short", fired, 3*len(BenchPositions()))
}
