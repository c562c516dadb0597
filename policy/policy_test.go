package policy

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"ocvist/canon"
	"ocvist/data"
	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/patterns"
)

// shapeModel is a small forest that learned "a move that makes a three or
// a four wins" from synthetic feature rows.
func shapeModel(t testing.TB) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 4000
	x := mat.NewDense(n, NumFeatures, nil)
	labels := make([]int, n)
	for i := range n {
		for j := range NumFeatures {
			x.Set(i, j, float64(rng.IntN(8)))
		}
		if x.At(i, 0) >= float64(patterns.BrokenThree) {
			labels[i] = 1
		}
	}
	cfg := forest.DefaultConfig()
	cfg.Trees, cfg.MaxDepth = 8, 4
	m, err := Fit(context.Background(), &Dataset{X: x, Labels: labels, Spec: legacySpec}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPolicyPrefersShapes(t *testing.T) {
	m := shapeModel(t)
	pol, err := New(m, DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// x to move with a two on row 8 (g8 h8): extending it makes a three.
	pos := mustPosition(t, `
...............
...............
...............
...............
...............
...............
...............
......xx.......
.......o.......
........o......
...............
...............
...............
...............
...............
`)
	res := patterns.Filter(pos, gomoku.Black, patterns.Config{}, patterns.Result{})
	if res.Level != patterns.Radius {
		t.Fatalf("level %v", res.Level)
	}
	scores := pol.Scores(pos, &res, nil, res.Moves)
	best := res.Moves[Best(scores)]
	row := make([]float64, NumFeatures)
	Features(row, pos, &res, best)
	if row[0] < float64(patterns.BrokenThree) {
		t.Errorf("best move %v makes %v, want a three", best, patterns.Shape(row[0]))
	}
	// Sampling follows score^(1/T): at T=1 the frequencies match the
	// normalised scores.
	rng := rand.New(rand.NewPCG(2, 2))
	counts := make([]float64, len(scores))
	const draws = 200000
	for range draws {
		counts[pol.Sample(scores, rng)]++
	}
	total := 0.0
	for _, s := range scores {
		total += s
	}
	for i, s := range scores {
		want := s / total * draws
		if math.Abs(counts[i]-want) > 5*math.Sqrt(want)+5 {
			t.Errorf("move %v drawn %v times, want about %.0f", res.Moves[i], counts[i], want)
		}
	}
	// A cold policy concentrates on the best move.
	cold, _ := New(m, Config{Temperature: 0.05}, nil)
	hits := 0
	for range 1000 {
		if scores[cold.Sample(scores, rng)] == scores[Best(scores)] {
			hits++
		}
	}
	if hits < 900 {
		t.Errorf("temperature 0.05 picked the best score %d times in 1000", hits)
	}
}

func TestPolicyBlendsStats(t *testing.T) {
	m := shapeModel(t)
	b := gomoku.New(gomoku.Options{})
	b.Play(gomoku.Center)
	pos := patterns.FromBoard(b)
	res := patterns.Filter(pos, gomoku.White, patterns.Config{}, patterns.Result{})
	c := canon.Of(b)
	q := res.Moves[0]
	cm := c.ToCanon(q)
	plain, _ := New(m, DefaultConfig(), nil)
	p0 := slices.Clone(plain.Scores(pos, &res, &c, res.Moves))
	stats := Stats{{c.Key, cm}: {Key: c.Key, Move: cm, Games: 180, WSum: -180}}
	blend, _ := New(m, DefaultConfig(), stats)
	p1 := blend.Scores(pos, &res, &c, res.Moves)
	// 180 lost games and a prior of 20 games at p0: (0 + 20 p0) / 200.
	if want := 20 * p0[0] / 200; math.Abs(p1[0]-want) > 1e-12 {
		t.Errorf("blended score %v, want %v", p1[0], want)
	}
	for i := 1; i < len(p0); i++ {
		if c.ToCanon(res.Moves[i]) != cm && p1[i] != p0[i] {
			t.Errorf("move %v without statistics changed score", res.Moves[i])
		}
	}
}

func TestPolicyRefusesBadConfig(t *testing.T) {
	if _, err := New(shapeModel(t), Config{Temperature: -1}, nil); err == nil {
		t.Error("a negative temperature was accepted")
	}
	if _, err := New(shapeModel(t), Config{Temperature: 1, MinStatGames: -1}, nil); err == nil {
		t.Error("negative statistics games were accepted")
	}
}

// middleGames returns positions from seeded generation-0 style play, with
// the filter's verdict, for benchmarks.
func middleGames(tb testing.TB, n int) ([]*patterns.Position, []patterns.Result) {
	rng := rand.New(rand.NewPCG(6, 6))
	var ps []*patterns.Position
	var rs []patterns.Result
	for len(ps) < n {
		pos := patterns.NewPosition(gomoku.Options{})
		pos.Play(gomoku.Center)
		var res patterns.Result
		for pos.Board().Stones() < 30 && !pos.Board().Over() {
			res = patterns.Filter(pos, pos.Board().ToMove(), patterns.Config{}, res)
			pos.Play(res.Moves[rng.IntN(len(res.Moves))])
		}
		if pos.Board().Over() {
			continue
		}
		res = patterns.Filter(pos, pos.Board().ToMove(), patterns.Config{}, patterns.Result{})
		ps, rs = append(ps, pos), append(rs, res)
	}
	return ps, rs
}

func BenchmarkFeatures(b *testing.B) {
	ps, rs := middleGames(b, 16)
	row := make([]float64, NumFeatures)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		k := i % len(ps)
		Features(row, ps[k], &rs[k], rs[k].Moves[i%len(rs[k].Moves)])
	}
}

// BenchmarkFeatureSets: every candidate's row of a middle-game position
// under feature sets 2 and 3 (set 3's VCFs searched once a position, as
// Scores does; no allocation). One op is a position; ns/candidate is the cost a move.
func BenchmarkFeatureSets(b *testing.B) {
	ps, rs := middleGames(b, 16)
	for _, set := range []int{HistoryFeatureSet, ThreatFeatureSet} {
		b.Run(fmt.Sprint("set=", set), func(b *testing.B) {
			row := make([]float64, NumFeaturesOf(set))
			cands := 0
			var t Threats
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				k := i % len(ps)
				t.Read(set, ps[k])
				for _, q := range rs[k].Moves {
					FeaturesOf(set, row, ps[k], &rs[k], &t, q)
				}
				cands += len(rs[k].Moves)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(cands), "ns/candidate")
		})
	}
}

