package arena

import (
	"context"
	"math"
	"reflect"
	"testing"

	"ocvist/agent"
	"ocvist/gomoku"
	"ocvist/patterns"
)

// results makes a Result whose games 2i and 2i+1 give A the scores of
// pairs[i] (each 0, 0.5 or 1).
func results(pairs [][2]float64) *Result {
	r := &Result{}
	winner := func(s float64, aBlack bool) gomoku.Player {
		switch {
		case s == 0.5:
			return gomoku.Empty
		case (s == 1) == aBlack:
			return gomoku.Black
		}
		return gomoku.White
	}
	for i, p := range pairs {
		for k, s := range p {
			g := Game{Index: 2*i + k, ABlack: k == 0}
			g.Winner = winner(s, g.ABlack)
			r.Games = append(r.Games, g)
		}
	}
	return r
}

// TestPentanomial: pairs are counted by A's points in them, games out of
// order are paired by index, and an unpaired last game is left out.
func TestPentanomial(t *testing.T) {
	r := results([][2]float64{{1, 1}, {1, 0}, {0.5, 0}, {0, 0}, {1, 0.5}, {1, 1}})
	r.Games[0], r.Games[5] = r.Games[5], r.Games[0]
	r.Games = append(r.Games, Game{Index: 12, ABlack: true, Winner: gomoku.Black})
	if got, want := r.Pentanomial(), [5]int{1, 1, 1, 1, 2}; got != want {
		t.Errorf("pentanomial %v, want %v", got, want)
	}
}

// TestPairScore: the mean of the pair scores and a normal interval with
// their own variance, by hand: pairs 1, 0.5, 0.5, 0 have mean 0.5 and
// variance 0.125, so the interval is 0.5 ± 1.96·sqrt(0.125/4).
func TestPairScore(t *testing.T) {
	s, lo, hi, n := PairScore([5]int{1, 0, 2, 0, 1})
	half := Z95 * math.Sqrt(0.125/4)
	if n != 4 || s != 0.5 || math.Abs(lo-(0.5-half)) > 1e-12 || math.Abs(hi-(0.5+half)) > 1e-12 {
		t.Errorf("pair score %v [%v, %v] over %d pairs, want 0.5 ± %v over 4", s, lo, hi, n, half)
	}
	if s, _, hi, _ := PairScore([5]int{0, 0, 0, 0, 9}); s != 1 || hi != 1 {
		t.Errorf("all pairs won: %v, high %v; want 1 and 1", s, hi)
	}
	if s, _, _, n := PairScore([5]int{}); !math.IsNaN(s) || n != 0 {
		t.Errorf("no pairs: %v, %d", s, n)
	}
}

// TestSPRT: the verdicts on clear evidence either way, none on a tie or
// before MinPairs pairs, and the LLR against the fishtest formula by hand.
func TestSPRT(t *testing.T) {
	s := SPRT{Elo0: 0, Elo1: 20, Alpha: 0.05, Beta: 0.05}
	lo, hi := s.Bounds()
	if math.Abs(hi-math.Log(19)) > 1e-12 || math.Abs(lo+math.Log(19)) > 1e-12 {
		t.Errorf("bounds %v %v, want ±ln 19", lo, hi)
	}
	strong := [5]int{0, 10, 60, 80, 50} // mean 0.7125
	if d, _ := s.Decide(strong); d != AcceptH1 {
		t.Errorf("a 71%% pair score over 200 pairs: %v, want H1", d)
	}
	weak := [5]int{50, 80, 60, 10, 0} // 29%
	if d, _ := s.Decide(weak); d != AcceptH0 {
		t.Errorf("a 29%% pair score: %v, want H0", d)
	}
	if d, _ := s.Decide([5]int{0, 0, 4, 0, 0}); d != Undecided {
		t.Errorf("4 drawn pairs: %v, want undecided", d)
	}
	// Pairs all alike have no variance: no verdict before DefaultMinPairs
	// pairs, whatever the LLR (4 split pairs used to accept H0 of 0,30).
	wide := SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}
	for _, tc := range []struct {
		p    [5]int
		want Decision
	}{
		{[5]int{0, 0, 4, 0, 0}, Undecided},
		{[5]int{0, 0, DefaultMinPairs - 1, 0, 0}, Undecided},
		{[5]int{0, 0, 0, 0, DefaultMinPairs - 1}, Undecided},
		{[5]int{0, 0, 0, 0, DefaultMinPairs}, AcceptH1},
	} {
		if d, llr := wide.Decide(tc.p); d != tc.want {
			t.Errorf("%v with elo 0,30: %v (LLR %.2f), want %v", tc.p, d, llr, tc.want)
		}
	}
	s.MinPairs = 201
	if d, _ := s.Decide(strong); d != Undecided {
		t.Errorf("200 pairs with MinPairs 201: %v, want undecided", d)
	}
	// By hand: mean m, variance v of the pair scores; s0 = 0.5, s1 the
	// score of +20 Elo; LLR = n (s1 − s0)(2m − s0 − s1) / (2v).
	m, v := 0.7125, 0.0
	for k, c := range strong {
		v += float64(c) * (float64(k)/4 - m) * (float64(k)/4 - m)
	}
	v /= 200
	s1 := 1 / (1 + math.Pow(10, -20.0/400))
	want := 200 * (s1 - 0.5) * (2*m - 0.5 - s1) / (2 * v)
	if got := s.LLR(strong); math.Abs(got-want) > 1e-9 {
		t.Errorf("LLR %v, want %v", got, want)
	}
	if err := (SPRT{Elo0: 5, Elo1: 5, Alpha: 0.05, Beta: 0.05}).Validate(); err == nil {
		t.Error("elo0 = elo1 accepted")
	}
}

