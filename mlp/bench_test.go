package mlp

import (
	"fmt"
	"testing"
)

// The value network's shape (package policy's value feature set 3): 5,526
// sparse columns, of which a position has about 60, and 31 dense inputs.
const (
	benchSparse  = 5526
	benchDense   = 31
	benchPerRow  = 60
	benchHeldOut = 256
)

// BenchmarkAcc is one row of the value network's shape through an Acc
// (Start, 60 Adds, Prob), at 32 and 64 hidden units.
func BenchmarkAcc(b *testing.B) {
	for _, h := range []int{32, 64} {
		b.Run(fmt.Sprintf("hidden%d", h), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Hidden, cfg.Epochs = h, 1
			m := mustFit(b, randRows(21, 2000, benchSparse, benchDense, benchPerRow), cfg)
			held := randRows(22, benchHeldOut, benchSparse, benchDense, benchPerRow)
			a := m.NewAcc()
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				cols, counts, dense := held.row(i % benchHeldOut)
				a.Start(dense)
				for j, c := range cols {
					a.Add(int(c), counts[j])
				}
				a.Prob()
				i++
			}
		})
	}
}

// BenchmarkFit fits the default network (32 hidden units, 6 epochs of
// minibatches of 256 in 4 shards) on 20,000 rows of the value network's
// shape; rows/s counts the rows of every epoch.
func BenchmarkFit(b *testing.B) {
	const n = 20_000
	rows := randRows(23, n, benchSparse, benchDense, benchPerRow)
	cfg := DefaultConfig()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		mustFit(b, rows, cfg)
	}
	b.ReportMetric(float64(n*cfg.Epochs*b.N)/b.Elapsed().Seconds(), "rows/s")
}
