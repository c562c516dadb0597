package forest

import (
	"math"
	"math/rand/v2"
	"testing"
)

// slowAUC is the Mann–Whitney form of the AUC: the weighted fraction of
// (positive, negative) pairs the scores order correctly, ties counting one
// half.
func slowAUC(scores []float64, labels []bool, weights []float64) float64 {
	var num, den float64
	for i := range scores {
		for j := range scores {
			if !labels[i] || labels[j] {
				continue
			}
			w := weights[i] * weights[j]
			den += w
			switch {
			case scores[i] > scores[j]:
				num += w
			case scores[i] == scores[j]:
				num += w / 2
			}
		}
	}
	return num / den
}

func TestAUCMatchesSlowTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 50 {
		n := 2 + rng.IntN(300)
		scores := make([]float64, n)
		labels := make([]bool, n)
		weights := make([]float64, n)
		for i := range n {
			labels[i] = i%2 == 0 || rng.IntN(3) == 0
			scores[i] = float64(rng.IntN(1 + trial)) // many ties when trial is small
			if labels[i] {
				scores[i] += float64(rng.IntN(3))
			}
			weights[i] = float64(1 + rng.IntN(3))
		}
		labels[1] = false
		got, want := AUC(scores, labels, weights), slowAUC(scores, labels, weights)
		if math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: AUC %v, slow twin %v", trial, got, want)
		}
		for i := range weights {
			weights[i] = 1
		}
		if got, want := AUC(scores, labels, nil), slowAUC(scores, labels, weights); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d unweighted: AUC %v, slow twin %v", trial, got, want)
		}
	}
}

func TestAUCEdges(t *testing.T) {
	labels := []bool{false, false, true, true}
	if got := AUC([]float64{0.1, 0.2, 0.8, 0.9}, labels, nil); got != 1 {
		t.Errorf("perfect ranking: %v, want 1", got)
	}
	if got := AUC([]float64{0.9, 0.8, 0.2, 0.1}, labels, nil); got != 0 {
		t.Errorf("reversed ranking: %v, want 0", got)
	}
	if got := AUC([]float64{0.5, 0.5, 0.5, 0.5}, labels, nil); got != 0.5 {
		t.Errorf("all tied: %v, want 0.5", got)
	}
	if got := AUC([]float64{0.1, 0.2}, []bool{true, true}, nil); !math.IsNaN(got) {
		t.Errorf("one class only: %v, want NaN", got)
	}
	if got := AUC([]float64{math.NaN(), 0.2}, []bool{true, false}, nil); !math.IsNaN(got) {
		t.Errorf("NaN score: %v, want NaN", got)
	}
}

func TestAccuracyLogLoss(t *testing.T) {
	if got := Accuracy([]int{0, 1, 1, 2}, []int{0, 1, 0, 0}, nil); got != 0.5 {
		t.Errorf("Accuracy %v, want 0.5", got)
	}
	if got := Accuracy([]int{0, 1}, []int{0, 0}, []float64{3, 1}); got != 0.75 {
		t.Errorf("weighted Accuracy %v, want 0.75", got)
	}
	want := -(math.Log(0.8) + math.Log(0.6)) / 2
	if got := LogLoss([]float64{0.8, 0.4}, []bool{true, false}, nil); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogLoss %v, want %v", got, want)
	}
	if got := LogLoss([]float64{0}, []bool{true}, nil); math.IsInf(got, 0) || got < 30 {
		t.Errorf("LogLoss of a confident mistake %v, want finite and about 34.5", got)
	}
	if got := Argmax([]float64{0.2, 0.5, 0.5}); got != 1 {
		t.Errorf("Argmax %d, want 1", got)
	}
}
