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
// losses, with a 95% interval: the score's standard error is the standard
// deviation of the per-game scores over √n, and the interval's ends are the
// score ± Z95 standard errors mapped through EloFromScore. With no games
// all three are NaN.
func Elo(w, d, l int) (elo, low, high float64) {
	n := float64(w + d + l)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := (float64(w) + float64(d)/2) / n
	se := scoreSE(w, d, l, s)
	return EloFromScore(s), EloFromScore(s - Z95*se), EloFromScore(s + Z95*se)
}

// scoreSE is the standard error of a score s over w wins, d draws and l
// losses: the per-game scores' standard deviation over √n.
func scoreSE(w, d, l int, s float64) float64 {
	n := float64(w + d + l)
	v := (float64(w)*(1-s)*(1-s) + float64(d)*(0.5-s)*(0.5-s) + float64(l)*s*s) / n
	return math.Sqrt(v / n)
}

// ScoreInterval is the score s = (w + d/2) / n of a player with w wins, d
// draws and l losses, with the 95% interval s ± Z95·σ/√n used by Elo
// (clamped to [0, 1]). With no games all three are NaN.
func ScoreInterval(w, d, l int) (s, low, high float64) {
	n := float64(w + d + l)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s = (float64(w) + float64(d)/2) / n
	se := scoreSE(w, d, l, s)
	return s, max(0, s-Z95*se), min(1, s+Z95*se)
}
