package forest

import "slices"

// Model is a fitted forest. It is read-only after Fit or Load returns, so
// any number of goroutines may call its methods concurrently.
type Model struct {
	cfg       Config // Workers 0, FeatureNames nil (see names)
	names     []string
	nFeatures int
	nClasses  int
	roots     []int32 // per tree: index of its root in nodes
	nodes     []node
	leaves    []float32 // nClasses probabilities per leaf
}

// node is one node of the flat forest. An inner node sends x to child when
// x[feature] < thr and to child+1 otherwise (NaN goes right); a leaf has
// feature -1 and its probabilities at leaves[child*nClasses:].
type node struct {
	feature int32
	child   int32
	thr     float64
}

// assemble concatenates the trees into one Model.
func assemble(cfg Config, p, k int, trees []tree) *Model {
	m := &Model{nFeatures: p, nClasses: k, roots: make([]int32, len(trees))}
	m.names = slices.Clone(cfg.FeatureNames)
	cfg.Workers, cfg.FeatureNames = 0, nil
	m.cfg = cfg
	for t, tr := range trees {
		base := int32(len(m.nodes))
		leafBase := int32(len(m.leaves) / k)
		m.roots[t] = base
		for i, f := range tr.feat {
			nd := node{feature: f, thr: tr.thr[i], child: tr.child[i]}
			if f < 0 {
				nd.child += leafBase
			} else {
				nd.child += base
			}
			m.nodes = append(m.nodes, nd)
		}
		m.leaves = append(m.leaves, tr.probs...)
	}
	return m
}

// NumFeatures returns the number of features a row must have.
func (m *Model) NumFeatures() int { return m.nFeatures }

// Classes returns the number of classes K; Predict returns K probabilities.
func (m *Model) Classes() int { return m.nClasses }

// NumTrees returns the number of trees.
func (m *Model) NumTrees() int { return len(m.roots) }

// NumNodes returns the total number of nodes in all trees.
func (m *Model) NumNodes() int { return len(m.nodes) }

// FeatureNames returns a copy of the feature names saved with the model, or
// nil if it has none.
func (m *Model) FeatureNames() []string { return slices.Clone(m.names) }

// Config returns the configuration the model was fitted with (Workers is
// 0; FeatureNames as in FeatureNames).
func (m *Model) Config() Config {
	c := m.cfg
	c.FeatureNames = m.FeatureNames()
	return c
}

// Predict returns the K class probabilities of the row x of raw feature
// values (the mean of the trees' leaf distributions). It panics if
// len(x) < NumFeatures(). Use PredictInto or PredictClass1 to avoid the
// allocation.
func (m *Model) Predict(x []float64) []float64 {
	out := make([]float64, m.nClasses)
	m.PredictInto(x, out)
	return out
}

// PredictInto writes the K class probabilities of x into out[:K] without
// allocating. It panics if len(x) < NumFeatures() or len(out) < Classes().
// Guarded by BenchmarkPredict.
func (m *Model) PredictInto(x []float64, out []float64) {
	k := m.nClasses
	out = out[:k]
	_ = x[m.nFeatures-1]
	clear(out)
	for _, r := range m.roots {
		leaf := int(m.leaf(r, x)) * k
		for c, p := range m.leaves[leaf : leaf+k] {
			out[c] += float64(p)
		}
	}
	inv := 1 / float64(len(m.roots))
	for c := range out {
		out[c] *= inv
	}
}

// PredictClass1 returns the probability of class 1 for x, the hot path of
// a binary model (no allocation). It panics if len(x) < NumFeatures().
// Guarded by BenchmarkPredict.
func (m *Model) PredictClass1(x []float64) float64 {
	k := int32(m.nClasses)
	_ = x[m.nFeatures-1]
	var s float64
	for _, r := range m.roots {
		s += float64(m.leaves[int(m.leaf(r, x)*k+1)])
	}
	return s / float64(len(m.roots))
}

// leaf walks the tree rooted at r and returns x's leaf index.
func (m *Model) leaf(r int32, x []float64) int32 {
	nd := &m.nodes[r]
	for nd.feature >= 0 {
		next := nd.child
		if !(x[nd.feature] < nd.thr) {
			next++
		}
		nd = &m.nodes[next]
	}
	return nd.child
}
