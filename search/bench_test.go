package search

import (
	"context"
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
		res, err := s.Search(context.Background(), ps[i%len(ps)], Limits{Nodes: 200000})
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
		res, err := s.Search(context.Background(), ps[i%len(ps)], Limits{Deadline: time.Now().Add(100 * time.Millisecond)})
		if err != nil {
			b.Fatal(err)
		}
		depth += res.Depth
	}
	b.ReportMetric(float64(depth)/float64(b.N), "depth")
}

// benchSignature is the bench signature: Bench's node total with
// DefaultConfig at BenchDepth. A change of the search's behaviour changes
// it; the commit that changes it says so (and why), and updates it here.
const benchSignature = 1463930

// TestBenchSignature pins the search's behaviour: the bench positions
// searched to BenchDepth, one thread, node counts totalled. Run it with
// -v to print the signature (or "go run ./cmd/play bench").
func TestBenchSignature(t *testing.T) {
	r, err := Bench(DefaultConfig(), BenchDepth)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bench: %d nodes (%d positions searched) in %v", r.Nodes, r.Positions, r.Elapsed.Round(time.Millisecond))
	if r.Nodes != benchSignature {
		t.Errorf("bench signature %d, want %d: the search's behaviour changed (if on purpose, say so in the commit and update benchSignature)", r.Nodes, benchSignature)
	}
}

// TestOptions: every knob of Options reads back what Set wrote, and its
// default is in its range.
func TestOptions(t *testing.T) {
	def := DefaultConfig()
	for _, o := range Options() {
		v := def.Get(o.Name)
		c := DefaultConfig()
		if err := c.Set(o.Name, v); err != nil {
			t.Errorf("%s: the default %s: %v", o.Name, v, err)
		}
		if got := c.Get(o.Name); got != v {
			t.Errorf("%s: set %s, read %s", o.Name, v, got)
		}
	}
	c := DefaultConfig()
	if err := c.Set("nodevcf", "0"); err != nil || c.NodeVCF != 0 {
		t.Errorf("nodevcf=0: %v, NodeVCF %d", err, c.NodeVCF)
	}
	if err := c.Set("lmr", "0"); err != nil || !c.NoLMR {
		t.Errorf("lmr=0: %v, NoLMR %v", err, c.NoLMR)
	}
	if c.Set("rootwidth", "0") == nil || c.Set("nosuch", "1") == nil {
		t.Error("an out-of-range value or an unknown name was accepted")
	}
}
