package search

import (
	"context"
	"strings"
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// TestEvaluated: the positions Config.Evaluated turns away, one of each
// kind, and the quiet ones it keeps.
func TestEvaluated(t *testing.T) {
	cfg := DefaultConfig()
	for _, c := range []struct {
		name  string
		moves string
		want  bool
	}{
		{"the opening", "h8 i9 g7", true},
		{"a closed three of the mover's, no VCF", "h8 e8 i8 g9 j8 k8", true},
		{"a five to make", "h8 a1 i8 c1 j8 e1 k8 g1", false},
		{"a five to block", "h8 a1 i8 c1 j8 e1 k8", false},
		{"an open four to make (MakesWin)", "h8 a1 i8 c1 j8 e1", false},
	} {
		pos := patterns.NewPosition(gomoku.Options{Radius: 2})
		for _, f := range splitMoves(t, c.moves) {
			if err := pos.Play(f); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		if got := cfg.Evaluated(pos); got != c.want {
			t.Errorf("%s: Evaluated %v, want %v", c.name, got, c.want)
		}
	}

	// The suite's wins that a horizon's VCF finds are turned away, and
	// kept by a search without one.
	noVCF := cfg
	noVCF.LeafVCF = 0
	found := 0
	for _, w := range loadWins(t) {
		pos := w.position(t)
		me := pos.Board().ToMove()
		if !pos.Set(patterns.MakesFive, me).Empty() || !pos.Set(patterns.MakesFive, me.Other()).Empty() || !pos.Set(patterns.MakesWin, me).Empty() {
			continue
		}
		if !noVCF.Evaluated(pos) {
			t.Errorf("%v: turned away without a horizon VCF", w.moves)
		}
		if !cfg.Evaluated(pos) {
			found++
		}
	}
	if found == 0 {
		t.Error("no position of the suite has a VCF within the horizon's budget: the VCF case is not tested")
	}
	t.Logf("%d of the suite's positions have a horizon VCF", found)
}

// evalRecorder is a value model that checks each position it is asked
// about against Config.Evaluated.
type evalRecorder struct {
	t        *testing.T
	cfg      Config
	calls, n *int
}

func (r evalRecorder) Value(pos *patterns.Position) float64 {
	*r.calls++
	if !r.cfg.Evaluated(pos) {
		*r.n++
		if *r.n <= 3 {
			r.t.Errorf("asked about a position Evaluated turns away: %v", pos.Board().History())
		}
	}
	return 0.5
}

// TestEvaluatedIsAsked: with the cuts by the evaluation off (they ask at
// interior nodes, before the node's VCF), every position the search asks
// its value model about is one Evaluated keeps: what the loop fits on
// with Config.ValueQuiet is what the search asks.
func TestEvaluatedIsAsked(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RFPDepth, cfg.RazorDepth, cfg.FHRMargin = 0, 0, 0
	var calls, bad int
	s := New(cfg)
	s.SetValue(func() Value { return evalRecorder{t: t, cfg: cfg, calls: &calls, n: &bad} })
	for i, w := range loadWins(t) {
		if i%4 != 0 {
			continue
		}
		// The position a few moves before the win, where the game was
		// still open.
		pos := knownWin{moves: w.moves[:len(w.moves)-6]}.position(t)
		s.Clear()
		if _, err := s.Search(context.Background(), pos, Limits{Nodes: 20_000}); err != nil {
			t.Fatal(err)
		}
	}
	if calls < 1000 {
		t.Fatalf("the value model was asked %d times, want at least 1,000", calls)
	}
	if bad > 0 {
		t.Errorf("%d of %d positions asked about are turned away by Evaluated", bad, calls)
	}
	t.Logf("%d positions asked about, all evaluated", calls)
}

func splitMoves(t *testing.T, s string) []gomoku.Point {
	t.Helper()
	var out []gomoku.Point
	for _, f := range strings.Fields(s) {
		q, err := gomoku.ParsePoint(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, q)
	}
	return out
}
