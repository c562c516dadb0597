package mlp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// Rows are training rows: each a bag of sparse (column, count) pairs, Dense
// inputs, a target probability and a weight.
type Rows struct {
	sparse, dense int
	start         []int64 // row i's pairs are cols[start[i]:start[i+1]]
	cols          []uint32
	counts        []float32
	x             []float32 // dense inputs, row after row
	target        []float32
	weight        []float32
}

// NewRows returns an empty set of rows of sparse columns and dense inputs.
func NewRows(sparse, dense int) *Rows {
	return &Rows{sparse: sparse, dense: dense, start: []int64{0}}
}

// Add appends a row: its sparse columns (each < the sparse columns) and
// their counts, its dense inputs, its target in [0, 1] and its weight (a
// row of weight 0 counts for nothing).
func (r *Rows) Add(cols []uint32, counts []float32, dense []float32, target, weight float64) {
	r.cols = append(r.cols, cols...)
	r.counts = append(r.counts, counts...)
	r.start = append(r.start, int64(len(r.cols)))
	r.x = append(r.x, dense[:r.dense]...)
	r.target = append(r.target, float32(target))
	r.weight = append(r.weight, float32(weight))
}

// Len is the number of rows.
func (r *Rows) Len() int { return len(r.target) }

// SetWeight sets row i's target and weight.
func (r *Rows) SetWeight(i int, target, weight float64) {
	r.target[i], r.weight[i] = float32(target), float32(weight)
}

// row returns row i's pairs and dense inputs.
func (r *Rows) row(i int) ([]uint32, []float32, []float32) {
	s, e := r.start[i], r.start[i+1]
	return r.cols[s:e], r.counts[s:e], r.x[i*r.dense : (i+1)*r.dense]
}

// check reports rows Fit cannot use.
func (r *Rows) check() error {
	if r.Len() == 0 {
		return errors.New("mlp: fit: no rows")
	}
	if len(r.cols) != len(r.counts) || len(r.x) != r.Len()*r.dense {
		return errors.New("mlp: fit: a row's columns and counts, or its dense inputs, differ in number")
	}
	for i, c := range r.cols {
		if int(c) >= r.sparse {
			return fmt.Errorf("mlp: fit: sparse column %d of %d", c, r.sparse)
		}
		if f := r.counts[i]; math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return errors.New("mlp: fit: a count is not finite")
		}
	}
	for _, x := range r.x {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("mlp: fit: a dense input is not finite")
		}
	}
	sum := 0.0
	for i, t := range r.target {
		w := r.weight[i]
		if !(t >= 0 && t <= 1) || !(w >= 0) || math.IsInf(float64(w), 0) {
			return fmt.Errorf("mlp: fit: row %d: target %v, weight %v: want a target in [0, 1] and a finite weight >= 0", i, t, w)
		}
		sum += float64(w)
	}
	if sum == 0 {
		return errors.New("mlp: fit: every row weighs 0")
	}
	return nil
}

// Adam's decay rates and its guard against division by zero.
const (
	beta1      = 0.9
	beta2      = 0.999
	adamEps    = 1e-8
	initSparse = 0.02 // standard deviations of the initial weights
	initDense  = 0.1
	initOut    = 0.2
	minSD      = 1e-3 // an input that varies less is not scaled (σ = 1)
)

// Fit fits a network on rows (see the package documentation); the same
// rows and cfg give the same model bit for bit. It stops early with ctx's
// error. BenchmarkFit times a fit of 20,000 rows.
func Fit(ctx context.Context, rows *Rows, cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rows.sparse > MaxColumns || rows.dense > MaxColumns {
		return nil, fmt.Errorf("mlp: fit: %d sparse and %d dense columns: at most %d each", rows.sparse, rows.dense, MaxColumns)
	}
	if err := rows.check(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6d6c70))
	m := newModel(rows.sparse, rows.dense, cfg)
	m.standardise(rows)
	for _, p := range []struct {
		w  []float32
		sd float64
	}{{m.s, initSparse}, {m.d, initDense}, {m.w2, initOut}} {
		for i := range p.w {
			p.w[i] = float32(rng.NormFloat64() * p.sd)
		}
	}
	f := newFitter(m, rows, cfg)
	f.steps = cfg.Epochs * ((rows.Len() + cfg.Batch - 1) / cfg.Batch)
	order := make([]int32, rows.Len())
	for i := range order {
		order[i] = int32(i)
	}
	for range cfg.Epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for s := 0; s < len(order); s += cfg.Batch {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			f.step(order[s:min(s+cfg.Batch, len(order))])
		}
	}
	m.prepare()
	return m, nil
}

