package openings

import (
	"context"
	"fmt"
	"math/rand/v2"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/search"
)

// Balance bounds the search score (from the side to move's view,
// see package search) of a generated opening.
const Balance = 150

// Generate returns n distinct openings drawn from a PCG source
// seeded by seed: 3 to 5 stones, the first within one cell of the centre,
// each next one within two cells of a stone and four of the centre,
// Black and White alternating. An opening is kept only if no side has a
// three or a four on the board, a 4,000-node search (deterministic) scores
// it within ±Balance for the side to move without finding a forced
// win, and no opening kept before is the same position up to symmetry
// (canonical key). The same seed, n and rule give the same openings.
func Generate(seed uint64, n int, rule gomoku.Rule) ([]Opening, error) {
	if n < 1 {
		return nil, fmt.Errorf("generate openings: n %d: want at least 1", n)
	}
	rng := rand.New(rand.NewPCG(seed, 0x09e4119))
	s := search.New(openingSearch())
	seen := map[string]bool{}
	var out []Opening
	opts := gomoku.Options{Rule: rule}
	for tries := 0; len(out) < n; tries++ {
		if tries > 200*n+1000 {
			return nil, fmt.Errorf("generate openings: only %d balanced openings in %d tries", len(out), tries)
		}
		pos := patterns.NewPosition(opts)
		o := Opening{}
		for k := 3 + rng.IntN(3); len(o.Moves) < k; {
			p := randomStone(rng, pos.Board())
			if pos.Play(p) != nil {
				break
			}
			o.Moves = append(o.Moves, p)
		}
		if !balanced(pos, s) {
			continue
		}
		if key := canon.Of(pos.Board()).Key; !seen[key] {
			seen[key] = true
			out = append(out, o)
		}
	}
	return out, nil
}

// randomStone draws the next opening stone (see Generate).
func randomStone(rng *rand.Rand, b *gomoku.Board) gomoku.Point {
	for {
		var p gomoku.Point
		if b.Stones() == 0 {
			p = gomoku.Pt(gomoku.Size/2-1+rng.IntN(3), gomoku.Size/2-1+rng.IntN(3))
		} else {
			p = gomoku.Point(rng.IntN(gomoku.NumCells))
			near := false
			for _, q := range b.History() {
				near = near || p.Distance(q) <= 2
			}
			if !near || p.Distance(gomoku.Center) > 4 || b.At(p) != gomoku.Empty {
				continue
			}
		}
		return p
	}
}

func balanced(pos *patterns.Position, s *search.Searcher) bool {
	for _, c := range []gomoku.Player{gomoku.Black, gomoku.White} {
		if pos.Count(patterns.MakesFive, c) > 0 || pos.Count(patterns.MakesWin, c) > 0 {
			return false
		}
	}
	s.Clear()
	res, err := s.Search(context.Background(), pos, search.Limits{Nodes: 4000})
	return err == nil && !search.IsMate(res.Score) && res.Score >= -Balance && res.Score <= Balance
}

// openingSearch is the small search that judges a generated opening.
func openingSearch() search.Config {
	c := search.DefaultConfig()
	c.TTBits, c.Width, c.RootWidth = 14, []int{1, 6, 7, 8}, 12
	c.LeafVCF, c.NodeVCF, c.RootVCF, c.RootVCT = 40, 100, 2000, 2000
	c.RFPDepth, c.RazorDepth, c.FHRMargin, c.PartialRoot = 0, 0, 0, false // the openings' judge as before the cuts by the evaluation, the fail-high reduction and the move of an iteration cut short: the same openings from the same seed
	return c
}
