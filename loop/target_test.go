package loop

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
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
	got := valueWeights(s, 0.5, 0, []float64{300, 300, 300})
	if want := []float64{0.75, 0.25, 1, 0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("weights %v, want %v", got, want)
	}
}

// TestValueTargetsTD: with a TD weight the targets look ahead along each
// game and stop at its end: a game of three level positions won by its
// last mover, then one of a level position before a proved loss.
func TestValueTargetsTD(t *testing.T) {
	s := &sets{
		valueWon:   []bool{true, false, true, true, false},
		valueScore: []int16{0, 0, 0, 0, -(search.Mate - 2)},
		valueLast:  []bool{false, false, true, false, true},
	}
	scales := []float64{300, 300, 300, 300, 300}
	if got, want := valueTargets(s, 1, 0, scales), []float64{0.5, 0.5, 0.5, 0.5, 0}; !slices.Equal(got, want) {
		t.Errorf("td 0: targets %v, want the positions' own %v", got, want)
	}
	// Backwards, td ½: the last mover won, ½·½ + ½·1 = 0.75; then
	// ½·½ + ½·(1 − 0.75) = 0.375; ½·½ + ½·0.625 = 0.5625. The second game:
	// the proved loss stays 0, the position before it ½·½ + ½·1.
	want := []float64{0.5625, 0.375, 0.75, 0.75, 0}
	if got := valueTargets(s, 1, 0.5, scales); !slices.Equal(got, want) {
		t.Errorf("td ½: targets %v, want %v", got, want)
	}
	// λ = 0 (the outcome alone) is the same with or without td.
	if got, want := valueTargets(s, 0, 0.5, scales), []float64{1, 0, 1, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("λ 0, td ½: targets %v, want the outcomes %v", got, want)
	}
}

// TestBuilderGameEnds: the builder marks each game's last value position,
// and only those: one a decided training game, at its last row; without
// Config.ValueQuiet every position after the book is a row.
func TestBuilderGameEnds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ValueQuiet = false // every position after the book (TestValueQuiet: the others)
	bl := newBuilder(cfg)
	bl.valueOnly = true
	games := teacherGames(t, 12, 300, cfg.Explore)
	rows, ends := 0, 0
	for i := range games {
		g := &games[i]
		before := len(bl.s.valueLast)
		if err := bl.game(g); err != nil {
			t.Fatal(err)
		}
		n := len(bl.s.valueLast) - before
		rows += n
		if heldOutGame(cfg.Seed, g.Gen, g.Game, cfg.Holdout) || g.Winner == gomoku.Empty {
			if n != 0 {
				t.Fatalf("game %d (held out or drawn) gave %d training rows", i, n)
			}
			continue
		}
		if want := len(g.Moves) - g.Book; n != want {
			t.Fatalf("game %d gave %d value rows, want %d (its plies after the book)", i, n, want)
		}
		ends++
		for j := before; j < len(bl.s.valueLast); j++ {
			if bl.s.valueLast[j] != (j == len(bl.s.valueLast)-1) {
				t.Fatalf("game %d: row %d of %d..%d marked last=%v", i, j, before, len(bl.s.valueLast)-1, bl.s.valueLast[j])
			}
		}
	}
	if ends == 0 || rows != len(bl.s.valueWon) {
		t.Fatalf("%d training games, %d rows marked of %d", ends, rows, len(bl.s.valueWon))
	}
}

