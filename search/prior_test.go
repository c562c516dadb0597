package search

import (
	"context"
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// hashPrior scores a move by a hash of the position's stones and the
// move (a function of the two alone, as a Prior must be) and counts the
// moves it scored.
type hashPrior struct{ scored int }

func (p *hashPrior) Scores(pos *patterns.Position, moves []gomoku.Point, out []float64) {
	h := pos.Board().Hash()
	for i, q := range moves {
		x := (h ^ uint64(q)*0x9e3779b97f4a7c15) * 0xff51afd7ed558ccd
		out[i] = float64(x>>11) / (1 << 53)
		p.scored++
	}
}

// TestPriorCache: the search remembers the prior's scores (priorCache)
// without changing what it finds: the same move, score, line and node
// count as a search that asks the prior every time, for fewer scored
// moves.
func TestPriorCache(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PriorDepth = 2
	var withCache, without int
	for i, pos := range randomPositions(41, 12, 8, 30) {
		var res [2]Result
		for k := range res {
			s := New(cfg)
			pr := &hashPrior{}
			s.SetPrior(func() Prior { return pr })
			s.priorMem.off = k == 1
			r, err := s.Search(context.Background(), pos, Limits{Depth: 7})
			if err != nil {
				t.Fatal(err)
			}
			res[k] = r
			if k == 0 {
				withCache += pr.scored
			} else {
				without += pr.scored
			}
		}
		a, b := res[0], res[1]
		if a.Move != b.Move || a.Score != b.Score || a.Nodes != b.Nodes || a.Depth != b.Depth || len(a.PV) != len(b.PV) {
			t.Errorf("position %d: with the cache %v %d (%d nodes, depth %d, PV %v), without %v %d (%d nodes, depth %d, PV %v)",
				i, a.Move, a.Score, a.Nodes, a.Depth, a.PV, b.Move, b.Score, b.Nodes, b.Depth, b.PV)
		}
	}
	// Deterministic (seeded positions, depth-bounded searches): 56,780
	// against 80,602 when written.
	if withCache == 0 || withCache*10 > without*8 {
		t.Errorf("the prior scored %d moves with the cache, %d without; want under 80%%", withCache, without)
	}
	t.Logf("moves scored by the prior: %d with the cache, %d without", withCache, without)
}
