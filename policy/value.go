package policy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"gonum.org/v1/gonum/mat"

	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/mlp"
	"ocvist/patterns"
)

// The value model's position features come in versioned sets; a value
// model file records its set (metadata "value_set") and one of a set this
// build does not compute is refused.
const (
	// ValueFeatureSet1 is the first set (the value model shipped with
	// data/value.ocf): shape counts, four and three points, stones, colour.
	ValueFeatureSet1 = 1
	// ValueFeatureSet2 adds what decides a squeeze: each side's points of
	// unstoppable shapes, double threats, four-threes and fives, and the
	// points both sides want.
	ValueFeatureSet2 = 2
)

// ValueFeatureNames are the features of set 1, seen from the side to move
// ("mover"). mover_shapes_S counts the (cell, direction) pairs where a
// mover's stone would make shape S (the incremental histograms of
// patterns.Position.ShapeCounts), likewise opp_shapes_S for the opponent;
// then the cells where each side makes a four or a three, the stones and
// whether the mover is Black.
var ValueFeatureNames = [NumValueFeatures]string{
	"mover_shapes_two", "mover_shapes_closed_three", "mover_shapes_broken_three", "mover_shapes_open_three",
	"mover_shapes_four", "mover_shapes_double_four", "mover_shapes_straight_four", "mover_shapes_five",
	"opp_shapes_two", "opp_shapes_closed_three", "opp_shapes_broken_three", "opp_shapes_open_three",
	"opp_shapes_four", "opp_shapes_double_four", "opp_shapes_straight_four", "opp_shapes_five",
	"mover_four_points", "opp_four_points", "mover_three_points", "opp_three_points",
	"stones", "mover_black",
}

// NumValueFeatures is the number of columns of set 1.
const NumValueFeatures = 22

// ValueFeatureNames2 are the columns of set 2: set 1's, then for each
// side the cells where it makes an unstoppable shape (patterns.MakesWin:
// the side has an open three, or a four that a stone turns into two
// five-points), a double threat (patterns.MakesDouble: four-three or
// double three), a four-three (a double threat that makes a four: a VCF of
// one four if the other side has no four to answer with) or a five (it has
// a four now); then the contested cells, where both sides make a three or
// a four. A VCF per side was measured too slow for every leaf (about 28 µs
// a position where the forest takes 1 µs; BenchmarkValue).
var ValueFeatureNames2 = [NumValueFeatures2]string(append(ValueFeatureNames[:NumValueFeatures:NumValueFeatures],
	"mover_win_points", "opp_win_points", "mover_double_points", "opp_double_points",
	"mover_four_three_points", "opp_four_three_points", "mover_five_points", "opp_five_points",
	"contested_points"))

// NumValueFeatures2 is the number of columns of set 2.
const NumValueFeatures2 = NumValueFeatures + 9

// valueNames are the columns of value feature set set, nil for another.
func valueNames(set int) []string {
	switch set {
	case ValueFeatureSet1:
		return ValueFeatureNames[:]
	case ValueFeatureSet2:
		return ValueFeatureNames2[:]
	}
	return nil
}

// NumValueColumns is the number of columns of value feature set set (0
// for a set this build does not compute).
func NumValueColumns(set int) int { return len(valueNames(set)) }

const metaValueSet = "value_set"

// ValueFeatures writes the features of set 1 of pos for the side to move
// into dst (NumValueFeatures elements). It allocates nothing.
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

// ValueFeaturesOf writes the features of set set of pos for the side to
// move into dst (NumValueColumns(set) elements). It allocates nothing.
// Guarded by BenchmarkValue.
func ValueFeaturesOf(set int, dst []float64, pos *patterns.Position) {
	ValueFeatures(dst[:NumValueFeatures], pos)
	if set != ValueFeatureSet2 {
		return
	}
	me := pos.Board().ToMove()
	opp := me.Other()
	d := dst[NumValueFeatures:NumValueFeatures2]
	for side, pl := range [2]gomoku.Player{me, opp} {
		d[side] = float64(pos.Count(patterns.MakesWin, pl))
		d[2+side] = float64(pos.Count(patterns.MakesDouble, pl))
		d[4+side] = float64(pos.Set(patterns.MakesDouble, pl).Intersect(pos.Set(patterns.MakesFour, pl)).Len())
		d[6+side] = float64(pos.Count(patterns.MakesFive, pl))
	}
	want := func(pl gomoku.Player) gomoku.Set {
		return pos.Set(patterns.MakesThree, pl).Union(pos.Set(patterns.MakesFour, pl))
	}
	d[8] = float64(want(me).Intersect(want(opp)).Len())
}

