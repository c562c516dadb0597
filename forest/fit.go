package forest

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// Fit trains a forest on the rows of X with class labels in 0..K-1 (K is
// the largest label plus one, at least 2, at most 256) and optional
// non-negative sample weights (nil means all 1; rows of weight 0 are
// skipped). Fit neither keeps nor modifies X, labels or weights.
//
// Each feature is quantised once into at most cfg.Bins bins; each tree is a
// Gini CART grown on histograms over its own bootstrap sample. The result
// depends only on the data and cfg without Workers: the same inputs give a
// byte-identical saved model for any Workers count.
//
// Fit runs up to cfg.Workers goroutines and waits for all of them before it
// returns. If ctx is cancelled it stops early and returns ctx's error.
func Fit(ctx context.Context, X *mat.Dense, labels []int, weights []float64, cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ts, err := newTrainSet(X, labels, weights, cfg)
	if err != nil {
		return nil, err
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := ts.quantise(ctx, X, cfg.Bins, workers); err != nil {
		return nil, fmt.Errorf("forest: fit: %w", err)
	}
	trees := make([]tree, cfg.Trees)
	builders := make([]*builder, min(workers, cfg.Trees))
	err = forEach(ctx, len(builders), cfg.Trees, func(w, t int) error {
		if builders[w] == nil {
			builders[w] = newBuilder(ctx, ts, cfg)
		}
		tr, err := builders[w].build(t)
		trees[t] = tr
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("forest: fit: %w", err)
	}
	return assemble(cfg, ts.p, ts.k, trees), nil
}

// newTrainSet checks the inputs and copies labels and weights.
func newTrainSet(X *mat.Dense, labels []int, weights []float64, cfg Config) (*trainSet, error) {
	if X == nil || X.IsEmpty() {
		return nil, fmt.Errorf("forest: fit: no rows")
	}
	n, p := X.Dims()
	if len(labels) != n {
		return nil, fmt.Errorf("forest: fit: %d labels for %d rows", len(labels), n)
	}
	if weights != nil && len(weights) != n {
		return nil, fmt.Errorf("forest: fit: %d weights for %d rows", len(weights), n)
	}
	if cfg.FeatureNames != nil && len(cfg.FeatureNames) != p {
		return nil, fmt.Errorf("forest: fit: %d feature names for %d columns", len(cfg.FeatureNames), p)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("forest: fit: %d rows, more than %d", n, math.MaxInt32)
	}
	ts := &trainSet{n: n, p: p, k: 2, labels: make([]uint8, n)}
	for i, l := range labels {
		if l < 0 || l >= maxClasses {
			return nil, fmt.Errorf("forest: fit: label %d of row %d out of range 0..%d", l, i, maxClasses-1)
		}
		ts.labels[i] = uint8(l)
		ts.k = max(ts.k, l+1)
	}
	if weights != nil {
		ts.weights = append([]float64(nil), weights...)
	}
	for i := range n {
		w := ts.weight(int32(i))
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("forest: fit: weight %v of row %d is not a finite non-negative number", w, i)
		}
		if w > 0 {
			ts.active = append(ts.active, int32(i))
		}
	}
	if len(ts.active) == 0 {
		return nil, fmt.Errorf("forest: fit: all weights are zero")
	}
	return ts, nil
}

// quantise computes every feature's bin edges and bin column.
func (ts *trainSet) quantise(ctx context.Context, X *mat.Dense, bins, workers int) error {
	raw := X.RawMatrix()
	ts.edges = make([][]float64, ts.p)
	ts.bins = make([]uint8, ts.n*ts.p)
	bufs := make([][]float64, min(workers, ts.p))
	return forEach(ctx, len(bufs), ts.p, func(w, f int) error {
		at := func(i int) float64 { return raw.Data[i*raw.Stride+f] }
		edges := binEdges(at, ts.n, bins, bufs[w])
		bufs[w] = bufs[w][:0]
		ts.edges[f] = edges
		col := ts.bins[f*ts.n : (f+1)*ts.n]
		for i := range col {
			col[i] = binOf(edges, at(i))
		}
		return nil
	})
}

// forEach calls fn(w, i) for every i in [0, n) from at most workers
// goroutines, w in [0, workers) naming the calling goroutine (so fn may keep
// per-goroutine scratch space). It stops handing out work after the first
// error or when ctx is done, waits for every goroutine, and returns the
// first error seen.
func forEach(ctx context.Context, workers, n int, fn func(w, i int) error) error {
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		mu      sync.Mutex
		firstEr error
		failed  atomic.Bool
	)
	for w := range max(1, min(workers, n)) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				err := ctx.Err()
				if err == nil {
					err = fn(w, i)
				}
				if err != nil {
					mu.Lock()
					if firstEr == nil {
						firstEr = err
					}
					mu.Unlock()
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return firstEr
}
