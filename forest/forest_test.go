package forest

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// synth returns n seeded rows of p features (normal, every fourth one a
// small integer like most gomoku features) whose label follows the rule
// x0 + noise > x1, noise ~ N(0, 0.5²). The Bayes accuracy is about 0.89; a
// rule on x0 alone reaches about 0.73.
func synth(seed uint64, n, p int) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	X := mat.NewDense(n, p, nil)
	labels := make([]int, n)
	for i := range n {
		row := X.RawRowView(i)
		for f := range row {
			if f%4 == 3 {
				row[f] = float64(rng.IntN(5))
			} else {
				row[f] = rng.NormFloat64()
			}
		}
		if row[0]+0.5*rng.NormFloat64() > row[1] {
			labels[i] = 1
		}
	}
	return X, labels
}

func mustFit(t testing.TB, X *mat.Dense, labels []int, weights []float64, cfg Config) *Model {
	t.Helper()
	m, err := Fit(context.Background(), X, labels, weights, cfg)
	if err != nil {
		t.Fatalf("Fit: %v", err)
	}
	return m
}

func mustSave(t testing.TB, m *Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatalf("Save: %v", err)
	}
	return buf.Bytes()
}

func smallConfig() Config {
	cfg := DefaultConfig()
	cfg.Trees = 16
	cfg.MaxDepth = 8
	return cfg
}

// evaluate returns the held-out accuracy and AUC of m on X.
func evaluate(m *Model, X *mat.Dense, labels []int) (acc, auc float64) {
	n, _ := X.Dims()
	scores := make([]float64, n)
	pred := make([]int, n)
	truth := make([]bool, n)
	for i := range n {
		scores[i] = m.PredictClass1(X.RawRowView(i))
		if scores[i] > 0.5 {
			pred[i] = 1
		}
		truth[i] = labels[i] == 1
	}
	return Accuracy(pred, labels, nil), AUC(scores, truth, nil)
}

func TestFitDeterministic(t *testing.T) {
	X, labels := synth(1, 3000, 10)
	cfg := smallConfig()
	cfg.Seed = 42
	cfg.Workers = 1
	one := mustSave(t, mustFit(t, X, labels, nil, cfg))
	again := mustSave(t, mustFit(t, X, labels, nil, cfg))
	if !bytes.Equal(one, again) {
		t.Fatal("two fits with the same seed saved different bytes")
	}
	cfg.Workers = 2
	if two := mustSave(t, mustFit(t, X, labels, nil, cfg)); !bytes.Equal(one, two) {
		t.Fatal("Workers=1 and Workers=2 saved different bytes")
	}
	cfg.Workers = 7
	if seven := mustSave(t, mustFit(t, X, labels, nil, cfg)); !bytes.Equal(one, seven) {
		t.Fatal("Workers=1 and Workers=7 saved different bytes")
	}
	cfg.Seed = 43
	if other := mustSave(t, mustFit(t, X, labels, nil, cfg)); bytes.Equal(one, other) {
		t.Fatal("seeds 42 and 43 saved identical bytes")
	}
}

func TestLearns(t *testing.T) {
	X, labels := synth(2, 20000, 8)
	Xt, lt := synth(3, 5000, 8)
	cfg := DefaultConfig()
	cfg.Trees = 32
	m := mustFit(t, X, labels, nil, cfg)
	acc, auc := evaluate(m, Xt, lt)

	// Baseline: the same learner allowed only column x0.
	x0 := func(X *mat.Dense) *mat.Dense {
		n, _ := X.Dims()
		return mat.DenseCopyOf(X.Slice(0, n, 0, 1))
	}
	base := mustFit(t, x0(X), labels, nil, cfg)
	bacc, bauc := evaluate(base, x0(Xt), lt)
	t.Logf("held-out accuracy %.4f AUC %.4f; x0-only baseline accuracy %.4f AUC %.4f", acc, auc, bacc, bauc)
	if acc < 0.84 || auc < 0.92 {
		t.Errorf("accuracy %.4f, AUC %.4f; want at least 0.84, 0.92", acc, auc)
	}
	if acc < bacc+0.08 || auc < bauc+0.08 {
		t.Errorf("accuracy %.4f, AUC %.4f do not beat the x0-only baseline %.4f, %.4f by 0.08", acc, auc, bacc, bauc)
	}
}

