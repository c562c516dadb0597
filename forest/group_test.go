package forest

import (
	"math"
	"testing"
)

func TestGroupMetrics(t *testing.T) {
	// group 1: positive ranked first; group 2: positive second of three, a
	// tie with one negative; group 3: no positive (skipped); group 4: two
	// positives (AUC only).
	scores := []float64{0.9, 0.1, 0.5, 0.7, 0.5, 0.2, 0.3, 0.8, 0.6, 0.7}
	labels := []bool{true, false, true, false, false, false, false, true, true, false}
	groups := []int{1, 1, 2, 2, 2, 3, 3, 4, 4, 4}
	if got := GroupTop1(scores, labels, groups); got != 0.5 {
		t.Errorf("top-1 %v, want 0.5 (groups 1 and 2 count)", got)
	}
	// group 1: 1; group 2: (0.5 vs 0.7: 0) + (0.5 vs 0.5: ½) over 2 = 0.25;
	// group 4: (0.8 > 0.7) + (0.6 < 0.7) over 2 = 0.5.
	if got, want := GroupAUC(scores, labels, groups), (1+0.25+0.5)/3; math.Abs(got-want) > 1e-12 {
		t.Errorf("AUC %v, want %v", got, want)
	}
	if !math.IsNaN(GroupTop1([]float64{1}, []bool{false}, []int{0})) {
		t.Error("top-1 of no countable group is not NaN")
	}
}
