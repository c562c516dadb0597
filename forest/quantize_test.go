package forest

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// slowBin is the spec of binOf: count the edges <= x.
func slowBin(edges []float64, x float64) int {
	n := 0
	for _, e := range edges {
		if e <= x {
			n++
		}
	}
	return n
}

func TestBinOfMatchesSlowTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		vals := make([]float64, 1+rng.IntN(3000))
		for i := range vals {
			switch trial % 3 {
			case 0:
				vals[i] = rng.NormFloat64()
			case 1:
				vals[i] = float64(rng.IntN(1 + trial))
			default:
				vals[i] = math.Round(rng.ExpFloat64()*4) / 4
			}
		}
		if trial%7 == 0 {
			vals[0] = math.NaN()
		}
		bins := 2 + rng.IntN(255)
		edges := binEdges(func(i int) float64 { return vals[i] }, len(vals), bins, nil)
		if len(edges) > bins-1 || !slices.IsSorted(edges) || len(slices.Compact(slices.Clone(edges))) != len(edges) {
			t.Fatalf("trial %d: %d bins gave bad edges %v", trial, bins, edges)
		}
		for _, x := range append(vals, math.Inf(-1), math.Inf(1), math.NaN()) {
			got, want := int(binOf(edges, x)), slowBin(edges, x)
			if math.IsNaN(x) {
				want = len(edges)
			}
			if got != want {
				t.Fatalf("trial %d: binOf(%v) = %d, want %d", trial, x, got, want)
			}
		}
	}
}

func TestBinEdgesKeepSmallDomains(t *testing.T) {
	vals := []float64{3, 0, 1, 3, 2, 2, 0}
	edges := binEdges(func(i int) float64 { return vals[i] }, len(vals), 4, nil)
	if want := []float64{1, 2, 3}; !slices.Equal(edges, want) {
		t.Fatalf("edges %v, want %v", edges, want)
	}
}

func weightOf(ts *trainSet, r int32) float64 { return ts.weights[r] }

// slowGain is the textbook weighted Gini decrease W·G(parent) − WL·G(L) −
// WR·G(R), G = 1 − Σ p², recomputed from the rows.
func slowGain(ts *trainSet, b *builder, f, bin, minLeaf int) (gain float64, ok bool) {
	k := ts.k
	l, r := make([]float64, k), make([]float64, k)
	var lc, rc int
	for _, ir := range b.rows {
		w := float64(b.mult[ir.r]) * weightOf(ts, ir.r)
		if int(ts.bins[f*ts.n+int(ir.r)]) <= bin {
			l[ts.labels[ir.r]] += w
			lc += int(b.mult[ir.r])
		} else {
			r[ts.labels[ir.r]] += w
			rc += int(b.mult[ir.r])
		}
	}
	if lc < minLeaf || rc < minLeaf {
		return 0, false
	}
	impurity := func(v []float64) (w, g float64) {
		for _, x := range v {
			w += x
		}
		g = 1
		for _, x := range v {
			g -= (x / w) * (x / w)
		}
		return w, g
	}
	p := make([]float64, k)
	for c := range p {
		p[c] = l[c] + r[c]
	}
	wp, gp := impurity(p)
	wl, gl := impurity(l)
	wr, gr := impurity(r)
	return wp*gp - wl*gl - wr*gr, true
}

// TestScanMatchesSlowTwin checks the histogram split search of every
// feature of a weighted three-class bootstrap sample against slowGain.
func TestScanMatchesSlowTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, p := 1500, 6
	X := mat.NewDense(n, p, nil)
	labels := make([]int, n)
	weights := make([]float64, n)
	for i := range n {
		for f := range p {
			X.Set(i, f, math.Round(rng.NormFloat64()*float64(1+f*3)))
		}
		labels[i] = rng.IntN(3)
		if X.At(i, 0) > 0 {
			labels[i] = 2
		}
		weights[i] = float64(rng.IntN(4)) * 0.5
	}
	cfg := DefaultConfig()
	cfg.Bins = 16
	cfg.MinLeaf = 20
	ts, err := newTrainSet(X, labels, weights, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.quantise(context.Background(), X, cfg.Bins, 2); err != nil {
		t.Fatal(err)
	}
	b := newBuilder(context.Background(), ts, cfg)
	b.rng = treeSource(cfg.Seed, 0)
	b.bootstrap()
	tot := make([]float64, ts.k)
	var cnt uint64
	for _, ir := range b.rows {
		tot[ts.labels[ir.r]] += float64(b.mult[ir.r]) * weightOf(ts, ir.r)
		cnt += uint64(b.mult[ir.r])
	}
	for f := range p {
		nb := len(ts.edges[f]) + 1
		b.histogram(f, nb, 0, len(b.rows))
		got := split{left: make([]float64, ts.k)}
		found := b.scan(f, nb, tot, cnt, &got)

		wantBin, wantGain := -1, 0.0
		for bin := range nb - 1 {
			if g, ok := slowGain(ts, b, f, bin, cfg.MinLeaf); ok && g > wantGain+1e-9 {
				wantBin, wantGain = bin, g
			}
		}
		if found != (wantBin >= 0) {
			t.Fatalf("feature %d: scan found %v, slow twin bin %d", f, found, wantBin)
		}
		if found && (math.Abs(got.gain-wantGain) > 1e-9*wantGain || ts.edges[f][got.bin] != ts.edges[f][wantBin]) {
			t.Fatalf("feature %d: scan bin %d gain %v, slow twin bin %d gain %v", f, got.bin, got.gain, wantBin, wantGain)
		}
	}
}
