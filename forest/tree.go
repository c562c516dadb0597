package forest

import (
	"context"
	"math/rand/v2"

	"ocvist/internal/splitmix"
)

// trainSet is the quantised training data, shared read-only by the trees.
type trainSet struct {
	n, p, k int
	edges   [][]float64 // per feature: bin edges, see binEdges
	bins    []uint8     // column-major: bins[f*n+i] = binOf(edges[f], X[i,f])
	labels  []uint8     // per row
	weights []float64   // per row, the caller's sample weights (nil: all 1)
	active  []int32     // rows with non-zero weight, ascending
}

func (ts *trainSet) weight(r int32) float64 {
	if ts.weights == nil {
		return 1
	}
	return ts.weights[r]
}

// tree is one fitted tree in flat form. Node 0 is the root. An inner node i
// sends x left to child[i] when x[feat[i]] < thr[i] and right to child[i]+1;
// a leaf has feat[i] == -1 and child[i] indexing its k probabilities in probs.
type tree struct {
	feat  []int32
	thr   []float64
	child []int32
	probs []float32
}

// inRow is an in-bag row with what the histograms need, so that the hot
// loop streams through rows and touches only one bin column at random.
type inRow struct {
	w  float64 // multiplicity × sample weight
	r  int32   // row index
	ml uint32  // multiplicity<<8 | label
}

const maxMult = 1<<24 - 1 // multiplicities saturate here (never in practice)

func (ir inRow) label() int   { return int(ir.ml & 0xff) }
func (ir inRow) mult() uint64 { return uint64(ir.ml >> 8) }

// builder grows trees one at a time; each worker owns one, so its scratch
// space is reused without locking.
type builder struct {
	ctx  context.Context
	ts   *trainSet
	cfg  Config
	mtry int
	rng  *rand.Rand
	err  error

	mult    []uint32 // per row: bootstrap multiplicity (zero between trees)
	rows    []inRow  // in-bag rows, ascending; a node owns rows[lo:hi]
	scratch []inRow
	hist    []float64 // per bin and class: weight
	hcnt    []uint64  // per bin: multiplicity
	perm    []int     // feature order, shuffled in place
	lw      []float64 // scan: left class weights

	out tree
}

func newBuilder(ctx context.Context, ts *trainSet, cfg Config) *builder {
	b := &builder{
		ctx:  ctx,
		ts:   ts,
		cfg:  cfg,
		mtry: cfg.featuresPerSplit(ts.p),
		mult: make([]uint32, ts.n),
		hist: make([]float64, cfg.Bins*ts.k),
		hcnt: make([]uint64, cfg.Bins),
		perm: make([]int, ts.p),
		lw:   make([]float64, ts.k),
	}
	return b
}

// treeSource returns the random source of tree t: a PCG seeded with the
// forest seed and a SplitMix64 scramble of t, so trees are independent of
// each other and of the order in which workers build them.
func treeSource(seed int64, t int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), splitmix.Mix(uint64(t)+splitmix.Golden)))
}

// build grows tree t. It returns the tree or the context's error.
func (b *builder) build(t int) (tree, error) {
	b.rng = treeSource(b.cfg.Seed, t)
	b.out = tree{}
	for f := range b.perm { // a tree must not depend on the previous one
		b.perm[f] = f
	}
	b.bootstrap()
	k := b.ts.k
	tot := make([]float64, k)
	var cnt uint64
	for _, ir := range b.rows {
		tot[ir.label()] += ir.w
		cnt += ir.mult()
	}
	b.newNodes(1)
	b.grow(0, 0, len(b.rows), 0, tot, cnt)
	for _, ir := range b.rows { // leave mult zero for the next tree
		b.mult[ir.r] = 0
	}
	if b.err != nil {
		return tree{}, b.err
	}
	return b.out, nil
}

// bootstrap draws the tree's sample with replacement from the active rows
// and lists the in-bag rows in ascending order.
func (b *builder) bootstrap() {
	act := b.ts.active
	m := max(1, int(b.cfg.SampleFraction*float64(len(act))+0.5))
	for range m {
		if r := act[b.rng.IntN(len(act))]; b.mult[r] < maxMult {
			b.mult[r]++
		}
	}
	b.rows = b.rows[:0]
	for _, r := range act {
		if mu := b.mult[r]; mu > 0 {
			b.rows = append(b.rows, inRow{
				w:  float64(mu) * b.ts.weight(r),
				r:  r,
				ml: mu<<8 | uint32(b.ts.labels[r]),
			})
		}
	}
}

func (b *builder) newNodes(n int) int32 {
	i := int32(len(b.out.feat))
	for range n {
		b.out.feat = append(b.out.feat, -1)
		b.out.thr = append(b.out.thr, 0)
		b.out.child = append(b.out.child, 0)
	}
	return i
}

