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
type hashPrior struct {
	scored int
	salt   uint64 // another salt, another prior
}

func (p *hashPrior) Scores(pos *patterns.Position, moves []gomoku.Point, out []float64) {
	h := pos.Board().Hash() ^ p.salt
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

// TestPriorCacheForgets: a new prior (SetPrior) and Clear each empty the
// remembered scores, and a searcher that searched with one prior and then
// another finds what a fresh searcher with the second finds.
func TestPriorCacheForgets(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PriorDepth = 2
	kept := func(s *Searcher) (n int) {
		for _, k := range s.priorMem.keys {
			if k != 0 {
				n++
			}
		}
		return n
	}
	checked := 0
	for i, pos := range randomPositions(47, 8, 8, 30) {
		fresh := New(cfg)
		fresh.SetPrior(func() Prior { return &hashPrior{salt: 2} })
		want, err := fresh.Search(context.Background(), pos, Limits{Depth: 6})
		if err != nil {
			t.Fatal(err)
		}
		s := New(cfg)
		s.SetPrior(func() Prior { return &hashPrior{salt: 1} })
		if _, err := s.Search(context.Background(), pos, Limits{Depth: 6}); err != nil {
			t.Fatal(err)
		}
		if kept(s) == 0 {
			continue // decided by the root's rules or threat searches: no prior asked
		}
		checked++
		s.SetPrior(func() Prior { return &hashPrior{salt: 2} })
		if n := kept(s); n != 0 {
			t.Errorf("position %d: %d scores of the old prior kept after SetPrior", i, n)
		}
		s.Clear() // the table and history as a fresh searcher's
		got, err := s.Search(context.Background(), pos, Limits{Depth: 6})
		if err != nil {
			t.Fatal(err)
		}
		if got.Move != want.Move || got.Score != want.Score || got.Nodes != want.Nodes {
			t.Errorf("position %d: after another prior %v %d (%d nodes); a fresh searcher %v %d (%d nodes)",
				i, got.Move, got.Score, got.Nodes, want.Move, want.Score, want.Nodes)
		}
		if s.Clear(); kept(s) != 0 {
			t.Errorf("position %d: %d scores kept after Clear", i, kept(s))
		}
	}
	if checked < 4 {
		t.Errorf("only %d of 8 positions asked the prior", checked)
	}
}
