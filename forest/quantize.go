package forest

import (
	"math"
	"slices"
)

// edgeSampleRows caps the rows used to place the bin edges of a feature.
const edgeSampleRows = 1 << 18

// binEdges returns the ascending, distinct edges that split one feature into
// at most bins bins: value x falls in bin binOf(edges, x), the number of edges
// <= x. If the feature has at most bins distinct values every value but the
// smallest becomes an edge, so no information is lost; otherwise the edges
// are quantiles of an evenly strided (deterministic) sample of the rows. NaN
// values are ignored here and fall in the last bin.
//
// col(i) returns the value of row i; n is the number of rows.
func binEdges(col func(i int) float64, n, bins int, buf []float64) []float64 {
	step := 1
	if n > edgeSampleRows {
		step = (n + edgeSampleRows - 1) / edgeSampleRows
	}
	vals := buf[:0]
	for i := 0; i < n; i += step {
		if v := col(i); !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	slices.Sort(vals)
	distinct := slices.Compact(slices.Clone(vals))
	if len(distinct) <= bins {
		return distinct[1:]
	}
	edges := make([]float64, 0, bins-1)
	for b := 1; b < bins; b++ {
		v := vals[b*len(vals)/bins]
		if v > vals[0] && (len(edges) == 0 || v > edges[len(edges)-1]) {
			edges = append(edges, v)
		}
	}
	return edges
}

// binOf returns the bin of x: the number of edges <= x (NaN: len(edges)).
// It agrees with the prediction rule "go left if x < threshold" where the
// threshold of a split after bin b is edges[b].
func binOf(edges []float64, x float64) uint8 {
	lo, hi := 0, len(edges)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x < edges[m] {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return uint8(lo)
}
