package forest

import (
	"context"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchFeatures is about the width of the gomoku feature vector.
const benchFeatures = 40

var benchData = struct {
	sync.Mutex
	sets map[int]benchSet
}{sets: map[int]benchSet{}}

type benchSet struct {
	X      *mat.Dense
	labels []int
}

// benchRows returns synth(n rows), built once per process.
func benchRows(n int) benchSet {
	benchData.Lock()
	defer benchData.Unlock()
	s, ok := benchData.sets[n]
	if !ok {
		X, labels := synth(uint64(n), n, benchFeatures)
		s = benchSet{X, labels}
		benchData.sets[n] = s
	}
	return s
}

func benchmarkFit(b *testing.B, n int) {
	s := benchRows(n)
	cfg := DefaultConfig() // 64 trees, depth 12, all CPUs
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Fit(context.Background(), s.X, s.labels, nil, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/fit")
}

// BenchmarkFit100k fits the default forest on 100,000 rows × 40 features.
func BenchmarkFit100k(b *testing.B) { benchmarkFit(b, 100_000) }

// BenchmarkFit1M fits the default forest on 1,000,000 rows × 40 features
// (design target: at most 2 minutes on 2 cores). One iteration takes long;
// run it with -benchtime=1x.
func BenchmarkFit1M(b *testing.B) { benchmarkFit(b, 1_000_000) }

func benchModel(b *testing.B) (*Model, *mat.Dense) {
	s := benchRows(100_000)
	m, err := Fit(context.Background(), s.X, s.labels, nil, DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	Xt, _ := synth(99, 4096, benchFeatures)
	return m, Xt
}

// BenchmarkPredict is one row through the default forest (64 trees, depth
// 12) with PredictInto; target at most 10 µs, aim about 1 µs.
func BenchmarkPredict(b *testing.B) {
	m, Xt := benchModel(b)
	out := make([]float64, m.Classes())
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		m.PredictInto(Xt.RawRowView(i&4095), out)
		i++
	}
}

// BenchmarkPredictClass1 is the binary hot path of BenchmarkPredict.
func BenchmarkPredictClass1(b *testing.B) {
	m, Xt := benchModel(b)
	b.ReportAllocs()
	b.ResetTimer()
	var s float64
	i := 0
	for b.Loop() {
		s += m.PredictClass1(Xt.RawRowView(i & 4095))
		i++
	}
	_ = s
}
