package policy

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"ocvist/data"
	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/patterns"
)

func shippedValue(tb testing.TB) *ValueModel {
	vm, err := LoadValue(bytes.NewReader(data.Value))
	if err != nil {
		tb.Fatal(err)
	}
	return vm
}

// renjuValue is data/value-renju.ocf, a value forest of set 2.
func renjuValue(tb testing.TB) *ValueModel {
	vm, err := LoadValue(bytes.NewReader(data.RenjuValue))
	if err != nil || vm.Forest == nil {
		tb.Fatalf("data/value-renju.ocf: %v, %v", vm, err)
	}
	return vm
}

// randomValue fits a value model of set on rows of the features of
// seeded random positions with random labels: a forest of cfg's shape.
func randomValue(tb testing.TB, set int, cfg forest.Config) *ValueModel {
	ps, _ := middleGames(tb, 64)
	var x []float64
	var y []int
	row := make([]float64, NumValueColumns(set))
	rng := rand.New(rand.NewPCG(5, 5))
	for range 40 {
		for _, p := range ps {
			ValueFeaturesOf(set, row, p)
			for j := range row {
				row[j] += float64(rng.IntN(3))
			}
			x, y = append(x, row...), append(y, rng.IntN(2))
		}
	}
	cfg.MinLeaf = 1
	vm, err := FitValue(context.Background(), set, x, y, nil, gomoku.Freestyle, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return vm
}

// BenchmarkValue: one op is one Valuer.Value (features and prediction) on
// middle-game positions, as the search calls it at every leaf:
// "shipped" is data/value.ocf (the value network, set 3); "set2" a
// forest of the loop's value shape on set 2 (8 trees of depth 14), and
// "set2-16x10" of the shape before it; "net32" and "net64" value networks
// (set 3) of 32 and 64 hidden units.
func BenchmarkValue(b *testing.B) {
	shape := func(trees, depth int) forest.Config {
		vf := forest.DefaultConfig()
		vf.Trees, vf.MaxDepth = trees, depth
		return vf
	}
	for _, c := range []struct {
		name string
		vm   func() *ValueModel
	}{
		{"shipped", func() *ValueModel { return shippedValue(b) }},
		{"set2", func() *ValueModel { return randomValue(b, ValueFeatureSet2, shape(8, 14)) }},
		{"set2-16x10", func() *ValueModel { return randomValue(b, ValueFeatureSet2, shape(16, 10)) }},
		{"net32", func() *ValueModel { return randomNet(b, 32) }},
		{"net64", func() *ValueModel { return randomNet(b, 64) }},
	} {
		b.Run(c.name, func(b *testing.B) { benchValue(b, NewValuer(c.vm())) })
	}
}

func benchValue(b *testing.B, v *Valuer) {
	ps, _ := middleGames(b, 16)
	var s float64
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		s += v.Value(ps[i%len(ps)])
		i++
	}
	_ = s
}

// BenchmarkValueFeatures: one op is set 2's features of a middle-game
// position (without the forest).
func BenchmarkValueFeatures(b *testing.B) {
	ps, _ := middleGames(b, 16)
	row := make([]float64, NumValueFeatures2)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ValueFeaturesOf(ValueFeatureSet2, row, ps[i%len(ps)])
		i++
	}
}

// TestValueFeatures2: set 2 of featureDiagram (Black to move with the open
// three f7 g7 h7; White's broken three e9 e8 e6) counted by hand where it
// is easy (Black makes a straight four at e7 and i7, White at e7), and
// every column against a count over the board's cells (Position.Has);
// set 1's columns are ValueFeatures'.
func TestValueFeatures2(t *testing.T) {
	pos := mustPosition(t, featureDiagram)
	got := make([]float64, NumValueFeatures2)
	ValueFeaturesOf(ValueFeatureSet2, got, pos)
	set1 := make([]float64, NumValueFeatures)
	ValueFeatures(set1, pos)
	if !slices.Equal(got[:NumValueFeatures], set1) {
		t.Errorf("set 2's first columns %v, want set 1's %v", got[:NumValueFeatures], set1)
	}
	me, opp := gomoku.Black, gomoku.White
	count := func(f func(q gomoku.Point) bool) float64 {
		n := 0
		for q := range gomoku.Point(gomoku.NumCells) {
			if pos.Board().At(q) == gomoku.Empty && f(q) {
				n++
			}
		}
		return float64(n)
	}
	want := map[string]float64{}
	for side, pl := range map[string]gomoku.Player{"mover": me, "opp": opp} {
		want[side+"_win_points"] = count(func(q gomoku.Point) bool { return pos.Has(q, patterns.MakesWin, pl) })
		want[side+"_double_points"] = count(func(q gomoku.Point) bool { return pos.Has(q, patterns.MakesDouble, pl) })
		want[side+"_four_three_points"] = count(func(q gomoku.Point) bool {
			return pos.Has(q, patterns.MakesDouble, pl) && pos.Has(q, patterns.MakesFour, pl)
		})
		want[side+"_five_points"] = count(func(q gomoku.Point) bool { return pos.Has(q, patterns.MakesFive, pl) })
	}
	wants := func(q gomoku.Point, pl gomoku.Player) bool {
		return pos.Has(q, patterns.MakesThree, pl) || pos.Has(q, patterns.MakesFour, pl)
	}
	want["contested_points"] = count(func(q gomoku.Point) bool { return wants(q, me) && wants(q, opp) })
	if want["mover_win_points"] != 2 || want["opp_win_points"] != 1 || want["contested_points"] < 1 {
		t.Fatalf("the diagram is not what the test says: %v", want)
	}
	for i, name := range ValueFeatureNames2[NumValueFeatures:] {
		if got[NumValueFeatures+i] != want[name] {
			t.Errorf("%s = %v, want %v", name, got[NumValueFeatures+i], want[name])
		}
	}
}

// TestValueFromForestSets: value forests of set 1 and set 2 (the shipped
// renju one among them) load as themselves, with their set and rule; a
// policy forest is refused.
func TestValueFromForestSets(t *testing.T) {
	vf := forest.DefaultConfig()
	vf.Trees, vf.MaxDepth = 2, 3
	for _, vm := range []*ValueModel{renjuValue(t), randomValue(t, ValueFeatureSet1, vf), randomValue(t, ValueFeatureSet2, vf)} {
		var buf bytes.Buffer
		if err := (&Model{Forest: vm.Forest}).Save(&buf); err != nil {
			t.Fatal(err)
		}
		f, err := forest.Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ValueFromForest(f)
		if err != nil || back.FeatureSet() != vm.FeatureSet() || back.Rule != vm.Rule {
			t.Errorf("set %d: loaded as %+v, %v", vm.FeatureSet(), back, err)
		}
	}
	pf, err := forest.Load(bytes.NewReader(data.Model))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ValueFromForest(pf); !errors.Is(err, ErrModel) {
		t.Errorf("a policy forest as a value model: %v, want ErrModel", err)
	}
}
