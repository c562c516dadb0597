package forest

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate"
	"gonum.org/v1/gonum/stat"
)

// AUC returns the area under the ROC curve of scores (higher means more
// likely true) against labels, with optional non-negative weights (nil: all
// 1). Tied scores count one half, as the trapezoidal rule gives. The curve
// comes from gonum's stat.ROC and the area from integrate.Trapezoidal. AUC
// returns NaN if there are no positive or no negative labels (by weight) or
// a score is NaN. It panics if the lengths differ. The inputs are not
// modified.
func AUC(scores []float64, labels []bool, weights []float64) float64 {
	if len(labels) != len(scores) || (weights != nil && len(weights) != len(scores)) {
		panic("forest: AUC: slice length mismatch")
	}
	var pos, neg float64
	for i, s := range scores {
		if math.IsNaN(s) {
			return math.NaN()
		}
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		if labels[i] {
			pos += w
		} else {
			neg += w
		}
	}
	if !(pos > 0 && neg > 0) {
		return math.NaN()
	}
	y := slices.Clone(scores)
	classes := slices.Clone(labels)
	var wts []float64
	if weights != nil {
		wts = slices.Clone(weights)
	}
	stat.SortWeightedLabeled(y, classes, wts)
	tpr, fpr, _ := stat.ROC(nil, y, classes, wts)
	return integrate.Trapezoidal(fpr, tpr)
}

// Accuracy returns the weighted fraction of rows whose predicted class
// equals the label (weights nil: all 1). It panics if the lengths differ.
func Accuracy(predicted, labels []int, weights []float64) float64 {
	if len(predicted) != len(labels) {
		panic("forest: Accuracy: slice length mismatch")
	}
	hit := make([]float64, len(labels))
	for i := range labels {
		if predicted[i] == labels[i] {
			hit[i] = 1
		}
	}
	return stat.Mean(hit, weights)
}

// LogLoss returns the weighted mean negative natural log-likelihood of
// binary labels under the predicted probabilities of true (weights nil: all
// 1). Probabilities are clipped to [1e-15, 1-1e-15] so a confident mistake
// costs about 34.5, not infinity. It panics if the lengths differ.
func LogLoss(probs []float64, labels []bool, weights []float64) float64 {
	if len(probs) != len(labels) {
		panic("forest: LogLoss: slice length mismatch")
	}
	const eps = 1e-15
	nll := make([]float64, len(probs))
	for i, p := range probs {
		p = min(max(p, eps), 1-eps)
		if !labels[i] {
			p = 1 - p
		}
		nll[i] = -math.Log(p)
	}
	return stat.Mean(nll, weights)
}

// Argmax returns the index of the largest of p (the first of equals), the
// predicted class of a probability vector; -1 if p is empty.
func Argmax(p []float64) int {
	best := -1
	for i, v := range p {
		if best < 0 || v > p[best] {
			best = i
		}
	}
	return best
}
