package mlp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpy: axpy, gonum's vector code on amd64, gives every element the
// same bits as axpyPortable, over lengths 0 to 70, every offset of the
// slices in a cache line (gonum's code trims y to 16 bytes first) and
// values of every scale, signs, zeros and subnormals among them.
func TestAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	val := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return math.Float32frombits(rng.Uint32N(1 << 23)) // subnormal
		default:
			return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-6)))
		}
	}
	n, differ := 0, 0
	for length := range 71 {
		for off := range 16 {
			for range 8 {
				x, y := make([]float32, off+length+3), make([]float32, off+length)
				for i := range x {
					x[i] = val()
				}
				for i := range y {
					y[i] = val()
				}
				a := val()
				want := append([]float32(nil), y[off:]...)
				axpyPortable(want, x[off:], a)
				got := y[off:]
				axpy(got, x[off:], a)
				for i := range got {
					n++
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						differ++
						if differ <= 3 {
							t.Errorf("length %d, offset %d, element %d: %v·%v: got %v, want %v", length, off, i, a, x[off+i], got[i], want[i])
						}
					}
				}
			}
		}
	}
	if differ > 0 || n != 16*8*70*71/2 {
		t.Errorf("%d of %d elements differ", differ, n)
	}
}

// BenchmarkAxpy is one row of 32 hidden units added to an accumulator:
// axpy (gonum's on amd64) beside axpyPortable.
func BenchmarkAxpy(b *testing.B) {
	x, y := make([]float32, 32*64), make([]float32, 32)
	for i := range x {
		x[i] = float32(i%7) * 0.1
	}
	for _, c := range []struct {
		name string
		f    func(y, x []float32, a float32)
	}{{"axpy", axpy}, {"portable", axpyPortable}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c.f(y, x[i%64*32:], 0.5)
				i++
			}
		})
	}
}
