package mlp

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// randRows returns n seeded rows of sparse columns and dense inputs: each
// row perRow distinct columns of counts 1 to 3, dense inputs of assorted
// means and scales (input j about N(10j, (j+1)²)), a weight of 0.5, 1 or 2
// and a soft target that follows the first column and input.
func randRows(seed uint64, n, sparse, dense, perRow int) *Rows {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	r := NewRows(sparse, dense)
	x := make([]float32, dense)
	for range n {
		cols := make([]uint32, 0, perRow)
		counts := make([]float32, 0, perRow)
		for len(cols) < perRow {
			if c := uint32(rng.IntN(sparse)); !slices.Contains(cols, c) {
				cols = append(cols, c)
				counts = append(counts, float32(1+rng.IntN(3)))
			}
		}
		for j := range x {
			x[j] = float32(10*float64(j) + float64(j+1)*rng.NormFloat64())
		}
		z := -0.5
		if len(cols) > 0 && cols[0]%2 == 0 {
			z += 1
		}
		if dense > 0 {
			z += float64(x[0])
		}
		r.Add(cols, counts, x, sigmoid(z), float64(1+rng.IntN(3))/2)
	}
	return r
}

// smallConfig is a quick fit: 8 hidden units, two epochs of minibatches
// of 32 in 4 shards.
func smallConfig() Config {
	return Config{Hidden: 8, Epochs: 2, Batch: 32, LearningRate: 1e-2, L2: 1e-5, Shards: 4, Seed: 7}
}