// TestScoreScalesByGen: two generations whose teachers score the same
// positions in units three times apart get scales three times apart when
// fitted apart, and one scale between them when fitted together; the
// newest generation's is the one reported.
func TestScoreScalesByGen(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	s := &sets{}
	for gen := int32(1); gen <= 2; gen++ {
		unit := 1 + 2*float64(gen-1) // generation 2 scores three times larger
		for range 4000 {
			z := rng.NormFloat64() * 1.5 // the mover's true log-odds
			won := rng.Float64() < 1/(1+math.Exp(-z))
			s.valueScore = append(s.valueScore, int16(z*200*unit))
			s.valueWon = append(s.valueWon, won)
			s.valueGen = append(s.valueGen, gen)
		}
	}
	scales, newest := scoreScales(s, true, 2)
	s1, s2 := scales[0], scales[len(scales)-1]
	if newest != s2 || math.Abs(s2/s1-3) > 0.3 || math.Abs(s1-200) > 30 {
		t.Errorf("by generation: scales %.0f and %.0f (newest %.0f), want about 200 and 600", s1, s2, newest)
	}
	one, scale := scoreScales(s, false, 2)
	if one[0] != scale || one[len(one)-1] != scale || !(scale > s1 && scale < s2) {
		t.Errorf("together: %.0f, want one scale between %.0f and %.0f", scale, s1, s2)
	}
}

// TestWindows: the policy's window is the last Window generations; the
// value's reaches back over every generation the adopted generation's
// models played, up to TeacherWindow of them, never past generation 1.
func TestWindows(t *testing.T) {
	for _, c := range []struct {
		window, teacher, g, cur int
		value, policy           int
	}{
		{2, 0, 11, 5, 10, 10},  // off: the window alone
		{2, 6, 11, 5, 6, 10},   // generations 6–11 played by generation 5's models
		{2, 4, 11, 5, 8, 10},   // at most 4 of them
		{2, 6, 11, 10, 10, 10}, // a teacher adopted last generation: the window's
		{2, 6, 3, 0, 1, 2},     // from the start model: back to generation 1
		{3, 6, 1, 0, 1, 1},
	} {
		cfg := Config{Window: c.window, TeacherWindow: c.teacher}
		if v, p := cfg.windows(c.g, c.cur); v != c.value || p != c.policy {
			t.Errorf("window %d, teacher window %d, generation %d, adopted %d: value from %d, policy from %d; want %d and %d",
				c.window, c.teacher, c.g, c.cur, v, p, c.value, c.policy)
		}
	}
}

// TestValueQuiet: with Config.ValueQuiet a training game gives a value
// row for each position after its book that the engine's search would
// evaluate (search.Config.Evaluated, replayed here), and none for the
// others; the last of them is marked. -value-td refuses it.
func TestValueQuiet(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ValueQuiet = true
	bl := newBuilder(cfg)
	bl.valueOnly = true
	engine := search.DefaultConfig()
	all, kept := 0, 0
	for i, g := range teacherGames(t, 12, 300, cfg.Explore) {
		if heldOutGame(cfg.Seed, g.Gen, g.Game, cfg.Holdout) || g.Winner == gomoku.Empty {
			continue
		}
		want := 0
		pos := patterns.NewPosition(gomoku.Options{Rule: cfg.Rule, Radius: cfg.Radius})
		for j, m := range g.Moves {
			if j >= g.Book {
				all++
				if engine.Evaluated(pos) {
					want++
				}
			}
			if err := pos.Play(m); err != nil {
				t.Fatal(err)
			}
		}
		before := len(bl.s.valueLast)
		if err := bl.game(&g); err != nil {
			t.Fatal(err)
		}
		if n := len(bl.s.valueLast) - before; n != want {
			t.Fatalf("game %d gave %d value rows, want the %d positions evaluated", i, n, want)
		}
		if want > 0 && !bl.s.valueLast[len(bl.s.valueLast)-1] {
			t.Fatalf("game %d: its last row is not marked last", i)
		}
		kept += want
	}
	if kept == 0 || kept == all {
		t.Fatalf("%d of %d positions kept: want some, not all", kept, all)
	}
	t.Logf("%d of %d positions kept", kept, all)
	cfg.ValueTD = 0.5
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "-value-quiet") {
		t.Errorf("-value-td with -value-quiet: error %v, want one naming -value-quiet", err)
	}
}
