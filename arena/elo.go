package arena

import "math"

// Z95 is the two-sided 95% normal quantile used for Elo intervals.
const Z95 = 1.959963984540054

// EloFromScore is the logistic Elo difference for an expected score s in
// [0, 1]: -400·log10(1/s - 1). It is -Inf at 0 and +Inf at 1.
func EloFromScore(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}

// Elo estimates the Elo difference of a player with w wins, d draws and l
// losses, with a 95% interval: the ends of ScoreInterval mapped through
// EloFromScore. The estimate is infinite for a score of 0 or 1, but the
// interval keeps a finite end (the lower one after all wins). With no games
// all three are NaN.
func Elo(w, d, l int) (elo, low, high float64) {
	s, lo, hi := ScoreInterval(w, d, l)
	return EloFromScore(s), EloFromScore(lo), EloFromScore(hi)
}

// ScoreInterval is the score s = (w + d/2) / n of a player with w wins, d
// draws and l losses, with its 95% interval: the Wilson score interval,
// generalised to draws. It holds the true scores p that the observed score
// is within Z95 standard errors of, where a game's score (1, ½, 0) with
// mean p and the observed draw rate δ = d/n has variance p(1-p) - δ/4
// (at p = s this is the observed variance of the per-game scores). For
// scores away from 0 and 1 it is close to the normal approximation
// s ± Z95·σ/√n; unlike it, it does not collapse to a point when every game
// has the same result (200 wins out of 200 give [0.981, 1], not [1, 1]).
// With no games all three are NaN.
func ScoreInterval(w, d, l int) (s, low, high float64) {
	n := float64(w + d + l)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s = (float64(w) + float64(d)/2) / n
	delta := float64(d) / n
	// (s-p)² = k·(p(1-p) - δ/4), k = Z95²/n:
	// (1+k)p² - (2s+k)p + s² + kδ/4 = 0.
	k := Z95 * Z95 / n
	a, b, c := 1+k, 2*s+k, s*s+k*delta/4
	root := math.Sqrt(max(b*b-4*a*c, 0))
	low = max(0, (b-root)/(2*a))
	high = min(1, (b+root)/(2*a))
	return s, min(low, s), max(high, s)
}
