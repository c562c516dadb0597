//go:build !amd64 || noasm

package mlp

// axpy adds a·x to y (len(x) >= len(y)): axpyPortable.
func axpy(y, x []float32, a float32) { axpyPortable(y, x, a) }