// ValueModel estimates the chance that the side to move wins a position,
// fitted for one rule on one value feature set: a forest (sets 1 and 2;
// class 1: the mover won) or a network (set 3, ValueFeatureSet3). It is
// read-only; use Value through a Valuer, one per goroutine.
type ValueModel struct {
	Forest *forest.Model // sets 1 and 2
	Net    *mlp.Model    // set 3
	Rule   gomoku.Rule
	Set    int // the value feature set; 0 means ValueFeatureSet1
}

// FeatureSet is the model's value feature set.
func (m *ValueModel) FeatureSet() int {
	if m.Set == 0 {
		return ValueFeatureSet1
	}
	return m.Set
}

// Check reports, with a clear error, whether the model is meant for games
// under rule: the rule must be the model's.
func (m *ValueModel) Check(rule gomoku.Rule) error {
	if rule != m.Rule {
		return fmt.Errorf("policy: the value model was fitted for %s, not %s", m.Rule, rule)
	}
	return nil
}

// FitValue fits a value model on rows of value feature set set (labels 1:
// the mover won; weights, if not nil, one per row) for rule.
func FitValue(ctx context.Context, set int, x []float64, labels []int, weights []float64, rule gomoku.Rule, cfg forest.Config) (*ValueModel, error) {
	names := valueNames(set)
	switch {
	case names == nil:
		return nil, fmt.Errorf("policy: fit value: no value feature set %d", set)
	case len(labels) == 0:
		return nil, errors.New("policy: fit value: no samples")
	}
	cfg.FeatureNames = names
	cfg.Meta = map[string]string{metaValueSet: fmt.Sprint(set), metaRule: rule.String()}
	f, err := forest.Fit(ctx, matrix(x, len(names)), labels, weights, cfg)
	if err != nil {
		return nil, err
	}
	return &ValueModel{Forest: f, Rule: rule, Set: set}, nil
}

// ValueFromForest makes a forest a value model, refusing (ErrModel) one of
// other features.
func ValueFromForest(f *forest.Model) (*ValueModel, error) {
	meta := f.Meta()
	rule, err := gomoku.ParseRule(meta[metaRule])
	set := 0
	fmt.Sscan(meta[metaValueSet], &set)
	names := valueNames(set)
	switch {
	case names == nil || meta[metaValueSet] != fmt.Sprint(set) || err != nil:
		return nil, fmt.Errorf("%w: not a value model of feature set %d or %d (metadata %v)", ErrModel, ValueFeatureSet1, ValueFeatureSet2, meta)
	case f.Classes() != 2 || !slices.Equal(f.FeatureNames(), names):
		return nil, fmt.Errorf("%w: a value model of other columns", ErrModel)
	}
	return &ValueModel{Forest: f, Rule: rule, Set: set}, nil
}

// LoadValue reads a value model, a forest or a network file (told apart
// by their first bytes), from r, as the shipped one is embedded.
func LoadValue(r io.Reader) (*ValueModel, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(mlp.Magic)); string(head) == mlp.Magic {
		n, err := mlp.Load(br)
		if err != nil {
			return nil, err
		}
		return ValueFromNet(n)
	}
	f, err := forest.Load(br)
	if err != nil {
		return nil, err
	}
	return ValueFromForest(f)
}

// LoadValueFile reads a value model from the file path.
func LoadValueFile(path string) (*ValueModel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	defer f.Close()
	v, err := LoadValue(f)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	return v, nil
}

// Save writes the value model's file: the forest's or the network's.
func (v *ValueModel) Save(w io.Writer) error {
	if v.Net != nil {
		return v.Net.Save(w)
	}
	return v.Forest.Save(w)
}

// SaveFile writes the value model to path atomically (as Model.SaveFile)
// and returns the file's size.
func (v *ValueModel) SaveFile(path string) (int64, error) { return saveFile(path, v.Save) }

// Valuer evaluates positions with a ValueModel; it holds scratch rows, so
// use one per goroutine. It satisfies search.Value.
type Valuer struct {
	m   *ValueModel
	set int
	row [NumValueFeatures2]float64
	net *netValue // a network's
}

// NewValuer returns a Valuer over m.
func NewValuer(m *ValueModel) *Valuer {
	v := &Valuer{m: m, set: m.FeatureSet()}
	if m.Net != nil {
		v.net = &netValue{acc: m.Net.NewAcc()}
	}
	return v
}

// Value is the estimated chance that the side to move wins pos. Hot: the
// search calls it at every leaf; guarded by BenchmarkValue.
func (v *Valuer) Value(pos *patterns.Position) float64 {
	if v.net != nil {
		return v.net.value(pos)
	}
	row := v.row[:NumValueColumns(v.set)]
	ValueFeaturesOf(v.set, row, pos)
	return v.m.Forest.PredictClass1(row)
}

// matrix views rows of cols columns, laid out one after another, as a
// matrix (sharing x).
func matrix(x []float64, cols int) *mat.Dense { return mat.NewDense(len(x)/cols, cols, x) }
