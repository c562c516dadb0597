package forest

import (
	"maps"
	"math"
	"slices"
)

// Model is a fitted forest. It is read-only after Fit or Load returns, so
// any number of goroutines may call its methods concurrently.
type Model struct {
	cfg       Config // Workers 0, FeatureNames and Meta nil (see names, meta)
	names     []string
	meta      map[string]string // nil when there is none
	nFeatures int
	nClasses  int
	roots     []int32   // per tree: index of its root in nodes
	nodes     []node    // walking form, see prepare
	leafOf    []int32   // per node: its leaf index, or -1 for an inner node
	depth     int       // the deepest leaf's depth
	leaves    []float32 // nClasses probabilities per leaf
}

// node is one node of the flat forest. An inner node sends x to child when
// x[feature] < thr and to child+1 otherwise (NaN goes right). In the file
// form a leaf has feature -1 and its probabilities at
// leaves[child*nClasses:]; prepare turns it into the walking form.
type node struct {
	feature int32
	child   int32
	thr     float64
}

// assemble concatenates the trees into one Model.
func assemble(cfg Config, p, k int, trees []tree) *Model {
	m := &Model{nFeatures: p, nClasses: k, roots: make([]int32, len(trees))}
	m.names = slices.Clone(cfg.FeatureNames)
	if len(cfg.Meta) > 0 {
		m.meta = maps.Clone(cfg.Meta)
	}
	cfg.Workers, cfg.FeatureNames, cfg.Meta = 0, nil, nil
	m.cfg = cfg
	for t, tr := range trees {
		tr = breadthFirst(tr)
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
	m.prepare()
	return m
}

// prepare turns the nodes from the file form into the walking form: a leaf
// i becomes {feature 0, thr NaN, child i-1}, so every x goes "right" to i
// itself and a walk may take a fixed m.depth steps without testing for
// leaves; its leaf index moves to leafOf. The nodes must be checked (each
// child after its parent).
func (m *Model) prepare() {
	m.leafOf = make([]int32, len(m.nodes))
	depth := make([]int, len(m.nodes)) // roots are nobody's child: depth 0
	m.depth = 0
	for i := range m.nodes {
		nd := &m.nodes[i]
		if nd.feature < 0 {
			m.leafOf[i] = nd.child
			m.depth = max(m.depth, depth[i])
			*nd = node{feature: 0, child: int32(i) - 1, thr: math.NaN()}
			continue
		}
		m.leafOf[i] = -1
		depth[nd.child], depth[nd.child+1] = depth[i]+1, depth[i]+1
	}
}

// fileNode returns node i in the file form.
func (m *Model) fileNode(i int) node {
	if l := m.leafOf[i]; l >= 0 {
		return node{feature: -1, child: l}
	}
	return m.nodes[i]
}

// breadthFirst renumbers the nodes of tr level by level (children stay in
// pairs, after their parent), so the top levels of every tree share a few
// cache lines and stay cached across predictions.
func breadthFirst(tr tree) tree {
	out := tree{
		feat:  make([]int32, 0, len(tr.feat)),
		thr:   make([]float64, 0, len(tr.thr)),
		child: make([]int32, 0, len(tr.child)),
		probs: tr.probs,
	}
	queue := []int32{0} // old indices, in new order
	for head := 0; head < len(queue); head++ {
		old := queue[head]
		out.feat = append(out.feat, tr.feat[old])
		out.thr = append(out.thr, tr.thr[old])
		c := tr.child[old]
		if tr.feat[old] >= 0 {
			queue = append(queue, c, c+1)
			c = int32(len(queue) - 2)
		}
		out.child = append(out.child, c)
	}
	return out
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

// Meta returns a copy of the metadata saved with the model (Config.Meta),
// or nil if it has none (always for a version-1 file).
func (m *Model) Meta() map[string]string { return maps.Clone(m.meta) }

// Config returns the configuration the model was fitted with (Workers is
// 0; FeatureNames and Meta as their methods return them).
func (m *Model) Config() Config {
	c := m.cfg
	c.FeatureNames = m.FeatureNames()
	c.Meta = m.Meta()
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
	m.leaves8(x, func(leaf int32) {
		for c, p := range m.leaves[int(leaf)*k : int(leaf)*k+k] {
			out[c] += float64(p)
		}
	})
	inv := 1 / float64(len(m.roots))
	for c := range out {
		out[c] *= inv
	}
}

// PredictClass1 returns the probability of class 1 for x, the hot path of
// a binary model (no allocation). It panics if len(x) < NumFeatures().
// Guarded by BenchmarkPredictClass1.
func (m *Model) PredictClass1(x []float64) float64 {
	k := m.nClasses
	_ = x[m.nFeatures-1]
	var s float64
	m.leaves8(x, func(leaf int32) {
		s += float64(m.leaves[int(leaf)*k+1])
	})
	return s / float64(len(m.roots))
}

// lanes is how many trees leaves8 walks at once.
const lanes = 8

// leaves8 calls visit with x's leaf index in every tree, in tree order.
// It walks lanes trees in lockstep for a fixed m.depth steps (leaves point
// to themselves, see prepare) with no data-dependent branch, so the node
// loads of different trees overlap instead of queueing behind cache misses
// and branch mispredictions: several times faster than one tree after
// another (leaf).
func (m *Model) leaves8(x []float64, visit func(leaf int32)) {
	roots := m.roots
	nodes := m.nodes
	for len(roots) >= lanes {
		var at [lanes]int32
		copy(at[:], roots)
		for range m.depth {
			for j := range at {
				nd := &nodes[at[j]]
				var right int32 // branch-free: the compiler emits SETcc
				if !(x[nd.feature] < nd.thr) {
					right = 1
				}
				at[j] = nd.child + right
			}
		}
		for _, i := range at {
			visit(m.leafOf[i])
		}
		roots = roots[lanes:]
	}
	for _, r := range roots {
		visit(m.leaf(r, x))
	}
}

// leaf walks the tree rooted at r and returns x's leaf index. It is the
// plain walk that leaves8 must agree with.
func (m *Model) leaf(r int32, x []float64) int32 {
	i := r
	for m.leafOf[i] < 0 {
		nd := &m.nodes[i]
		i = nd.child
		if !(x[nd.feature] < nd.thr) {
			i++
		}
	}
	return m.leafOf[i]
}