// TestMatchFactoriesParallel: a match on 3 workers gives the games of the
// sequential match, in index order, and an SPRT ends it early on clear
// evidence with whole pairs counted, the same games as sequentially.
func TestMatchFactoriesParallel(t *testing.T) {
	ctx := context.Background()
	ops := mustOpenings(t, "../data/openings/piskvork-15.txt")[:10]
	newA := func(i int) (agent.Agent, error) { return NewPatterns(uint64(i), patterns.Config{}), nil }
	newB := func(i int) (agent.Agent, error) { return agent.NewRandom(uint64(1000 + i)), nil }
	cfg := Config{Games: 20, Openings: ops}
	seq, err := MatchFactories(ctx, newA, newB, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Concurrency = 3
	par, err := MatchFactories(ctx, newA, newB, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(par.Games) != 20 || par.Total != seq.Total {
		t.Fatalf("parallel: %d games, %+v; sequential %+v", len(par.Games), par.Total, seq.Total)
	}
	for i := range par.Games {
		if par.Games[i].Index != i || !reflect.DeepEqual(par.Games[i].Moves, seq.Games[i].Moves) {
			t.Fatalf("game %d differs between the parallel and the sequential match", i)
		}
		checkReplay(t, &par.Games[i])
	}
	cfg.Games = 400
	cfg.SPRT = &SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05, MinPairs: 5}
	r, err := MatchFactories(ctx, newA, newB, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Concurrency = 1
	rs, err := MatchFactories(ctx, newA, newB, cfg)
	if err != nil || rs.Total != r.Total || rs.LLR != r.LLR {
		t.Errorf("SPRT match: parallel %+v, sequential %+v (%v): want the same games counted", r.Total, rs.Total, err)
	}
	p := r.Pentanomial()
	if r.Decision != AcceptH1 || r.Total.Games() >= 400 || p[0]+p[1]+p[2]+p[3]+p[4] < 5 {
		t.Errorf("patterns against random: %v after %d games (pairs %v), want H1 early", r.Decision, r.Total.Games(), p)
	}
}

// TestContested: the openings of the complete pairs the colour did not
// decide (one engine won both games, or a game was drawn), each once and
// in increasing order; a pair won by Black twice or by White twice, and an
// unpaired game, are left out.
func TestContested(t *testing.T) {
	// A's scores; A has Black in the first game of a pair.
	r := results([][2]float64{
		{1, 0},     // opening 0: Black won both: decided by the colour
		{1, 1},     // opening 1: A won both
		{0, 1},     // opening 2: White won both
		{0.5, 0},   // opening 3: a draw
		{0, 0},     // opening 4: B won both
		{0.5, 0.5}, // opening 0 again (cycled): two draws
		{1, 0},     // opening 5: Black won both
	})
	for i := range r.Games {
		r.Games[i].Opening = []int{0, 1, 2, 3, 4, 0, 5}[i/2]
	}
	r.Games[2], r.Games[9] = r.Games[9], r.Games[2] // out of order
	r.Games = append(r.Games, Game{Index: 14, Opening: 6, ABlack: true, Winner: gomoku.Black})
	if got, want := r.Contested(), []int{0, 1, 3, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("contested %v, want %v", got, want)
	}
}
