package mlp

// axpyPortable adds a·x to y (len(x) >= len(y)), eight at a time: the
// same operations, in the same order for each element, as one at a time.
// The product is rounded before the sum (the conversion), so that no
// platform fuses them: a model's values are the same everywhere. It is
// axpy where gonum has no vector code (axpy_generic.go), and what
// TestAxpy holds gonum's to.
func axpyPortable(y, x []float32, a float32) {
	x = x[:len(y)]
	i := 0
	for ; i+8 <= len(y); i += 8 {
		yy, xx := y[i:i+8:i+8], x[i:i+8:i+8]
		yy[0] += float32(a * xx[0])
		yy[1] += float32(a * xx[1])
		yy[2] += float32(a * xx[2])
		yy[3] += float32(a * xx[3])
		yy[4] += float32(a * xx[4])
		yy[5] += float32(a * xx[5])
		yy[6] += float32(a * xx[6])
		yy[7] += float32(a * xx[7])
	}
	for ; i < len(y); i++ {
		y[i] += float32(a * x[i])
	}
}
