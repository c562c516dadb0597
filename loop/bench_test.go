package loop

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"ocvist/arena"
	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/openings"
	"ocvist/policy"
	"ocvist/search"
	"ocvist/selfplay"
	"ocvist/store"
)

func startModel(b testing.TB) *policy.Model {
	m, err := policy.Load(bytes.NewReader(data.Model20261121))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// newTeacher is a teacher of the recipe's settings but nodes and explore,
// with the generation-0 prior, over 50 generated openings.
func newTeacher(b testing.TB, nodes int64, explore int) *selfplay.Teacher {
	cfg := DefaultConfig()
	ops, err := openings.Generate(3, 50, gomoku.Freestyle)
	if err != nil {
		b.Fatal(err)
	}
	var openings [][]gomoku.Point
	for _, o := range ops {
		openings = append(openings, o.Moves)
	}
	tc := cfg.teacher(openings)
	tc.Nodes, tc.Explore = nodes, explore
	sc := search.DefaultConfig()
	sc.PriorDepth = TeacherPriorDepth
	t := selfplay.NewTeacher(tc, sc)
	m := startModel(b)
	t.Searcher().SetPrior(func() search.Prior { return policy.NewPrior(m) })
	return t
}

// teacherGames plays n teacher games of the recipe's settings but nodes
// and explore.
func teacherGames(b testing.TB, n int, nodes int64, explore int) []store.TeacherGame {
	t := newTeacher(b, nodes, explore)
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]store.TeacherGame, n)
	for i := range out {
		g := t.Play(rng)
		out[i] = g.Stored(1, i)
	}
	return out
}

// BenchmarkTeacherGame: one op is one teacher game at the recipe's 5,000
// nodes a move with the generation-0 prior, on one core; reports games/s
// and samples/s (plies after the opening).
func BenchmarkTeacherGame(b *testing.B) {
	t := newTeacher(b, 5000, DefaultConfig().Explore)
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	b.ResetTimer()
	plies := 0
	for range b.N {
		plies += len(t.Play(rng).Teacher)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(plies)/b.Elapsed().Seconds(), "samples/s")
}

// fitRows builds the policy rows of a few hundred cheap teacher games and
// repeats them to n rows (a fit's time depends on rows, columns and
// depth, not on where the rows came from).
func fitRows(b *testing.B, n int) ([]float64, []int) {
	games := teacherGames(b, 200, 500, DefaultConfig().Explore)
	cfg := DefaultConfig()
	bl := newBuilder(cfg)
	for i := range games {
		if err := bl.game(&games[i]); err != nil {
			b.Fatal(err)
		}
	}
	x, y := bl.s.policyX, bl.s.policyY
	for len(y) < n {
		x, y = append(x, x...), append(y, y...)
	}
	return x[:n*policy.NumHistoryFeatures], y[:n]
}

// BenchmarkFit1M: one op fits the recipe's policy forest (48 trees, depth
// 14) on 1,000,000 rows with 2 workers.
func BenchmarkFit1M(b *testing.B) {
	x, y := fitRows(b, 1_000_000)
	cfg := DefaultConfig().Policy
	cfg.Workers = 2
	spec := policy.Spec{FeatureSet: policy.HistoryFeatureSet, Rule: gomoku.Freestyle, Radius: 2}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := policy.Fit(context.Background(), policy.NewDataset(x, y, spec), cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPolicyMove: one op is the pure policy's move (filter, features
// and forest over every candidate) on the positions of a teacher game,
// with a recipe-sized set-2 model.
func BenchmarkPolicyMove(b *testing.B) {
	x, y := fitRows(b, 100_000)
	cfg := DefaultConfig().Policy
	spec := policy.Spec{FeatureSet: policy.HistoryFeatureSet, Rule: gomoku.Freestyle, Radius: 2}
	m, err := policy.Fit(context.Background(), policy.NewDataset(x, y, spec), cfg)
	if err != nil {
		b.Fatal(err)
	}
	a, err := arena.NewForest(m, arena.ForestConfig{})
	if err != nil {
		b.Fatal(err)
	}
	g := teacherGames(b, 1, 2000, DefaultConfig().Explore)[0]
	var boards []*gomoku.Board
	for k := 1; k < len(g.Moves); k++ {
		bd := gomoku.New(gomoku.Options{})
		for _, p := range g.Moves[:k] {
			bd.Play(p)
		}
		boards = append(boards, bd)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := a.Move(context.Background(), boards[i%len(boards)], gomoku.Clock{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchValue: one op is a 100,000-node search from fresh tables
// on a middle-game position of a teacher game (the 12th ply after the
// opening), ordered by the shipped policy and evaluated with a value
// model as play uses them: "none", "shipped" (data/value.ocf), "forest"
// (a value forest of the loop's shape on set 2, fitted with the forest
// recipe's targets on 200 cheap teacher games, its leaves of one row so
// that its trees reach their full depth as a generation's do on hundreds
// of thousands of rows) and "net" (DefaultConfig's value network on the
// same games). Reports nodes/s: what a value model costs the search.
func BenchmarkSearchValue(b *testing.B) {
	games := teacherGames(b, 200, 500, DefaultConfig().Explore)
	fit := func(cfg Config) *policy.ValueModel {
		bl := newBuilder(cfg)
		for i := range games {
			if err := bl.game(&games[i]); err != nil {
				b.Fatal(err)
			}
		}
		var rec Record
		vm, err := fitValue(context.Background(), &bl.s, cfg, 1, &rec)
		if err != nil {
			b.Fatal(err)
		}
		return vm
	}
	fcfg := DefaultConfig()
	fcfg.ValueSet, fcfg.ValueTarget, fcfg.ScaleByGen, fcfg.Value.MinLeaf = policy.ValueFeatureSet2, 0.5, false, 1
	forestValue, netValue := fit(fcfg), fit(DefaultConfig())
	var boards []*gomoku.Board
	for _, g := range games[:16] {
		bd := gomoku.New(gomoku.Options{})
		for _, p := range g.Moves[:min(len(g.Moves)-1, g.Book+12)] {
			bd.Play(p)
		}
		boards = append(boards, bd)
	}
	pm, err := policy.Load(bytes.NewReader(data.Model))
	if err != nil {
		b.Fatal(err)
	}
	shipped, err := policy.LoadValue(bytes.NewReader(data.Value))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		vm   *policy.ValueModel
	}{{"none", nil}, {"shipped", shipped}, {"forest", forestValue}, {"net", netValue}} {
		b.Run(c.name, func(b *testing.B) {
			a, err := arena.NewSearch(arena.SearchConfig{Nodes: 100_000, Model: pm, Value: c.vm})
			if err != nil {
				b.Fatal(err)
			}
			var nodes int64
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
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}