// grow fills node from rows[lo:hi], whose class weights are tot and whose
// total multiplicity is cnt, splitting while depth and MinLeaf allow.
func (b *builder) grow(node int32, lo, hi, depth int, tot []float64, cnt uint64) {
	if b.err != nil {
		return
	}
	if err := b.ctx.Err(); err != nil {
		b.err = err
		return
	}
	minLeaf := uint64(b.cfg.MinLeaf)
	if depth >= b.cfg.MaxDepth || cnt < 2*minLeaf || pure(tot) {
		b.leaf(node, tot)
		return
	}
	s, ok := b.bestSplit(lo, hi, tot, cnt)
	if !ok {
		b.leaf(node, tot)
		return
	}
	mid := b.partition(lo, hi, s.feat, s.bin)
	c := b.newNodes(2)
	b.out.feat[node] = int32(s.feat)
	b.out.thr[node] = b.ts.edges[s.feat][s.bin]
	b.out.child[node] = c
	right := make([]float64, len(tot))
	for i := range tot {
		right[i] = max(0, tot[i]-s.left[i]) // weights subtracted may leave -1e-16
	}
	b.grow(c, lo, mid, depth+1, s.left, s.leftCnt)
	b.grow(c+1, mid, hi, depth+1, right, cnt-s.leftCnt)
}

func pure(tot []float64) bool {
	seen := 0
	for _, v := range tot {
		if v > 0 {
			seen++
		}
	}
	return seen <= 1
}

func (b *builder) leaf(node int32, tot []float64) {
	var sum float64
	for i, v := range tot {
		tot[i] = max(0, v)
		sum += tot[i]
	}
	b.out.feat[node] = -1
	b.out.child[node] = int32(len(b.out.probs) / len(tot))
	for _, v := range tot {
		b.out.probs = append(b.out.probs, float32(v/sum))
	}
}

// split is a candidate split: rows with bin <= bin go left.
type split struct {
	feat, bin int
	gain      float64
	left      []float64
	leftCnt   uint64
}

// bestSplit tries mtry randomly chosen features that are not constant in
// the node (more if some are) and returns the split with the largest Gini
// gain, if any has positive gain. Ties keep the first found.
func (b *builder) bestSplit(lo, hi int, tot []float64, cnt uint64) (split, bool) {
	best := split{left: make([]float64, len(tot))}
	found := false
	p := b.ts.p
	for i, tried := 0, 0; i < p && tried < b.mtry; i++ {
		j := i + b.rng.IntN(p-i)
		b.perm[i], b.perm[j] = b.perm[j], b.perm[i]
		f := b.perm[i]
		nb := len(b.ts.edges[f]) + 1
		if nb < 2 {
			continue
		}
		b.histogram(f, nb, lo, hi)
		if b.hcnt[b.firstBin(nb)] == cnt {
			continue // constant in this node
		}
		tried++
		if b.scan(f, nb, tot, cnt, &best) {
			found = true
		}
	}
	return best, found
}

func (b *builder) firstBin(nb int) int {
	for i := range nb {
		if b.hcnt[i] > 0 {
			return i
		}
	}
	return 0
}

// histogram accumulates the class weights and multiplicities of
// rows[lo:hi] per bin of feature f. This is the hot loop of Fit
// (BenchmarkFit100k, BenchmarkFit1M).
func (b *builder) histogram(f, nb, lo, hi int) {
	k := b.ts.k
	h := b.hist[:nb*k]
	hc := b.hcnt[:nb]
	clear(h)
	clear(hc)
	col := b.ts.bins[f*b.ts.n : (f+1)*b.ts.n]
	for _, ir := range b.rows[lo:hi] {
		bin := int(col[ir.r])
		h[bin*k+ir.label()] += ir.w
		hc[bin] += ir.mult()
	}
}

// scan walks the split points of feature f's histogram and records in best
// any split better than best. It reports whether it did. Hot (once per
// feature per node of every tree) and kept in one piece: the running sums
// are its state. Guarded by BenchmarkFit100k.
func (b *builder) scan(f, nb int, tot []float64, cnt uint64, best *split) bool {
	k := len(tot)
	minLeaf := uint64(b.cfg.MinLeaf)
	var wTot float64
	for _, v := range tot {
		wTot += v
	}
	parent := sumSq(tot) / wTot
	lw := b.lw
	clear(lw)
	var lc uint64
	improved := false
	for bin := 0; bin < nb-1; bin++ {
		if b.hcnt[bin] == 0 {
			continue
		}
		lc += b.hcnt[bin]
		for c := range k {
			lw[c] += b.hist[bin*k+c]
		}
		if lc < minLeaf {
			continue
		}
		if cnt-lc < minLeaf {
			break
		}
		var wl, sl, sr float64
		for c := range k {
			wl += lw[c]
			sl += lw[c] * lw[c]
			rc := tot[c] - lw[c]
			sr += rc * rc
		}
		wr := wTot - wl
		if wl <= 0 || wr <= 0 {
			continue
		}
		gain := sl/wl + sr/wr - parent
		if gain > 1e-12*wTot && gain > best.gain {
			best.feat, best.bin, best.gain, best.leftCnt = f, bin, gain, lc
			copy(best.left, lw)
			improved = true
		}
	}
	return improved
}

// partition reorders rows[lo:hi] stably so that rows whose bin of f is
// <= bin come first, and returns where the others start. Keeping the rows
// ascending keeps histogram's column reads local.
func (b *builder) partition(lo, hi, f, bin int) int {
	col := b.ts.bins[f*b.ts.n : (f+1)*b.ts.n]
	s := b.scratch[:0]
	i := lo
	for _, ir := range b.rows[lo:hi] {
		if int(col[ir.r]) <= bin {
			b.rows[i] = ir
			i++
		} else {
			s = append(s, ir)
		}
	}
	copy(b.rows[i:hi], s)
	b.scratch = s
	return i
}

func sumSq(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}