// BenchmarkPolicyScores scores every candidate of a middle-game position
// with a default-size forest (48 trees, depth 12) fitted on random rows:
// one op is a whole move choice; ns/candidate is the per-candidate cost.
func BenchmarkPolicyScores(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 20000
	x := mat.NewDense(n, NumFeatures, nil)
	labels := make([]int, n)
	for i := range n {
		for j := range NumFeatures {
			x.Set(i, j, float64(rng.IntN(10)))
		}
		labels[i] = rng.IntN(2)
	}
	cfg := forest.DefaultConfig()
	cfg.Trees, cfg.MaxDepth, cfg.MinLeaf = 48, 12, 1
	m, err := Fit(context.Background(), &Dataset{X: x, Labels: labels, Spec: legacySpec}, cfg)
	if err != nil {
		b.Fatal(err)
	}
	benchMoveChoice(b, m)
}

// BenchmarkShippedModel: the shipped model (data/model.ocf) choosing a
// move in middle-game positions. One op is a whole move choice (features
// and prediction for every candidate; target ≤ 5 ms); ns/candidate
// is the per-candidate cost (target ≤ 10 µs).
func BenchmarkShippedModel(b *testing.B) {
	m, err := Load(bytes.NewReader(data.Model))
	if err != nil {
		b.Fatal(err)
	}
	benchMoveChoice(b, m)
}

// benchMoveChoice times model m choosing the best move in middle-game
// positions: one op is a whole move choice; ns/candidate is reported.
func benchMoveChoice(b *testing.B, m *Model) {
	pol, _ := New(m, DefaultConfig(), nil)
	ps, rs := middleGames(b, 16)
	cands := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(ps)
		Best(pol.Scores(ps[k], &rs[k], nil, rs[k].Moves))
		cands += len(rs[k].Moves)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(cands), "ns/candidate")
}
