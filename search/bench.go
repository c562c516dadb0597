package search

import (
	"context"
	"fmt"
	"strings"
	"time"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// BenchDepth is the depth of the bench signature's searches.
const BenchDepth = 6

// benchGames are the bench positions, each a rule and its moves from
// the first (h8-style). Thirteen undecided middle-game positions of
// freestyle and two of standard, and one each that a VCF, a VCT and the
// alpha-beta win, and one the alpha-beta finds lost (its search then
// deepens in full windows): together they take every path of the search.
// They were drawn from seeded play among the filter's candidates; the
// list is fixed here so that only the search can change the signature.
var benchGames = []struct {
	rule  gomoku.Rule
	moves string
}{
	{gomoku.Freestyle, "h8 g9 i6 k4 j7 h7 i2 i8 l4 h1 i5 h3 g5 h5 i4 i3"},
	{gomoku.Freestyle, "h8 j6 j9 i4 j8 k6 i6 g4 m6 k8 h4 n5 l10 j7"},
	{gomoku.Freestyle, "h8 h6 i4 k4 i9 l6 k3 k7 h11 g3 h3 f1 j10 g7 k9 h9 l5 l1 n3 k6 e5 h10 i7 d2"},
	{gomoku.Freestyle, "h8 i6 k7 g7 f6 k8 k10 d8 l10 b9 b6 h9 g11 n10 d10 c11"},
	{gomoku.Freestyle, "h8 f8 g10 f7 i9 g7 e9 c9 g8 k10 i6 k6 k8 m12 i8 j8 i11 i10 j11 h6 i7 i5 j4 i3 m7 c7 h4 o11 c6 m11 o9 l6 n14 d11 d4 b6 a7 h1 g3 c2 m15 g13 m13 k11"},
	{gomoku.Freestyle, "h8 g9 f10 i7 i5 e10 j9 f11 f6 h7 d9 c12 i4 j8 a14 b9"},
	{gomoku.Freestyle, "h8 i10 g10 h9 e9 c8 d9 g6 f10 f12 i9 i6 d12 d10 b9 a9 f8 f9 g8 e8 a11 g9 g7 j10 b13 c12 e10 k8 l8 e5 c3 l9"},
	{gomoku.Freestyle, "h8 j8 g10 f8 e7 g8 l9 l7 k11 e9 e8 h9 c8 f10 f9 d7 h12 b5 b6 a9 c10"},
	{gomoku.Freestyle, "h8 f9 g11 i7 i10 f13 h15 k8 l10 i5 l6 f10 n12 m14 k10 f12 f11 j10"},
	{gomoku.Freestyle, "h8 g7 f9 e11 d10 d7 d9 c8 b8 f8 b5 d5 e7 d6 f5 a4 d4 e3 i10 h9 c13 h7 a9"},
	{gomoku.Freestyle, "h8 j7 g8 g7 f8 e8 g5 g3 g1 c7 g2 i5 l9 f3 l7 h1 b6 n9 f2 i2"},
	{gomoku.Freestyle, "h8 f6 e8 e9 h9 g9 c9 b7 g6 g10 j10"},
	{gomoku.Freestyle, "h8 f7 h7 i10 g6 k9 l9 h5 m11 i8 j3 k4 n13 g11 i13 i6 n12 o13"},
	{gomoku.Standard, "h8 i6 i8 f6 g9 d5 j10 k12 d8 e3 m12 k14 h5 k10 b3 m8 l14"},
	{gomoku.Standard, "h8 i10 f10 f11 e11 g9 g7 h13 i11 j9 g12 d13 j15 k11 j7 d10"},
	{gomoku.Freestyle, "h8 f7 d6 d5 c6 g8 h9 j11 f8 j7 g5 i9 l5 g11 g3 a5 d7 k5 h1 e3 i5 h6 c5 e7 d8 g6 e5 j3 f12 c7 d13 l4 j6 k7"},
	{gomoku.Freestyle, "h8 j10 i7 g5 f10 e11 k11 h4 j5 h12 e5 d6 f2 j13 d13 b14 i10 l14 c12 b7 i2 i8 g11 e10 h6 e2 m9 c3 g4 b4 e7 a9 l15 n8 d9 h7"},
	{gomoku.Freestyle, "h8 h7 g8 i5 j6 g7 g10 g6 k3 e10 f7 f4 e2 l3 j4 l4 i9"},
	{gomoku.Freestyle, "h8 f6 h10 h7 j10 j7 l8 l11 l5 f12 j6 h11 k11 n4 e7"},
	{gomoku.Standard, "h8 j7 h6 g10 f11 h5 j4 k3 k9 d13 f3 g11 e9 f4 i7 l10"},
}

// BenchPositions returns the bench signature's positions, fresh copies.
func BenchPositions() []*patterns.Position {
	out := make([]*patterns.Position, len(benchGames))
	for i, g := range benchGames {
		b := gomoku.New(gomoku.Options{Rule: g.rule})
		for _, m := range strings.Fields(g.moves) {
			p, err := gomoku.ParsePoint(m)
			if err == nil {
				err = b.Play(p)
			}
			if err != nil {
				panic(fmt.Sprintf("search: bench position %d: %s: %v", i+1, m, err)) // the list above is wrong
			}
		}
		out[i] = patterns.FromBoard(b)
	}
	return out
}

// BenchResult is what Bench searched.
type BenchResult struct {
	Nodes     int64 // the total of Result.Nodes: the signature
	Positions int64 // the total of Result.Positions
	Elapsed   time.Duration
}

// Bench searches every bench position to depth with one Searcher of cfg,
// its tables cleared before each (as a fresh Searcher's), every other
// position with Limits.RootExact (the learning loop's teacher's search),
// and totals the results. With DefaultConfig and BenchDepth the node total
// is the bench signature that TestBenchSignature pins: a change of the
// search's behaviour changes it, and the commit that changes it says so.
func Bench(cfg Config, depth int) (BenchResult, error) {
	s := New(cfg)
	var r BenchResult
	start := time.Now()
	for i, pos := range BenchPositions() {
		s.Clear()
		res, err := s.Search(context.Background(), pos, Limits{Depth: depth, RootExact: i%2 == 1})
		if err != nil {
			return r, fmt.Errorf("bench position %d: %w", i+1, err)
		}
		r.Nodes += res.Nodes
		r.Positions += res.Positions
	}
	r.Elapsed = time.Since(start)
	return r, nil
}
