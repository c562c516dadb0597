package mlp

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Config is a network's shape and the settings of its fit.
type Config struct {
	Hidden       int     `json:"hidden"`        // hidden units
	Epochs       int     `json:"epochs"`        // passes over the training rows
	Batch        int     `json:"batch"`         // rows a minibatch
	LearningRate float64 `json:"learning_rate"` // Adam's step size
	// Anneal lowers the step size linearly from LearningRate to nothing
	// over the fit, so that the last steps settle the weights instead of
	// leaving them where a full step put them.
	Anneal bool    `json:"anneal,omitempty"`
	L2     float64 `json:"l2"` // weight decay a step (weights only)
	// Shards are the fixed slices of a minibatch whose gradients are
	// computed apart and summed in order (on as many goroutines): the
	// model does not depend on the number of cores.
	Shards int   `json:"shards"`
	Seed   int64 `json:"seed"`
	// Meta is free-form metadata stored with the model (the value
	// network's rule and feature set).
	Meta map[string]string `json:"-"`
}

// DefaultConfig is the value network's shape and fit (loop/TUNING.md).
func DefaultConfig() Config {
	return Config{Hidden: 32, Epochs: 6, Batch: 256, LearningRate: 1e-3, Anneal: true, L2: 1e-6, Shards: 4, Seed: 1}
}

// Limits of a Config and a Model.
const (
	MaxHidden  = 1024
	MaxColumns = 1 << 20
	maxShards  = 64
)

// Validate checks the ranges.
func (c Config) Validate() error {
	switch {
	case c.Hidden < 1 || c.Hidden > MaxHidden:
		return fmt.Errorf("mlp: hidden units %d: want 1..%d", c.Hidden, MaxHidden)
	case c.Epochs < 1 || c.Batch < 1:
		return fmt.Errorf("mlp: epochs %d and batch %d: want at least 1", c.Epochs, c.Batch)
	case !(c.LearningRate > 0 && c.LearningRate < 1):
		return fmt.Errorf("mlp: learning rate %v: want in (0, 1)", c.LearningRate)
	case !(c.L2 >= 0 && c.L2 < 1):
		return fmt.Errorf("mlp: l2 %v: want in [0, 1)", c.L2)
	case c.Shards < 1 || c.Shards > maxShards:
		return fmt.Errorf("mlp: shards %d: want 1..%d", c.Shards, maxShards)
	case slices.Contains(slices.Collect(maps.Keys(c.Meta)), ""):
		return errors.New("mlp: a metadata key is empty")
	}
	return nil
}

// Model is a fitted network (see the package documentation). Read-only.
type Model struct {
	sparse, dense, hidden int
	s                     []float32 // sparse × hidden
	d                     []float32 // dense × hidden
	b1                    []float32 // hidden
	mu, sd                []float32 // dense
	w2                    []float32 // hidden
	b2                    []float32 // one
	cfg                   Config
	meta                  map[string]string

	// The standardisation folded in for evaluation: dz = d/σ, b1z =
	// b1 − Σ_j μ_j/σ_j·d_j.
	dz, b1z []float32
}

// newModel returns a model of zero weights and unit standardisation.
func newModel(sparse, dense int, cfg Config) *Model {
	h := cfg.Hidden
	m := &Model{sparse: sparse, dense: dense, hidden: h,
		s: make([]float32, sparse*h), d: make([]float32, dense*h), b1: make([]float32, h),
		mu: make([]float32, dense), sd: make([]float32, dense), w2: make([]float32, h), b2: make([]float32, 1),
		cfg: cfg, meta: maps.Clone(cfg.Meta)}
	for j := range m.sd {
		m.sd[j] = 1
	}
	m.cfg.Meta = nil
	return m
}

// check reports inconsistent dimensions or values a file may hold.
func (m *Model) check() error {
	h := m.hidden
	switch {
	case h < 1 || h > MaxHidden:
		return fmt.Errorf("hidden units %d", h)
	case m.sparse < 0 || m.sparse > MaxColumns || m.dense < 0 || m.dense > MaxColumns:
		return fmt.Errorf("columns %d sparse, %d dense", m.sparse, m.dense)
	case len(m.s) != m.sparse*h || len(m.d) != m.dense*h || len(m.b1) != h || len(m.w2) != h ||
		len(m.mu) != m.dense || len(m.sd) != m.dense || len(m.b2) != 1:
		return errors.New("weights of the wrong size")
	}
	for _, v := range [][]float32{m.s, m.d, m.b1, m.mu, m.w2, m.b2} {
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return errors.New("a weight is not finite")
			}
		}
	}
	for _, x := range m.sd {
		if !(x > 0) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("a standard deviation of %v", x)
		}
	}
	return nil
}

// prepare folds the standardisation into dz and b1z.
func (m *Model) prepare() {
	h := m.hidden
	m.dz = make([]float32, len(m.d))
	m.b1z = append([]float32(nil), m.b1...)
	for j := range m.dense {
		inv := 1 / m.sd[j]
		for k := range h {
			w := m.d[j*h+k]
			m.dz[j*h+k] = w * inv
			m.b1z[k] -= float32(m.mu[j] * inv * w)
		}
	}
}

// Sparse is the number of sparse columns.
func (m *Model) Sparse() int { return m.sparse }

// Dense is the number of dense inputs.
func (m *Model) Dense() int { return m.dense }

// Hidden is the number of hidden units.
func (m *Model) Hidden() int { return m.hidden }

// Config is the configuration the model was fitted with (Meta: see Meta).
func (m *Model) Config() Config { return m.cfg }

// Meta returns a copy of the model's metadata.
func (m *Model) Meta() map[string]string { return maps.Clone(m.meta) }

// Predict is the probability of a row: its sparse (column, count) pairs
// and its dense inputs (Dense of them). It allocates; the search's
// evaluation uses an Acc.
func (m *Model) Predict(cols []uint32, counts []float32, dense []float32) float64 {
	a := m.NewAcc()
	a.Start(dense)
	for i, c := range cols {
		a.Add(int(c), counts[i])
	}
	return a.Prob()
}

// Acc evaluates rows of a model one at a time without allocating: Start
// with the dense inputs, Add the sparse ones, then Prob. Use one per
// goroutine. BenchmarkAcc times a row of the value network's shape.
type Acc struct {
	m   *Model
	pre []float32
}

// NewAcc returns an evaluator of m.
func (m *Model) NewAcc() *Acc { return &Acc{m: m, pre: make([]float32, m.hidden)} }

// Start begins a row with its dense inputs (Dense of them).
func (a *Acc) Start(dense []float32) {
	m := a.m
	h := m.hidden
	pre := a.pre[:h]
	copy(pre, m.b1z)
	for j, x := range dense[:m.dense] {
		if x != 0 {
			axpy(pre, m.dz[j*h:j*h+h], x)
		}
	}
}

// Add adds count times sparse column col (0 <= col < Sparse).
func (a *Acc) Add(col int, count float32) {
	h := a.m.hidden
	axpy(a.pre[:h], a.m.s[col*h:col*h+h], count)
}

// Logit is the row's z (see the package documentation).
func (a *Acc) Logit() float64 {
	m := a.m
	z := m.b2[0]
	w2 := m.w2[:len(a.pre)]
	for k, x := range a.pre {
		if x > 0 {
			z += float32(x * w2[k])
		}
	}
	return float64(z)
}

// Prob is the row's probability.
func (a *Acc) Prob() float64 { return sigmoid(a.Logit()) }

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
