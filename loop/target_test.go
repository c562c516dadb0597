package loop

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"ocvist/search"
)

// TestScoreWin: a proved win is 1, a proved loss 0, a level score ½, and
// a score of one scale 1/(1+e^−1).
func TestScoreWin(t *testing.T) {
	for _, c := range []struct {
		score int
		want  float64
	}{
		{search.Mate - 7, 1}, {-(search.Mate - 4), 0}, {0, 0.5}, {200, 1 / (1 + math.Exp(-1))}, {-200, 1 / (1 + math.Exp(1))},
	} {
		if got := ScoreWin(c.score, 200); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ScoreWin(%d, 200) = %v, want %v", c.score, got, c.want)
		}
	}
}

// TestFitScoreScale: outcomes drawn from the logistic of scale 250 give a
// fitted scale within 10% of it; mates and positions without a score are
// left out (they would pull it), and no position left gives 0.
func TestFitScoreScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var scores []int16
	var won []bool
	for range 20000 {
		s := rng.IntN(1601) - 800
		scores, won = append(scores, int16(s)), append(won, rng.Float64() < ScoreWin(s, 250))
	}
	for range 2000 { // mates lost, unscored positions won: noise if counted
		scores, won = append(scores, int16(-(search.Mate-3)), noScore), append(won, true, true)
	}
	if got := fitScoreScale(scores, won); math.Abs(got-250) > 25 {
		t.Errorf("fitted scale %v, want 250 ± 25", got)
	}
	if got := fitScoreScale([]int16{noScore, search.Mate - 1}, []bool{true, true}); got != 0 {
		t.Errorf("no scored position: scale %v, want 0", got)
	}
}

// TestValueWeights: a won position scored level with λ = ½ weighs its
// "won" row ¾ and its "lost" row ¼; a lost one scored a proved loss 0 and
// 1 (its "lost" row first, as built); one without a score has its outcome.
func TestValueWeights(t *testing.T) {
	s := &sets{
		valueY:     []int{1, 0, 0, 1, 1, 0},
		valueWon:   []bool{true, false, true},
		valueScore: []int16{0, -(search.Mate - 2), noScore},
	}
	got := valueWeights(s, 0.5, 300)
	if want := []float64{0.75, 0.25, 1, 0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("weights %v, want %v", got, want)
	}
}