func mustFit(t testing.TB, rows *Rows, cfg Config) *Model {
	t.Helper()
	m, err := Fit(context.Background(), rows, cfg)
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

// TestFitDeterministic: two fits of the same rows and Config save the same
// bytes, with one core or four (the fixed shards' promise); another seed
// gives another model, and so does annealing (deterministically too).
func TestFitDeterministic(t *testing.T) {
	rows := randRows(1, 2000, 50, 5, 6)
	cfg := smallConfig()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := mustSave(t, mustFit(t, rows, cfg))
	if again := mustSave(t, mustFit(t, rows, cfg)); !bytes.Equal(one, again) {
		t.Fatal("two fits with the same Config saved different bytes")
	}
	runtime.GOMAXPROCS(4)
	if four := mustSave(t, mustFit(t, rows, cfg)); !bytes.Equal(one, four) {
		t.Fatal("GOMAXPROCS 1 and 4 saved different bytes")
	}
	cfg.Seed++
	if other := mustSave(t, mustFit(t, rows, cfg)); bytes.Equal(one, other) {
		t.Fatal("seeds 7 and 8 saved identical bytes")
	}
	cfg.Seed--
	cfg.Anneal = true
	annealed := mustFit(t, rows, cfg)
	if a := mustSave(t, annealed); bytes.Equal(one, a) || !bytes.Equal(a, mustSave(t, mustFit(t, rows, cfg))) || !annealed.Config().Anneal {
		t.Fatal("an annealed fit saved the bytes of a fit without annealing, or twice different bytes")
	}
}

// xorRows returns n seeded rows of a problem no linear model can fit. The
// target is sigmoid(2.5·(s1 + s2)): s1 = +1 if exactly one of sparse
// columns 0 and 1 is in the row (each is, with probability 1/2, count 1),
// else −1; s2 is the sign of (x0 − 3)·(x1 + 1), for dense inputs
// x0 ~ N(3, 2²) and x1 ~ N(−1, 0.5²). Sparse columns 2 to 11 (each with
// probability 1/4, counts 1 to 3) and x2 ~ N(50, 10²) are noise. s1 and
// s2 are each independent of every single input, so the best logistic
// regression on the inputs is the constant 1/2 (log loss ln 2), while the
// best predictor's log loss is about 0.367.
func xorRows(seed uint64, n int) *Rows {
	rng := rand.New(rand.NewPCG(seed, 0x0c5))
	r := NewRows(xorSparse, 3)
	for range n {
		var cols []uint32
		var counts []float32
		a, b := rng.IntN(2) == 1, rng.IntN(2) == 1
		for c, in := range []bool{a, b} {
			if in {
				cols, counts = append(cols, uint32(c)), append(counts, 1)
			}
		}
		for c := 2; c < xorSparse; c++ {
			if rng.IntN(4) == 0 {
				cols, counts = append(cols, uint32(c)), append(counts, float32(1+rng.IntN(3)))
			}
		}
		x := []float32{float32(3 + 2*rng.NormFloat64()), float32(-1 + 0.5*rng.NormFloat64()), float32(50 + 10*rng.NormFloat64())}
		s1, s2 := -1.0, -1.0
		if a != b {
			s1 = 1
		}
		if (x[0]-3)*(x[1]+1) > 0 {
			s2 = 1
		}
		r.Add(cols, counts, x, sigmoid(2.5*(s1+s2)), 1)
	}
	return r
}

const xorSparse = 12

// logLoss is the mean log loss of predict on rows, weighted.
func logLoss(rows *Rows, predict func(cols []uint32, counts, dense []float32) float64) float64 {
	sum, wsum := 0.0, 0.0
	for i := range rows.Len() {
		p := predict(rows.row(i))
		t, w := float64(rows.target[i]), float64(rows.weight[i])
		sum -= w * (t*math.Log(p) + (1-t)*math.Log(1-p))
		wsum += w
	}
	return sum / wsum
}

// TestLearns: on held-out rows of xorRows the network's log loss is well
// below that of the best constant and of the best logistic regression on
// the same inputs, both fitted on the held-out rows themselves (so no
// constant and no logistic regression can do better there).
func TestLearns(t *testing.T) {
	train, held := xorRows(1, 16000), xorRows(2, 4000)
	cfg := Config{Hidden: 32, Epochs: 20, Batch: 64, LearningRate: 1e-2, L2: 1e-6, Shards: 4, Seed: 3}
	m := mustFit(t, train, cfg)
	net := logLoss(held, m.Predict)
	mean := 0.0
	for _, y := range held.target {
		mean += float64(y)
	}
	mean /= float64(held.Len())
	constant := logLoss(held, func([]uint32, []float32, []float32) float64 { return mean })
	w := fitLogistic(held)
	logistic := logLoss(held, func(cols []uint32, counts, dense []float32) float64 {
		return sigmoid(dot(w, linearInputs(cols, counts, dense)))
	})
	t.Logf("held-out log loss: network %.4f, best constant %.4f, best logistic regression %.4f (the best predictor's about 0.367)", net, constant, logistic)
	if constant < 0.69 || logistic < 0.68 {
		t.Errorf("the problem is linear after all: constant %.4f, logistic %.4f", constant, logistic)
	}
	if net > 0.46 || net > logistic-0.2 {
		t.Errorf("network's held-out log loss %.4f, want at most 0.46 and 0.2 below the logistic regression's %.4f", net, logistic)
	}
}

// linearInputs is a row of xorRows as a logistic regression sees it: an
// intercept, each sparse column's count and the dense inputs centred and
// scaled by their known means and deviations.
func linearInputs(cols []uint32, counts, dense []float32) []float64 {
	x := make([]float64, 1+xorSparse+3)
	x[0] = 1
	for i, c := range cols {
		x[1+c] = float64(counts[i])
	}
	for j, v := range dense {
		x[1+xorSparse+j] = (float64(v) - [3]float64{3, -1, 50}[j]) / [3]float64{2, 0.5, 10}[j]
	}
	return x
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// fitLogistic fits a logistic regression on linearInputs of rows by
// Newton's method (30 steps of a convex problem: the minimum, to far
// below the test's margins).
func fitLogistic(rows *Rows) []float64 {
	n := 1 + xorSparse + 3
	w := make([]float64, n)
	for range 30 {
		g := make([]float64, n)
		h := make([][]float64, n)
		for i := range h {
			h[i] = make([]float64, n+1)
			h[i][i] = 1e-9
		}
		for i := range rows.Len() {
			x := linearInputs(rows.row(i))
			p := sigmoid(dot(w, x))
			e, c := p-float64(rows.target[i]), p*(1-p)
			for a := range n {
				g[a] += e * x[a]
				for b := range n {
					h[a][b] += c * x[a] * x[b]
				}
			}
		}
		for a := range n {
			h[a][n] = g[a]
		}
		for a, d := range solve(h) {
			w[a] -= d
		}
	}
	return w
}

// solve solves the linear system of the augmented matrix a (n rows of n+1)
// by Gaussian elimination with partial pivoting.
func solve(a [][]float64) []float64 {
	n := len(a)
	for k := range n {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(a[i][k]) > math.Abs(a[p][k]) {
				p = i
			}
		}
		a[k], a[p] = a[p], a[k]
		for i := k + 1; i < n; i++ {
			f := a[i][k] / a[k][k]
			for j := k; j <= n; j++ {
				a[i][j] -= f * a[k][j]
			}
		}
	}
	x := make([]float64, n)
	for k := n - 1; k >= 0; k-- {
		s := a[k][n]
		for j := k + 1; j < n; j++ {
			s -= a[k][j] * x[j]
		}
		x[k] = s / a[k][k]
	}
	return x
}

// TestAccIsPredict: an Acc reused row after row gives Predict's float64
// exactly (and Prob is the sigmoid of Logit), and evaluating a row with it
// allocates nothing.
func TestAccIsPredict(t *testing.T) {
	rows := randRows(3, 500, 40, 6, 8)
	m := mustFit(t, rows, smallConfig())
	held := randRows(4, 300, 40, 6, 8)
	a := m.NewAcc()
	eval := func(cols []uint32, counts, dense []float32) float64 {
		a.Start(dense)
		for i, c := range cols {
			a.Add(int(c), counts[i])
		}
		return a.Prob()
	}
	for i := range held.Len() {
		cols, counts, dense := held.row(i)
		if got, want := eval(cols, counts, dense), m.Predict(cols, counts, dense); got != want {
			t.Fatalf("row %d: Acc %v, Predict %v", i, got, want)
		}
		if p := sigmoid(a.Logit()); p != a.Prob() {
			t.Fatalf("row %d: sigmoid of Logit %v, Prob %v", i, p, a.Prob())
		}
	}
	cols, counts, dense := held.row(0)
	if n := testing.AllocsPerRun(100, func() { eval(cols, counts, dense) }); n != 0 {
		t.Errorf("an Acc's row allocates %v times", n)
	}
}

// TestFitRefusesRows: rows Fit cannot use give an error, not a model (nor
// a panic).
func TestFitRefusesRows(t *testing.T) {
	ok := func(r *Rows) { r.Add([]uint32{1}, []float32{2}, []float32{0.5}, 0.25, 1) }
	tests := []struct {
		name string
		rows func() *Rows
		want string
	}{
		{"no rows", func() *Rows { return NewRows(4, 1) }, "no rows"},
		{"column out of range", func() *Rows {
			r := NewRows(4, 1)
			ok(r)
			r.Add([]uint32{0, 4}, []float32{1, 1}, []float32{0}, 1, 1)
			return r
		}, "sparse column 4 of 4"},
		{"count not finite", func() *Rows {
			r := NewRows(4, 1)
			r.Add([]uint32{0}, []float32{float32(math.Inf(1))}, []float32{0}, 1, 1)
			return r
		}, "count is not finite"},
		{"dense input not finite", func() *Rows {
			r := NewRows(4, 1)
			r.Add(nil, nil, []float32{float32(math.NaN())}, 1, 1)
			return r
		}, "dense input is not finite"},
		{"all weights 0", func() *Rows {
			r := NewRows(4, 1)
			r.Add([]uint32{1}, []float32{1}, []float32{0}, 1, 0)
			r.Add([]uint32{2}, []float32{1}, []float32{0}, 0, 0)
			return r
		}, "every row weighs 0"},
		{"too many columns", func() *Rows {
			r := NewRows(MaxColumns+1, 0)
			r.Add(nil, nil, nil, 1, 1)
			return r
		}, "at most"},
	}
	for _, c := range []struct {
		name           string
		target, weight float64
	}{
		{"target below 0", -0.01, 1}, {"target above 1", 1.5, 1}, {"target NaN", math.NaN(), 1},
		{"negative weight", 0.5, -1}, {"weight NaN", 0.5, math.NaN()}, {"weight infinite", 0.5, math.Inf(1)},
	} {
		tests = append(tests, struct {
			name string
			rows func() *Rows
			want string
		}{c.name, func() *Rows {
			r := NewRows(4, 1)
			ok(r)
			r.Add([]uint32{3}, []float32{1}, []float32{1}, c.target, c.weight)
			return r
		}, "row 1: target"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Fit(context.Background(), tt.rows(), smallConfig())
			if err == nil || m != nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "mlp: fit: ") {
				t.Fatalf("Fit: %v, %v; want an error saying %q", m, err, tt.want)
			}
		})
	}
}

// TestFitRefusesConfigs: each Config out of range is refused by Validate
// and so by Fit, before anything is fitted; the default is valid.
func TestFitRefusesConfigs(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	rows := randRows(5, 50, 10, 2, 3)
	for _, tt := range []struct {
		name string
		set  func(*Config)
	}{
		{"hidden 0", func(c *Config) { c.Hidden = 0 }},
		{"hidden over MaxHidden", func(c *Config) { c.Hidden = MaxHidden + 1 }},
		{"epochs 0", func(c *Config) { c.Epochs = 0 }},
		{"batch 0", func(c *Config) { c.Batch = 0 }},
		{"learning rate 0", func(c *Config) { c.LearningRate = 0 }},
		{"learning rate 1", func(c *Config) { c.LearningRate = 1 }},
		{"learning rate NaN", func(c *Config) { c.LearningRate = math.NaN() }},
		{"l2 negative", func(c *Config) { c.L2 = -1e-6 }},
		{"l2 1", func(c *Config) { c.L2 = 1 }},
		{"l2 NaN", func(c *Config) { c.L2 = math.NaN() }},
		{"shards 0", func(c *Config) { c.Shards = 0 }},
		{"shards 65", func(c *Config) { c.Shards = 65 }},
		{"an empty metadata key", func(c *Config) { c.Meta = map[string]string{"": "x"} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig()
			tt.set(&cfg)
			verr := cfg.Validate()
			m, err := Fit(context.Background(), rows, cfg)
			if verr == nil || err == nil || err.Error() != verr.Error() || m != nil || !strings.HasPrefix(err.Error(), "mlp: ") {
				t.Fatalf("Validate: %v; Fit: %v, %v; want Validate's error from both", verr, m, err)
			}
		})
	}
}

