package arena

import (
	"fmt"
	"iter"
	"math"
	"slices"

	"ocvist/gomoku"
)

// Pentanomial counts A's results over the complete pairs of games (games
// 2i and 2i+1 share an opening, colours swapped): index k is the number of
// pairs in which A scored k/2 points, 0 (two losses) to 4 (two wins).
// Pairs cancel most of an opening's bias, so their statistics are the fair
// ones (fishtest's and cutechess's "pentanomial" model).
func (r *Result) Pentanomial() [5]int {
	var p [5]int
	for g, h := range r.pairs() {
		p[int(math.Round(2*(g.AResult()+h.AResult())))]++
	}
	return p
}

// Contested lists the openings (indices into Config.Openings, each once,
// in increasing order) of the complete pairs the colour did not decide:
// the same colour did not win both games (one agent won both, or a game
// was drawn). Between near-equal engines most pairs of generated openings
// split by colour, each engine winning with the favoured one, and tell the
// engines apart little; a match of an engine against itself finds the
// openings where the game stays open (search/TUNING.md, "On the
// openings").
func (r *Result) Contested() []int {
	var out []int
	seen := map[int]bool{}
	for g, h := range r.pairs() {
		if g.Winner != gomoku.Empty && g.Winner == h.Winner || seen[g.Opening] {
			continue
		}
		seen[g.Opening] = true
		out = append(out, g.Opening)
	}
	slices.Sort(out)
	return out
}

// pairs yields the complete pairs of games: 2i (A as Black) and 2i+1, in
// the order of r.Games.
func (r *Result) pairs() iter.Seq2[*Game, *Game] {
	return func(yield func(*Game, *Game) bool) {
		byIndex := make(map[int]*Game, len(r.Games))
		for i := range r.Games {
			byIndex[r.Games[i].Index] = &r.Games[i]
		}
		for i := range r.Games {
			g := &r.Games[i]
			if g.Index%2 != 0 {
				continue
			}
			if h, ok := byIndex[g.Index+1]; ok && !yield(g, h) {
				return
			}
		}
	}
}

// PairScore is A's mean score over the pairs of p, with the 95% interval of
// the mean (normal approximation with the pairs' own variance) and the
// number of pairs. With no pairs all are NaN.
func PairScore(p [5]int) (score, low, high float64, pairs int) {
	m, v, n := pairMoments(p)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), 0
	}
	se := math.Sqrt(v / float64(n))
	return m, max(0, m-Z95*se), min(1, m+Z95*se), n
}

// pairMoments are the mean and variance of A's per-pair score (k/4 for
// index k) and the number of pairs.
func pairMoments(p [5]int) (mean, variance float64, n int) {
	for _, c := range p {
		n += c
	}
	if n == 0 {
		return 0, 0, 0
	}
	for k, c := range p {
		mean += float64(c) * float64(k) / 4
	}
	mean /= float64(n)
	for k, c := range p {
		d := float64(k)/4 - mean
		variance += float64(c) * d * d
	}
	return mean, variance / float64(n), n
}

// SPRT is a sequential probability ratio test of H0: A is Elo0 stronger
// than B, against H1: A is Elo1 stronger (logistic Elo, Elo1 > Elo0), with
// error rates Alpha (accepting H1 when H0 holds) and Beta. It uses the
// generalised SPRT on pair scores (the normal approximation of fishtest):
// LLR = n·(s1−s0)·(2m−s0−s1)/(2σ²), m and σ² the mean and variance of the
// per-pair score, s0 and s1 the scores Elo0 and Elo1 predict.
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
	// MinPairs is how many pairs the test needs before it may decide (0
	// means DefaultMinPairs): with a few pairs all alike the variance
	// estimate is near zero and the ratio meaningless (4 pairs each split
	// 1–1 once "decided" a 0-against-30-Elo test).
	MinPairs int
}

// DefaultMinPairs is the fewest pairs an SPRT decides on when MinPairs is
// 0. Between two near-equal searches most pairs split 1–1 (each side wins
// with Black), and a short run of them hides the variance: 20 pairs, 19 of
// them 1–1, gave a variance of 0.003 and "accepted" H0 of a 0-against-20-
// Elo test (LLR −5.2), where 434 pairs of two such engines gave 0.071.
const DefaultMinPairs = 100

// Decision is an SPRT's verdict.
type Decision int

// The verdicts.
const (
	Undecided Decision = iota
	AcceptH0           // A is not Elo1 stronger: at most Elo0
	AcceptH1           // A is at least Elo1 stronger, significantly more than Elo0
)

func (d Decision) String() string {
	return [...]string{"undecided", "H0 accepted", "H1 accepted"}[d]
}

// Validate checks the test's parameters.
func (s SPRT) Validate() error {
	if !(s.Elo1 > s.Elo0) || !(s.Alpha > 0 && s.Alpha < 0.5) || !(s.Beta > 0 && s.Beta < 0.5) {
		return fmt.Errorf("sprt: want elo0 < elo1 and 0 < alpha, beta < 0.5 (have elo0 %g, elo1 %g, alpha %g, beta %g)", s.Elo0, s.Elo1, s.Alpha, s.Beta)
	}
	return nil
}

// Bounds are the log-likelihood-ratio bounds: H0 at or below lower, H1 at
// or above upper.
func (s SPRT) Bounds() (lower, upper float64) {
	return math.Log(s.Beta / (1 - s.Alpha)), math.Log((1 - s.Beta) / s.Alpha)
}

// LLR is the log-likelihood ratio of H1 against H0 for the pairs in p.
func (s SPRT) LLR(p [5]int) float64 {
	m, v, n := pairMoments(p)
	if n == 0 {
		return 0
	}
	v = max(v, 1e-3) // all pairs alike: keep the ratio finite
	s0, s1 := scoreOfElo(s.Elo0), scoreOfElo(s.Elo1)
	return float64(n) * (s1 - s0) * (2*m - s0 - s1) / (2 * v)
}

// Decide returns the verdict for the pairs in p and the LLR.
func (s SPRT) Decide(p [5]int) (Decision, float64) {
	llr := s.LLR(p)
	lo, hi := s.Bounds()
	minPairs := s.MinPairs
	if minPairs == 0 {
		minPairs = DefaultMinPairs
	}
	switch _, _, n := pairMoments(p); {
	case n < minPairs:
		return Undecided, llr
	case llr >= hi:
		return AcceptH1, llr
	case llr <= lo:
		return AcceptH0, llr
	}
	return Undecided, llr
}

// scoreOfElo is the expected score of a player Elo stronger.
func scoreOfElo(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }
