package mlp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradient: the fit's gradient (shardGrad) of the weighted
// cross-entropy over a few rows is the loss's numerical derivative, for
// every weight of every parameter array.
func TestGradient(t *testing.T) {
	rows := randRows(11, 12, 9, 3, 4)
	cfg := Config{Hidden: 6, Epochs: 1, Batch: 12, LearningRate: 1e-2, Shards: 1, Seed: 5}
	m := newModel(rows.sparse, rows.dense, cfg)
	m.standardise(rows)
	f := newFitter(m, rows, cfg)
	rng := rand.New(rand.NewPCG(9, 9))
	for _, p := range f.params() {
		for i := range p {
			p[i] = float32(rng.NormFloat64() * 0.5)
		}
	}
	idx := make([]int32, rows.Len())
	for i := range idx {
		idx[i] = int32(i)
	}
	g := f.shards[0]
	f.shardGrad(g, idx)
	grads := [5][]float32{g.s, g.d, g.b1, g.w2, g.b2}

	a := m.NewAcc()
	loss := func() float64 { // the weighted cross-entropy, as the search evaluates rows
		m.prepare()
		s := 0.0
		for i := range rows.Len() {
			cols, counts, x := rows.row(i)
			a.Start(x)
			for j, c := range cols {
				a.Add(int(c), counts[j])
			}
			p, y := a.Prob(), float64(rows.target[i])
			s -= float64(rows.weight[i]) * (y*math.Log(p) + (1-y)*math.Log(1-p))
		}
		return s
	}
	// A rectifier's kink within eps of a weight leaves the loss without a
	// derivative there: its two one-sided slopes differ, and that weight is
	// not compared. A few weights are; the others must agree.
	const eps = 2e-3
	l0 := loss()
	compared, kinks := 0, 0
	for k, p := range f.params() {
		for i := range p {
			w := p[i]
			p[i] = w + eps
			up := loss()
			p[i] = w - eps
			down := loss()
			p[i] = w
			if math.Abs((up-l0)-(l0-down))/eps > 1e-2 {
				kinks++
				continue
			}
			compared++
			num := (up - down) / (2 * eps)
			if d := math.Abs(num - float64(grads[k][i])); d > 2e-3*max(1, math.Abs(num)) {
				t.Errorf("parameter array %d, weight %d: gradient %v, numerically %v", k, i, grads[k][i], num)
			}
		}
	}
	if want := len(m.s) + len(m.d) + len(m.b1) + len(m.w2) + 1; compared+kinks != want || kinks > want/10 {
		t.Errorf("%d weights compared and %d near a kink, of %d: want at most a tenth near a kink", compared, kinks, want)
	}
	t.Logf("%d weights compared, %d near a kink", compared, kinks)
}
