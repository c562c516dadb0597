package policy

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/patterns"
)

// ValueFeatureSet versions the position features below; a value model
// file records it (metadata "value_set") and one of another set is
// refused.
const ValueFeatureSet = 1

// ValueFeatureNames are the features of a position for the value model,
// seen from the side to move ("mover"). mover_shapes_S counts the (cell,
// direction) pairs where a mover's stone would make shape S (the
// incremental histograms of patterns.Position.ShapeCounts), likewise
// opp_shapes_S for the opponent; then the cells where each side makes a
// four or a three, the stones and whether the mover is Black.
var ValueFeatureNames = [NumValueFeatures]string{
	"mover_shapes_two", "mover_shapes_closed_three", "mover_shapes_broken_three", "mover_shapes_open_three",
	"mover_shapes_four", "mover_shapes_double_four", "mover_shapes_straight_four", "mover_shapes_five",
	"opp_shapes_two", "opp_shapes_closed_three", "opp_shapes_broken_three", "opp_shapes_open_three",
	"opp_shapes_four", "opp_shapes_double_four", "opp_shapes_straight_four", "opp_shapes_five",
	"mover_four_points", "opp_four_points", "mover_three_points", "opp_three_points",
	"stones", "mover_black",
}

// NumValueFeatures is the number of value feature columns.
const NumValueFeatures = 22

const metaValueSet = "value_set"

// ValueFeatures writes the features of pos for the side to move into dst
// (NumValueFeatures elements). It allocates nothing.
func ValueFeatures(dst []float64, pos *patterns.Position) {
	me := pos.Board().ToMove()
	opp := me.Other()
	for side, pl := range [2]gomoku.Player{me, opp} {
		counts := pos.ShapeCounts(pl)
		for s := patterns.Two; s <= patterns.Five; s++ {
			dst[side*8+int(s-patterns.Two)] = float64(counts[s])
		}
	}
	dst[16] = float64(pos.Count(patterns.MakesFour, me))
	dst[17] = float64(pos.Count(patterns.MakesFour, opp))
	dst[18] = float64(pos.Count(patterns.MakesThree, me))
	dst[19] = float64(pos.Count(patterns.MakesThree, opp))
	dst[20] = float64(pos.Board().Stones())
	dst[21] = b2f(me == gomoku.Black)
}

// ValueModel is a forest estimating the chance that the side to move
// wins a position (class 1: the mover won), fitted for one rule. It is
// read-only; use Value through a Valuer, one per goroutine.
type ValueModel struct {
	Forest *forest.Model
	Rule   gomoku.Rule
}

// Check reports, with a clear error, whether the model is meant for games
// under rule: the rule must be the model's.
func (m *ValueModel) Check(rule gomoku.Rule) error {
	if rule != m.Rule {
		return fmt.Errorf("policy: the value model was fitted for %s, not %s", m.Rule, rule)
	}
	return nil
}

// FitValue fits a value model on rows of ValueFeatures (labels 1: the
// mover won) for rule.
func FitValue(ctx context.Context, x []float64, labels []int, weights []float64, rule gomoku.Rule, cfg forest.Config) (*ValueModel, error) {
	if len(labels) == 0 {
		return nil, errors.New("policy: fit value: no samples")
	}
	cfg.FeatureNames = ValueFeatureNames[:]
	cfg.Meta = map[string]string{metaValueSet: fmt.Sprint(ValueFeatureSet), metaRule: rule.String()}
	f, err := forest.Fit(ctx, matrix(x, NumValueFeatures), labels, weights, cfg)
	if err != nil {
		return nil, err
	}
	return &ValueModel{Forest: f, Rule: rule}, nil
}

// ValueFromForest makes a forest a value model, refusing (ErrModel) one of
// other features.
func ValueFromForest(f *forest.Model) (*ValueModel, error) {
	meta := f.Meta()
	rule, err := gomoku.ParseRule(meta[metaRule])
	switch {
	case meta[metaValueSet] != fmt.Sprint(ValueFeatureSet) || err != nil:
		return nil, fmt.Errorf("%w: not a value model of feature set %d (metadata %v)", ErrModel, ValueFeatureSet, meta)
	case f.Classes() != 2 || !slices.Equal(f.FeatureNames(), ValueFeatureNames[:]):
		return nil, fmt.Errorf("%w: a value model of other columns", ErrModel)
	}
	return &ValueModel{Forest: f, Rule: rule}, nil
}

// LoadValueFile reads a value model file.
func LoadValueFile(path string) (*ValueModel, error) {
	f, err := forest.LoadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := ValueFromForest(f)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	return v, nil
}

// SaveFile writes the value model to path atomically.
func (v *ValueModel) SaveFile(path string) (int64, error) {
	return (&Model{Forest: v.Forest}).SaveFile(path)
}

// Valuer evaluates positions with a ValueModel; it holds a scratch row, so
// use one per goroutine. It satisfies search.Value.
type Valuer struct {
	m   *ValueModel
	row [NumValueFeatures]float64
}

// NewValuer returns a Valuer over m.
func NewValuer(m *ValueModel) *Valuer { return &Valuer{m: m} }

// Value is the estimated chance that the side to move wins pos.
func (v *Valuer) Value(pos *patterns.Position) float64 {
	ValueFeatures(v.row[:], pos)
	return v.m.Forest.PredictClass1(v.row[:])
}

// matrix views rows of cols columns, laid out one after another, as a
// matrix (sharing x).
func matrix(x []float64, cols int) *mat.Dense { return mat.NewDense(len(x)/cols, cols, x) }
