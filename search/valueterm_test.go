package search

import (
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// fixedValue is a value model that says v of every position.
type fixedValue float64

func (v fixedValue) Value(*patterns.Position) float64 { return float64(v) }

// TestValueTerm: what a value model adds to the evaluation, in both
// mappings (Config.ValueLogit), exactly — and through evaluate, with the
// shapes' share (Config.ShapeShare).
func TestValueTerm(t *testing.T) {
	for _, c := range []struct {
		scale, logit, v float64
		want            int32
	}{
		{3000, 0, 0.5, 0},
		{3000, 0, 0.9, 1200},   // 3000 × 0.4
		{3000, 0, 0.999, 1497}, // flattens out near 1
		{3000, 0, 0, -1500},
		{3000, 8, 0.5, 0},
		{3000, 8, 0.9, 1647},     // 3000 × ln 9 / 4 = 1647.9
		{3000, 8, 0.1, -1647},    // symmetric
		{3000, 8, 0.999, 5180},   // 3000 × ln 999 / 4 = 5180.1
		{3000, 8, 0.99999, 6000}, // the logit 11.5 held at 8
		{4500, 8, 1, 9000},
		{4500, 8, 0, -9000},
		{4500, 2, 0.5 + 1e-9, 0},
	} {
		s := &Searcher{cfg: Config{ValueScale: c.scale, ValueLogit: c.logit}} // valueTerm reads these alone
		if got := s.valueTerm(c.v); got != c.want {
			t.Errorf("scale %v, logit %v: v %v adds %d, want %d", c.scale, c.logit, c.v, got, c.want)
		}
	}
	// Through evaluate: the same position with and without the model.
	pos := patterns.NewPosition(gomoku.Options{Radius: 2})
	for _, m := range []gomoku.Point{112, 113, 97, 128} {
		if err := pos.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	// With the model, the shapes count ShapeShare of what they count
	// without it.
	for _, share := range []float64{1, 0.25, 0} {
		cfg := DefaultConfig()
		cfg.ValueLogit, cfg.ShapeShare = 8, share
		s := New(cfg)
		s.pos = pos
		me := pos.Board().ToMove()
		tempo := cfg.Weights.Tempo
		shapes := int32(s.evaluate(me)) - tempo // no model: all of them
		if shapes == 0 {
			t.Fatal("the position's shapes evaluate to 0: it tells no share apart")
		}
		s.SetValue(func() Value { return fixedValue(0.9) })
		want := tempo + int32(share*float64(shapes)) + 1647
		if got := int32(s.evaluate(me)); got != want {
			t.Errorf("share %v: evaluate with the value model of 0.9 is %d, want %d (tempo %d, shapes %d)", share, got, want, tempo, shapes)
		}
	}
}
