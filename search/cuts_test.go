package search

import (
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// cutPosition plays moves (x, y pairs) into a fresh position.
func cutPosition(t *testing.T, moves ...[2]int) *patterns.Position {
	t.Helper()
	pos := patterns.NewPosition(gomoku.Options{Radius: 2})
	for _, m := range moves {
		if err := pos.Play(gomoku.Pt(m[0], m[1])); err != nil {
			t.Fatal(err)
		}
	}
	return pos
}

// probeNode searches pos's node at ply 1 with depth plies left in the
// window (alpha, beta) by a fresh searcher whose value model says v, and
// returns the score, the nodes searched below it and the node's static
// evaluation.
func probeNode(t *testing.T, pos *patterns.Position, v float64, depth, alpha, beta int) (score int, nodes int64, ev int) {
	t.Helper()
	return probeNodeWith(t, DefaultConfig(), pos, v, depth, alpha, beta)
}

// probeNodeWith is probeNode by a searcher of cfg.
func probeNodeWith(t *testing.T, cfg Config, pos *patterns.Position, v float64, depth, alpha, beta int) (score int, nodes int64, ev int) {
	t.Helper()
	s := New(cfg)
	s.SetValue(func() Value { return fixedValue(v) })
	s.prepare(pos, Limits{Nodes: 1 << 40}, make(chan struct{}))
	ev = s.evaluate(pos.Board().ToMove())
	score = s.pvs(depth, 1, alpha, beta)
	return score, s.nodes, ev
}

// cutPositions are the positions the cuts are probed on: quiet, Black to
// move with nothing to answer (two stones each, no three), and three,
// where White (not to move) has an open three on y = 7 and Black's stones
// are apart.
func cutPositions(t *testing.T) (quiet, three *patterns.Position) {
	t.Helper()
	quiet = cutPosition(t, [2]int{7, 7}, [2]int{7, 8}, [2]int{6, 7}, [2]int{8, 8})
	three = cutPosition(t, [2]int{2, 10}, [2]int{6, 7}, [2]int{12, 12}, [2]int{7, 7}, [2]int{12, 1}, [2]int{8, 7})
	if three.Set(patterns.MakesWin, gomoku.White).Empty() {
		t.Fatal("the open three's position has no straight-four point for White")
	}
	return quiet, three
}

// TestEvaluationCuts: reverse futility pruning and razoring (Config.RFP*,
// Razor*) cut exactly the nodes they are meant to: off the principal
// variation, within their depth, past their margin, and never when the
// opponent has a threat to answer or in a window at the mate scores.
func TestEvaluationCuts(t *testing.T) {
	cfg := DefaultConfig()
	if cfg.RFPDepth != 3 || cfg.RFPMargin != 150 || cfg.RazorDepth != 2 || cfg.RazorMargin != 200 {
		t.Fatalf("defaults changed (%d, %d, %d, %d): update this test's margins", cfg.RFPDepth, cfg.RFPMargin, cfg.RazorDepth, cfg.RazorMargin)
	}
	quiet, three := cutPositions(t)

	// Reverse futility: the evaluation beats beta by the margin a ply left.
	_, _, ev := probeNode(t, quiet, 0.99, 2, 0, 1)
	_, _, evThree := probeNode(t, three, 0.99, 2, 0, 1)
	for _, c := range []struct {
		name        string
		pos         *patterns.Position
		depth, beta int
		pv, cut     bool
	}{
		{"depth 1, margin met", quiet, 1, ev - 150, false, true},
		{"depth 2, margin met", quiet, 2, ev - 300, false, true},
		{"depth 2, one short of the margin", quiet, 2, ev - 299, false, false},
		{"depth 3, margin met", quiet, 3, ev - 450, false, true},
		{"depth 3, one short of the margin", quiet, 3, ev - 449, false, false},
		{"depth 4", quiet, 4, ev - 2000, false, false},
		{"a PV node", quiet, 2, ev - 2000, true, false},
		{"the opponent's open three", three, 1, evThree - 2000, false, false},
		{"a window at the mate scores", quiet, 1, -mateBound + 1, false, false},
	} {
		alpha := c.beta - 1
		if c.pv {
			alpha = c.beta - 50
		}
		score, nodes, e := probeNode(t, c.pos, 0.99, c.depth, alpha, c.beta)
		if c.cut && (nodes != 0 || score != e) {
			t.Errorf("RFP, %s: %d nodes, score %d; want a cut: 0 nodes, the evaluation %d", c.name, nodes, score, e)
		}
		if !c.cut && nodes == 0 {
			t.Errorf("RFP, %s: cut (score %d); want a search", c.name, score)
		}
	}

	// Razoring: the evaluation falls short of alpha by the margin a ply
	// left; the node is judged at the horizon (no fours for Black here:
	// its evaluation).
	_, _, ev = probeNode(t, quiet, 0.01, 2, 0, 1)
	for _, c := range []struct {
		name         string
		depth, alpha int
		cut          bool
	}{
		{"depth 1, margin met", 1, ev + 200, true},
		{"depth 2, margin met", 2, ev + 400, true},
		{"depth 2, one short of the margin", 2, ev + 399, false},
		{"depth 3", 3, ev + 4000, false},
		{"a window at the mate scores (a mate's line searched for)", 1, mateBound - 1, false},
	} {
		score, nodes, e := probeNode(t, quiet, 0.01, c.depth, c.alpha, c.alpha+1)
		if c.cut && (nodes != 0 || score != e) {
			t.Errorf("razoring, %s: %d nodes, score %d; want a cut: 0 nodes, the evaluation %d", c.name, nodes, score, e)
		}
		if !c.cut && nodes == 0 {
			t.Errorf("razoring, %s: cut (score %d); want a search", c.name, score)
		}
	}
	// Razoring never loses a win by fours the evaluation does not see: the
	// horizon's VCF runs (Black: an open three on y = 5).
	win := cutPosition(t, [2]int{5, 5}, [2]int{1, 9}, [2]int{6, 5}, [2]int{3, 12}, [2]int{7, 5}, [2]int{13, 1})
	score, _, ev := probeNode(t, win, 0.01, 2, 0, 1)
	if !IsMate(score) || score <= 0 || ev >= 0 {
		t.Errorf("razoring over a won VCF: score %d (evaluation %d); want a win", score, ev)
	}
}

// TestFailHighReduction: the fail-high reduction (Config.FHRDepth,
// FHRMargin) searches a node's moves shallower exactly where it is meant
// to: off the principal variation, from its depth, past its margin, and
// never when the opponent has a threat to answer or in a window at the
// mate scores; elsewhere the node is searched as with the reduction off,
// node for node (at four plies left, where no node below it may reduce).
func TestFailHighReduction(t *testing.T) {
	cfg := DefaultConfig()
	if cfg.FHRDepth != 4 || cfg.FHRMargin != 50 || cfg.RFPDepth >= cfg.FHRDepth {
		t.Fatalf("defaults changed (%d, %d, RFP to %d): update this test's margins", cfg.FHRDepth, cfg.FHRMargin, cfg.RFPDepth)
	}
	off := cfg
	off.FHRMargin = 0
	quiet, three := cutPositions(t)
	_, _, ev := probeNode(t, quiet, 0.99, 4, 0, 1)
	_, _, evThree := probeNode(t, three, 0.99, 4, 0, 1)
	for _, c := range []struct {
		name          string
		pos           *patterns.Position
		depth, beta   int
		pv, shallower bool
	}{
		{"depth 4, margin met", quiet, 4, ev - 200, false, true},
		{"depth 5, margin met", quiet, 5, ev - 250, false, true},
		{"depth 4, one short of the margin", quiet, 4, ev - 199, false, false},
		{"depth 3 (RFP's: not past its margin)", quiet, 3, ev - 300, false, false},
		{"a PV node", quiet, 4, ev - 2000, true, false},
		{"the opponent's open three", three, 4, evThree - 2000, false, false},
		{"a window at the mate scores", quiet, 4, -mateBound + 1, false, false},
	} {
		alpha := c.beta - 1
		if c.pv {
			alpha = c.beta - 50
		}
		score, nodes, _ := probeNodeWith(t, cfg, c.pos, 0.99, c.depth, alpha, c.beta)
		wantScore, want, _ := probeNodeWith(t, off, c.pos, 0.99, c.depth, alpha, c.beta)
		switch {
		case c.shallower && (nodes == 0 || nodes >= want):
			t.Errorf("%s: %d nodes; want fewer than the %d without the reduction, and a search", c.name, nodes, want)
		case !c.shallower && (nodes != want || score != wantScore):
			t.Errorf("%s: %d nodes, score %d; want the search without the reduction: %d nodes, score %d", c.name, nodes, score, want, wantScore)
		}
	}
}
