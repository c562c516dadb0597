package policy

import (
	"math"

	"ocvist/forest"
)

// Evaluation is how well a model ranks a held-out dataset's samples.
type Evaluation struct {
	// AUC is the model's weighted area under the ROC curve of "the mover
	// won" (forest.AUC); NaN for a set without both labels.
	AUC float64
	// Baseline is the best single feature, used raw or negated, and
	// BaselineAUC its AUC (at least 0.5): what the model must beat.
	Baseline    string
	BaselineAUC float64
}

// Evaluate measures m on the dataset d (normally the held-out set of
// BuildDatasets). An empty d gives NaN figures.
func Evaluate(m *Model, d *Dataset) Evaluation {
	ev := Evaluation{AUC: math.NaN(), BaselineAUC: math.NaN()}
	if d.Len() == 0 {
		return ev
	}
	labels := make([]bool, d.Len())
	scores := make([]float64, d.Len())
	for i := range scores {
		scores[i] = m.Forest.PredictClass1(d.X.RawRowView(i))
		labels[i] = d.Labels[i] == 1
	}
	ev.AUC = forest.AUC(scores, labels, d.Weights)
	col := scores // reused for one feature's values
	for f, name := range names(m.Spec.FeatureSet) {
		for i := range col {
			col[i] = d.X.At(i, f)
		}
		auc := forest.AUC(col, labels, d.Weights)
		if auc < 0.5 {
			auc = 1 - auc
		}
		if !(auc <= ev.BaselineAUC) {
			ev.Baseline, ev.BaselineAUC = name, auc
		}
	}
	return ev
}
