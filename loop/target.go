package loop

import (
	"math"

	"ocvist/forest"
	"ocvist/search"
)

// The value model's target (Config.ValueTarget): the chance that the
// mover wins, blended from the teacher's judgement of the position and
// the game's outcome,
//
//	t = λ·ScoreWin(score, scale) + (1 − λ)·outcome,
//
// with λ = ValueTarget. The forest is a classifier, so a position gives
// two rows, "won" weighted t and "lost" weighted 1 − t (a row of weight 0
// is skipped by the fit). The score is the teacher's root score (the
// search's units, from the mover's view), turned into a probability by a
// logistic whose scale is fitted on the window's training positions each
// generation: the scale under which the scores best predict the outcomes.

// ScoreWin is the chance that the mover wins a position the teacher
// scored score: 1 or 0 for a proved win or loss (search.IsMate), else the
// logistic 1/(1 + exp(−score/scale)).
func ScoreWin(score int, scale float64) float64 {
	switch {
	case search.IsMate(score) && score > 0:
		return 1
	case search.IsMate(score):
		return 0
	}
	return 1 / (1 + math.Exp(-float64(score)/scale))
}

// Bounds of the fitted score scale, in the search's units.
const (
	minScoreScale = 10
	maxScoreScale = 30000
)

// fitScoreScale is the scale under which ScoreWin best predicts the
// outcomes won of the positions scored scores (least log loss; noScore
// and mates left out), found by a golden-section search over the
// scale's logarithm between minScoreScale and maxScoreScale; 0 when no
// position counts.
func fitScoreScale(scores []int16, won []bool) float64 {
	n := 0
	for _, s := range scores {
		if s != noScore && !search.IsMate(int(s)) {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	loss := func(logScale float64) float64 {
		scale, sum := math.Exp(logScale), 0.0
		for i, s := range scores {
			if s == noScore || search.IsMate(int(s)) {
				continue
			}
			z := float64(s) / scale
			if !won[i] {
				z = -z
			}
			sum += softplus(-z) // −log σ(z)
		}
		return sum
	}
	lo, hi := math.Log(minScoreScale), math.Log(maxScoreScale)
	r := (math.Sqrt(5) - 1) / 2
	a, b := hi-r*(hi-lo), lo+r*(hi-lo)
	fa, fb := loss(a), loss(b)
	for hi-lo > 1e-3 {
		if fa <= fb {
			hi, b, fb = b, a, fa
			a = hi - r*(hi-lo)
			fa = loss(a)
		} else {
			lo, a, fa = a, b, fb
			b = lo + r*(hi-lo)
			fb = loss(b)
		}
	}
	return math.Exp((lo + hi) / 2)
}

// softplus is log(1 + e^x), without overflow.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// scoreScales are the scales of the value positions of s: one fitted on
// them all, or with byGen one for each generation's positions, fitted on
// those alone (each generation's teacher scores in its own units: a
// window may hold the games of two teachers). The second result is the
// scale of generation g's positions (the newest).
func scoreScales(s *sets, byGen bool, g int) ([]float64, float64) {
	scales := make([]float64, len(s.valueWon))
	if !byGen {
		scale := fitScoreScale(s.valueScore, s.valueWon)
		for i := range scales {
			scales[i] = scale
		}
		return scales, scale
	}
	of := map[int32]float64{}
	for lo := 0; lo < len(s.valueGen); {
		gen, hi := s.valueGen[lo], lo
		for hi < len(s.valueGen) && s.valueGen[hi] == gen {
			hi++
		}
		if _, ok := of[gen]; !ok {
			var scores []int16
			var won []bool
			for i, gi := range s.valueGen {
				if gi == gen {
					scores, won = append(scores, s.valueScore[i]), append(won, s.valueWon[i])
				}
			}
			of[gen] = fitScoreScale(scores, won)
		}
		for i := lo; i < hi; i++ {
			scales[i] = of[gen]
		}
		lo = hi
	}
	return scales, of[int32(g)]
}

// valueTargets are the targets of the value positions of s for target
// weight lambda, the weight td of the game's next position, and each
// position's score scale; a position without a score (or scale 0) has
// the outcome alone as its one-step target.
//
// With td > 0 the targets look ahead along the game, as TD(td) does:
// a position's target is (1 − td) of its own (the blend above) and td of
// the next position's target seen from this mover (1 − that), the last
// position's next being the outcome; so the teacher's judgement k plies
// later weighs td^k, and a position sinking over many moves is seen from
// its start. A proved score (a mate) is its own target.
func valueTargets(s *sets, lambda, td float64, scales []float64) []float64 {
	t := make([]float64, len(s.valueWon))
	scored := func(i int) bool { return s.valueScore[i] != noScore && scales[i] > 0 }
	for i, won := range s.valueWon {
		t[i] = b2f(won)
		if scored(i) {
			t[i] = lambda*ScoreWin(int(s.valueScore[i]), scales[i]) + (1-lambda)*t[i]
		}
	}
	if td == 0 {
		return t
	}
	for i := len(t) - 1; i >= 0; i-- {
		if scored(i) && search.IsMate(int(s.valueScore[i])) {
			continue // proved: its own target
		}
		next := b2f(s.valueWon[i]) // the outcome, after the game's last position
		if !s.valueLast[i] {
			next = 1 - t[i+1]
		}
		t[i] = (1-td)*t[i] + td*next
	}
	return t
}

// valueWeights are the weights of a forest's value rows of s (two a
// position, "won" first as built, see builder.valueRow): the position's
// target and its complement.
func valueWeights(s *sets, lambda, td float64, scales []float64) []float64 {
	w := make([]float64, 0, 2*len(s.valueWon))
	for i, t := range valueTargets(s, lambda, td, scales) {
		// The rows are the outcome's label, then the other.
		if s.valueWon[i] {
			w = append(w, t, 1-t)
		} else {
			w = append(w, 1-t, t)
		}
	}
	return w
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// scoreAUC is the AUC of the teacher's scores of t's held-out value
// positions (those with a score) against their outcomes: how well the
// search itself predicts who wins.
func scoreAUC(t *sets) float64 {
	var sc []float64
	var won []bool
	for i, s := range t.teacherScores {
		if s != noScore {
			sc, won = append(sc, s), append(won, t.valueLabels[i])
		}
	}
	return forest.AUC(sc, won, nil)
}