// standardise sets the dense inputs' means and standard deviations from
// the rows (weighted as they are).
func (m *Model) standardise(r *Rows) {
	wsum := 0.0
	for _, w := range r.weight {
		wsum += float64(w)
	}
	for j := range m.dense {
		s, s2 := 0.0, 0.0
		for i, w := range r.weight {
			x := float64(r.x[i*r.dense+j])
			s += float64(float64(w) * x)
			s2 += float64(float64(w) * x * x)
		}
		mu := s / wsum
		m.mu[j] = float32(mu)
		sd := math.Sqrt(max(s2/wsum-mu*mu, 0))
		if sd < minSD { // constant in the rows: scaling would magnify what the rows never showed
			sd = 1
		}
		m.sd[j] = float32(sd)
	}
}

// fitter holds a fit's gradients and Adam's moments.
type fitter struct {
	m      *Model
	rows   *Rows
	cfg    Config
	shards []*grad
	sum    *grad // the shards' gradients summed (shard 0's)
	// Adam's first and second moments, per parameter array (s, d, b1,
	// w2, b2) and the step count.
	ms, vs [5][]float32
	t      int
	steps  int // the fit's steps in all (Config.Anneal's schedule)
	// zd is the dense inputs standardised, row after row.
	zd []float32
}

// grad is one shard's gradient of the loss summed over its rows.
type grad struct {
	s, d, b1, w2 []float32
	b2           []float32 // one
	touched      []uint32  // sparse columns with a gradient (s's rows), once each
	mark         []bool    // per sparse column: in touched
	pre, hid     []float32
}

func newFitter(m *Model, rows *Rows, cfg Config) *fitter {
	f := &fitter{m: m, rows: rows, cfg: cfg}
	h := m.hidden
	for range cfg.Shards {
		f.shards = append(f.shards, &grad{s: make([]float32, len(m.s)), d: make([]float32, len(m.d)),
			b1: make([]float32, h), w2: make([]float32, h), b2: make([]float32, 1), mark: make([]bool, m.sparse),
			pre: make([]float32, h), hid: make([]float32, h)})
	}
	f.sum = f.shards[0]
	for i, p := range f.params() {
		f.ms[i], f.vs[i] = make([]float32, len(p)), make([]float32, len(p))
	}
	f.zd = make([]float32, len(rows.x))
	for i := range rows.Len() {
		for j := range m.dense {
			f.zd[i*m.dense+j] = (rows.x[i*m.dense+j] - m.mu[j]) / m.sd[j]
		}
	}
	return f
}

// params are the model's parameter arrays in the order of fitter.ms.
func (f *fitter) params() [5][]float32 {
	m := f.m
	return [5][]float32{m.s, m.d, m.b1, m.w2, m.b2}
}

// step takes one Adam step on the minibatch of rows idx.
func (f *fitter) step(idx []int32) {
	n := len(idx)
	var wg sync.WaitGroup
	for k, g := range f.shards {
		lo, hi := k*n/len(f.shards), (k+1)*n/len(f.shards)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.shardGrad(g, idx[lo:hi])
		}()
	}
	wg.Wait()
	f.reduce()
	wsum := float32(0)
	for _, i := range idx {
		wsum += f.rows.weight[i]
	}
	if wsum == 0 {
		f.clearSum()
		return
	}
	f.t++
	lr := f.cfg.LearningRate
	if f.cfg.Anneal {
		lr *= 1 - float64(f.t-1)/float64(f.steps) // linearly to nothing at the last step
	}
	alpha := float32(lr * math.Sqrt(1-math.Pow(beta2, float64(f.t))) / (1 - math.Pow(beta1, float64(f.t))))
	inv := 1 / wsum
	l2 := float32(f.cfg.L2)
	h := f.m.hidden
	g := f.sum
	p := f.params()
	for _, c := range g.touched {
		lo := int(c) * h
		adam(p[0][lo:lo+h], g.s[lo:lo+h], f.ms[0][lo:lo+h], f.vs[0][lo:lo+h], inv, l2, alpha)
	}
	adam(p[1], g.d, f.ms[1], f.vs[1], inv, l2, alpha)
	adam(p[2], g.b1, f.ms[2], f.vs[2], inv, 0, alpha)
	adam(p[3], g.w2, f.ms[3], f.vs[3], inv, l2, alpha)
	adam(p[4], g.b2, f.ms[4], f.vs[4], inv, 0, alpha)
	f.clearSum()
}

