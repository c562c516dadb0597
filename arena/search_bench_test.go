package arena

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/openings"
	"ocvist/policy"
	"ocvist/search"
)

// middleGames plays n generated openings on for plies moves of a
// 2,000-node search: middle-game boards for the benchmarks below.
func middleGames(tb testing.TB, n, plies int) []*gomoku.Board {
	ops, err := openings.Generate(3, n, gomoku.Freestyle)
	if err != nil {
		tb.Fatal(err)
	}
	a, err := NewSearch(SearchConfig{Nodes: 2000})
	if err != nil {
		tb.Fatal(err)
	}
	var out []*gomoku.Board
	for _, o := range ops {
		b := gomoku.New(gomoku.Options{})
		for _, m := range o.Moves {
			if err := b.Play(m); err != nil {
				tb.Fatal(err)
			}
		}
		for range plies {
			m, err := a.Move(context.Background(), b, gomoku.Clock{})
			if err != nil {
				tb.Fatal(err)
			}
			if b.Play(m) != nil || b.Over() {
				break
			}
		}
		if !b.Over() {
			out = append(out, b)
		}
	}
	return out
}

// searchFresh is the op of the benchmarks below, b.N times: a move of a
// on the next of boards, from fresh tables (a new game). It returns the
// nodes and the depths searched, summed.
func searchFresh(b *testing.B, a *Search, boards []*gomoku.Board) (nodes int64, depth int) {
	for i := range b.N {
		if err := a.NewGame(gomoku.Freestyle); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Move(context.Background(), boards[i%len(boards)], gomoku.Clock{}); err != nil {
			b.Fatal(err)
		}
		nodes += a.Last().Nodes
		depth += a.Last().Depth
	}
	return nodes, depth
}

// BenchmarkSearchModels: one op is a 100,000-node search from fresh
// tables on a middle-game board, with the shipped models as the arena and
// the Gomocup engine use them (none, the prior, prior and value), and with
// the forest agent's policy (data/forest.ocf, feature set 3) as the prior,
// which the search does not use for what it costs. Reports nodes/s: what
// the learned models cost the search.
func BenchmarkSearchModels(b *testing.B) {
	boards := middleGames(b, 8, 14)
	pm, vm := shippedModels(b)
	pure, err := policy.Load(bytes.NewReader(data.Forest))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  SearchConfig
	}{
		{"none", SearchConfig{}},
		{"prior", SearchConfig{Model: pm}},
		{"prior+value", SearchConfig{Model: pm, Value: vm}},
		{"forest.ocf+value", SearchConfig{Model: pure, Value: vm}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.cfg.Nodes = 100000
			a, err := NewSearch(c.cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			nodes, depth := searchFresh(b, a, boards)
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(depth)/float64(b.N), "depth")
		})
	}
}

// BenchmarkTableLoad: one op searches a middle-game board to depth 14
// (about 8 million nodes) from a fresh table of 2^bits buckets (64 bytes
// each) with the shipped models; nodes/op is what the search needs to
// finish: a table too small for the search forgets and searches again.
// A table's load is its nodes an entry: the default 18 bits (a million
// entries) at a 30 s move's 40 million nodes is loaded as 15-16 bits are
// here. Slow: 8 ops of each size take about 7 minutes.
func BenchmarkTableLoad(b *testing.B) {
	boards := middleGames(b, 8, 14)
	pm, vm := shippedModels(b)
	for _, bits := range []int{12, 14, 16, 18, 20} {
		b.Run(fmt.Sprint("bits=", bits), func(b *testing.B) {
			cfg := search.DefaultConfig()
			cfg.TTBits = bits
			a, err := NewSearch(SearchConfig{Engine: cfg, Model: pm, Value: vm, Depth: 14})
			if err != nil {
				b.Fatal(err)
			}
			nodes, _ := searchFresh(b, a, boards)
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}