// TestSampleWeights gives class 1 a minority of 30% of the rows, independent
// of the features, and weight 4 per class-1 row: the weighted majority
// (63%) is class 1, so every prediction must flip above one half.
func TestSampleWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	n := 4000
	X := mat.NewDense(n, 3, nil)
	labels := make([]int, n)
	weights := make([]float64, n)
	for i := range n {
		for f := range 3 {
			X.Set(i, f, rng.Float64())
		}
		weights[i] = 1
		if rng.Float64() < 0.3 {
			labels[i], weights[i] = 1, 4
		}
	}
	cfg := smallConfig()
	cfg.MinLeaf = 500
	plain := mustFit(t, X, labels, nil, cfg)
	weighted := mustFit(t, X, labels, weights, cfg)
	for i := range n {
		x := X.RawRowView(i)
		if p := plain.PredictClass1(x); p >= 0.5 {
			t.Fatalf("row %d: unweighted P(1) = %.3f, want < 0.5", i, p)
		}
		if p := weighted.PredictClass1(x); p <= 0.5 {
			t.Fatalf("row %d: weighted P(1) = %.3f, want > 0.5", i, p)
		}
	}

	// Zero weights remove rows: dropping every class-1 row leaves a pure
	// class-0 forest.
	for i := range weights {
		weights[i] = float64(1 - labels[i])
	}
	only0 := mustFit(t, X, labels, weights, cfg)
	if p := only0.PredictClass1(X.RawRowView(0)); p != 0 {
		t.Errorf("class-1 rows weighted 0, yet P(1) = %v", p)
	}
}

func TestPredictSumsToOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 3000
	X := mat.NewDense(n, 4, nil)
	labels := make([]int, n)
	for i := range n {
		for f := range 4 {
			X.Set(i, f, rng.NormFloat64())
		}
		labels[i] = int(math.Max(0, math.Min(2, math.Floor(X.At(i, 0)+1.5))))
	}
	m := mustFit(t, X, labels, nil, smallConfig())
	if m.Classes() != 3 || m.NumFeatures() != 4 {
		t.Fatalf("Classes %d NumFeatures %d, want 3, 4", m.Classes(), m.NumFeatures())
	}
	for i := range 200 {
		x := X.RawRowView(i)
		p := m.Predict(x)
		var s float64
		for _, v := range p {
			s += v
		}
		if math.Abs(s-1) > 1e-6 {
			t.Fatalf("row %d: probabilities %v sum to %v", i, p, s)
		}
		if got, want := m.PredictClass1(x), p[1]; math.Abs(got-want) > 1e-12 {
			t.Fatalf("row %d: PredictClass1 %v, Predict[1] %v", i, got, want)
		}
	}
}

// TestPredictMatchesPlainWalk checks the lockstep, branch-free walk of
// PredictInto against walking one tree at a time, on rows with NaNs and
// infinities, for forests whose size is and is not a multiple of lanes.
func TestPredictMatchesPlainWalk(t *testing.T) {
	X, labels := synth(6, 4000, 6)
	rng := rand.New(rand.NewPCG(6, 6))
	for _, trees := range []int{1, lanes, 2*lanes + 3} {
		cfg := smallConfig()
		cfg.Trees = trees
		m := mustFit(t, X, labels, nil, cfg)
		x := make([]float64, 6)
		for i := range 2000 {
			for f := range x {
				switch rng.IntN(20) {
				case 0:
					x[f] = math.NaN()
				case 1:
					x[f] = math.Inf(1 - 2*rng.IntN(2))
				default:
					x[f] = X.At(rng.IntN(4000), f) // hits thresholds exactly
				}
			}
			var want float64
			for _, r := range m.roots {
				want += float64(m.leaves[int(m.leaf(r, x))*2+1])
			}
			want /= float64(trees)
			if got := m.PredictClass1(x); got != want {
				t.Fatalf("%d trees, row %d %v: PredictClass1 %v, plain walk %v", trees, i, x, got, want)
			}
		}
	}
}