// TestConstantInput: a dense input that never varies in the training rows
// is centred but not scaled (σ = 1), so a value the rows never showed moves
// the network no more than a unit step of it; inputs that vary are scaled
// by their standard deviation.
func TestConstantInput(t *testing.T) {
	rows := NewRows(4, 2)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 400 {
		x := float32(rng.NormFloat64() * 4)
		rows.Add([]uint32{uint32(i % 4)}, []float32{1}, []float32{5, x}, float64(i%2), 1)
	}
	m := mustFit(t, rows, smallConfig())
	if m.mu[0] != 5 || m.sd[0] != 1 {
		t.Errorf("the constant input: μ %v, σ %v; want 5 and 1", m.mu[0], m.sd[0])
	}
	if !(m.sd[1] > 3 && m.sd[1] < 5) {
		t.Errorf("the varying input: σ %v, want about 4", m.sd[1])
	}
}

// countCtx is a context whose Err reports cancellation from its n+1st
// call on, counting the calls.
type countCtx struct {
	context.Context
	n, calls int
}

func (c *countCtx) Err() error {
	c.calls++
	if c.calls > c.n {
		return context.Canceled
	}
	return nil
}

// TestFitCancelled: a context cancelled before Fit, or after five
// minibatches, stops Fit with the context's error and no model, at the
// first minibatch after the cancellation.
func TestFitCancelled(t *testing.T) {
	rows := randRows(6, 1000, 20, 3, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m, err := Fit(ctx, rows, smallConfig()); m != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: %v, %v; want context.Canceled", m, err)
	}
	c := &countCtx{Context: context.Background(), n: 5}
	if m, err := Fit(c, rows, smallConfig()); m != nil || !errors.Is(err, context.Canceled) || c.calls != c.n+1 {
		t.Fatalf("cancelled after %d minibatches: %v, %v, %d checks; want context.Canceled at check %d", c.n, m, err, c.calls, c.n+1)
	}
}
