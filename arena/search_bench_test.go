package arena

import (
	"context"
	"testing"

	"ocvist/gomoku"
	"ocvist/openings"
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

// BenchmarkSearchModels: one op is a 100,000-node search from fresh
// tables on a middle-game board, with the shipped models as the arena and
// the Gomocup engine use them (none, the prior, prior and value). Reports
// nodes/s: what the learned models cost the search.
func BenchmarkSearchModels(b *testing.B) {
	boards := middleGames(b, 8, 14)
	pm, vm := shippedModels(b)
	for _, c := range []struct {
		name string
		cfg  SearchConfig
	}{
		{"none", SearchConfig{}},
		{"prior", SearchConfig{Model: pm}},
		{"prior+value", SearchConfig{Model: pm, Value: vm}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.cfg.Nodes = 100000
			a, err := NewSearch(c.cfg)
			if err != nil {
				b.Fatal(err)
			}
			var nodes int64
			depth := 0
			b.ReportAllocs()
			b.ResetTimer()
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
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(depth)/float64(b.N), "depth")
		})
	}
}
