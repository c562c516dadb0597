package search

import (
	"testing"
	"time"
)

// BenchmarkSearch: one op is a 200,000-node search from a fresh table on
// one of 8 middle-game positions (20 to 40 stones). Reports nodes/s
// (target ≥ 1,000,000 per core), positions/s (Result.Positions: every
// position searched, as Rapfi counts its nodes) and the transposition
// table's hit rate.
// Clearing the 12 MiB table, once a game in play, is not timed.
func BenchmarkSearch(b *testing.B) {
	ps := randomPositions(7, 8, 20, 40)
	s := New(DefaultConfig())
	var nodes, positions int64
	var hits float64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s.Clear()
		b.StartTimer()
		res, err := s.Search(ps[i%len(ps)], Limits{Nodes: 200000})
		if err != nil {
			b.Fatal(err)
		}
		nodes += res.Nodes
		positions += res.Positions
		hits += res.TTHits
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(hits/float64(b.N), "tt-hit")
}

// BenchmarkSearchTimed: a 100 ms search (what the arena gives a move),
// for the depth reached.
func BenchmarkSearchTimed(b *testing.B) {
	ps := randomPositions(7, 8, 20, 40)
	s := New(DefaultConfig())
	depth := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := s.Search(ps[i%len(ps)], Limits{Deadline: time.Now().Add(100 * time.Millisecond)})
		if err != nil {
			b.Fatal(err)
		}
		depth += res.Depth
	}
	b.ReportMetric(float64(depth)/float64(b.N), "depth")
}