// adam moves w by one Adam step of gradient g·inv plus the decay l2·w.
// Here and in every sum of products of the fit, a product is rounded
// (converted) before it is added, so that no platform fuses the two: a
// fit gives the same bits everywhere.
func adam(w, g, m, v []float32, inv, l2, alpha float32) {
	for i := range w {
		gi := float32(g[i]*inv) + float32(l2*w[i])
		m[i] = float32(beta1*m[i]) + float32((1-beta1)*gi)
		v[i] = float32(beta2*v[i]) + float32((1-beta2)*gi*gi)
		w[i] -= alpha * m[i] / (float32(math.Sqrt(float64(v[i]))) + adamEps)
	}
}

// shardGrad sums the loss's gradient over rows idx into g (cleared
// before: by clearSum for the sum, by reduce for the others).
func (f *fitter) shardGrad(g *grad, idx []int32) {
	m, r := f.m, f.rows
	h := m.hidden
	for _, i := range idx {
		w := r.weight[i]
		if w == 0 {
			continue
		}
		cols, counts, _ := r.row(int(i))
		zd := f.zd[int(i)*m.dense : (int(i)+1)*m.dense]
		pre, hid := g.pre, g.hid
		copy(pre, m.b1)
		for j, c := range cols {
			x, row := counts[j], m.s[int(c)*h:int(c)*h+h]
			for k := range pre {
				pre[k] += float32(x * row[k])
			}
		}
		for j, x := range zd {
			if x == 0 {
				continue
			}
			row := m.d[j*h : j*h+h]
			for k := range pre {
				pre[k] += float32(x * row[k])
			}
		}
		z := m.b2[0]
		for k, x := range pre {
			hid[k] = max(x, 0)
			z += float32(hid[k] * m.w2[k])
		}
		// d(loss)/dz for the cross-entropy of sigmoid(z) and the target.
		e := w * (float32(sigmoid(float64(z))) - r.target[i])
		g.b2[0] += e
		for k := range pre {
			g.w2[k] += float32(e * hid[k])
			if pre[k] > 0 {
				pre[k] = e * m.w2[k] // the gradient at pre_k, in place
			} else {
				pre[k] = 0
			}
			g.b1[k] += pre[k]
		}
		for j, c := range cols {
			if !g.mark[c] {
				g.mark[c] = true
				g.touched = append(g.touched, c)
			}
			x, gr := counts[j], g.s[int(c)*h:int(c)*h+h]
			for k := range gr {
				gr[k] += float32(x * pre[k])
			}
		}
		for j, x := range zd {
			if x == 0 {
				continue
			}
			gr := g.d[j*h : j*h+h]
			for k := range gr {
				gr[k] += float32(x * pre[k])
			}
		}
	}
}

// reduce adds the other shards' gradients into the sum, in shard order,
// and clears them.
func (f *fitter) reduce() {
	h := f.m.hidden
	sum := f.sum
	for _, g := range f.shards[1:] {
		for _, c := range g.touched {
			if !sum.mark[c] {
				sum.mark[c] = true
				sum.touched = append(sum.touched, c)
			}
			lo := int(c) * h
			add(sum.s[lo:lo+h], g.s[lo:lo+h])
			g.mark[c] = false
		}
		g.touched = g.touched[:0]
		add(sum.d, g.d)
		add(sum.b1, g.b1)
		add(sum.w2, g.w2)
		add(sum.b2, g.b2)
	}
}

// add adds src into dst and clears src.
func add(dst, src []float32) {
	for i, x := range src {
		dst[i] += x
		src[i] = 0
	}
}

// clearSum clears the summed gradient for the next step.
func (f *fitter) clearSum() {
	g := f.sum
	h := f.m.hidden
	for _, c := range g.touched {
		clear(g.s[int(c)*h : int(c)*h+h])
		g.mark[c] = false
	}
	g.touched = g.touched[:0]
	clear(g.d)
	clear(g.b1)
	clear(g.w2)
	clear(g.b2)
}