// TestConcurrentPredict has goroutines share one Model (run with -race).
func TestConcurrentPredict(t *testing.T) {
	X, labels := synth(8, 2000, 5)
	m := mustFit(t, X, labels, nil, smallConfig())
	want := make([]float64, 100)
	for i := range want {
		want[i] = m.PredictClass1(X.RawRowView(i))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			out := make([]float64, 2)
			for i := range want {
				m.PredictInto(X.RawRowView(i), out)
				if out[1] != want[i] {
					t.Errorf("row %d: concurrent P(1) %v, want %v", i, out[1], want[i])
				}
			}
		})
	}
	wg.Wait()
}

func TestFitCancel(t *testing.T) {
	X, labels := synth(4, 2000, 6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Fit(ctx, X, labels, nil, smallConfig())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestFitErrors(t *testing.T) {
	X, labels := synth(4, 50, 3)
	cfg := smallConfig()
	tests := []struct {
		name    string
		X       *mat.Dense
		labels  []int
		weights []float64
		cfg     func(*Config)
	}{
		{name: "NilX", labels: labels},
		{name: "LabelCount", X: X, labels: labels[:10]},
		{name: "NegativeLabel", X: X, labels: append([]int{-1}, labels[1:]...)},
		{name: "LabelTooLarge", X: X, labels: append([]int{256}, labels[1:]...)},
		{name: "WeightCount", X: X, labels: labels, weights: []float64{1}},
		{name: "NegativeWeight", X: X, labels: labels, weights: func() []float64 {
			w := make([]float64, 50)
			w[3] = -1
			return w
		}()},
		{name: "NaNWeight", X: X, labels: labels, weights: func() []float64 {
			w := make([]float64, 50)
			w[3] = math.NaN()
			return w
		}()},
		{name: "AllZeroWeights", X: X, labels: labels, weights: make([]float64, 50)},
		{name: "FeatureNames", X: X, labels: labels, cfg: func(c *Config) { c.FeatureNames = []string{"a"} }},
		{name: "BadConfig", X: X, labels: labels, cfg: func(c *Config) { c.Bins = 300 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			if tt.cfg != nil {
				tt.cfg(&c)
			}
			if _, err := Fit(context.Background(), tt.X, tt.labels, tt.weights, c); err == nil {
				t.Fatal("Fit succeeded, want an error")
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	bad := map[string]func(*Config){
		"Trees":              func(c *Config) { c.Trees = 0 },
		"MaxDepth":           func(c *Config) { c.MaxDepth = 0 },
		"MinLeaf":            func(c *Config) { c.MinLeaf = 0 },
		"BinsLow":            func(c *Config) { c.Bins = 1 },
		"BinsHigh":           func(c *Config) { c.Bins = 257 },
		"FeatureFraction":    func(c *Config) { c.FeatureFraction = 1.5 },
		"FeatureFractionNaN": func(c *Config) { c.FeatureFraction = math.NaN() },
		"SampleFraction":     func(c *Config) { c.SampleFraction = 0 },
		"Workers":            func(c *Config) { c.Workers = -1 },
	}
	for name, f := range bad {
		t.Run(name, func(t *testing.T) {
			c := DefaultConfig()
			f(&c)
			if err := c.Validate(); err == nil {
				t.Fatalf("Validate accepted %+v", c)
			}
		})
	}
}

func TestFeaturesPerSplit(t *testing.T) {
	c := DefaultConfig()
	if got := c.featuresPerSplit(40); got != 6 {
		t.Errorf("sqrt default for 40 features: %d, want 6", got)
	}
	c.FeatureFraction = 0.5
	if got := c.featuresPerSplit(40); got != 20 {
		t.Errorf("half of 40 features: %d, want 20", got)
	}
	c.FeatureFraction = 0.01
	if got := c.featuresPerSplit(3); got != 1 {
		t.Errorf("tiny fraction of 3 features: %d, want 1", got)
	}
}
