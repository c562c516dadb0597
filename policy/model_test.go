package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"ocvist/canon"
	"ocvist/data"
	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/patterns"
)

// The hashes of the shipped models: a shipped model changes only by name
// (README.md, "The shipped model"), never by a fit or a format change.
// model-2026-11-21.ocf is the model shipped on 2026-11-21; model.ocf and
// value.ocf are those of the learning loop's recipe (data/README.md).
const (
	shipped20261121SHA256 = "e0dee9fda44724e5b19eb3b2986d413da69aed4f8fd4c1b89457ab2328eace17"
	shippedSHA256         = "6fe462740ab8b5548b9715c506bdb3d029fd278569a94b943e9c14ed58583105"
	shippedValueSHA256    = "6274be05b781e72aa277dec540b8d0aeab0a452ff305e339edfbc9a2d7f83536"
	shippedForestSHA256   = "7637097d55547d8ab4edc0208678a51d7db2e778e40618b560b86489c92e6cae"
)

// TestShippedModels: the shipped files are the recorded ones; the search's
// policy loads as feature set 2, the forest agent's as feature set 3 and
// the value model as a value network (value feature set 3), all for
// freestyle.
func TestShippedModels(t *testing.T) {
	for _, f := range []struct {
		name, want string
		data       []byte
	}{{"model.ocf", shippedSHA256, data.Model}, {"value.ocf", shippedValueSHA256, data.Value},
		{"forest.ocf", shippedForestSHA256, data.Forest}} {
		if sum := sha256.Sum256(f.data); hex.EncodeToString(sum[:]) != f.want {
			t.Errorf("data/%s has sha256 %x, want %s", f.name, sum, f.want)
		}
	}
	m, err := Load(bytes.NewReader(data.Model))
	if err != nil || m.Spec != (Spec{FeatureSet: HistoryFeatureSet, Rule: gomoku.Freestyle, Radius: 2}) {
		t.Fatalf("data/model.ocf: %v, %v; want feature set 2, freestyle, radius 2", m, err)
	}
	if m, err = Load(bytes.NewReader(data.Forest)); err != nil || m.Spec != (Spec{FeatureSet: ThreatFeatureSet, Rule: gomoku.Freestyle, Radius: 2}) {
		t.Fatalf("data/forest.ocf: %v, %v; want feature set 3, freestyle, radius 2", m, err)
	}
	vm, err := LoadValue(bytes.NewReader(data.Value))
	if err != nil || vm.Net == nil || vm.FeatureSet() != ValueFeatureSet3 || vm.Rule != gomoku.Freestyle {
		t.Fatalf("data/value.ocf: %+v, %v; want a value network of feature set 3, freestyle", vm, err)
	}
	var again bytes.Buffer
	if err := vm.Save(&again); err != nil || !bytes.Equal(again.Bytes(), data.Value) {
		t.Errorf("data/value.ocf saves different bytes after LoadValue (%v)", err)
	}
}

func TestShippedModel20261121(t *testing.T) {
	sum := sha256.Sum256(data.Model20261121)
	if got := hex.EncodeToString(sum[:]); got != shipped20261121SHA256 {
		t.Fatalf("data/model-2026-11-21.ocf has sha256 %s, want %s", got, shipped20261121SHA256)
	}
	m, err := Load(bytes.NewReader(data.Model20261121))
	if err != nil {
		t.Fatal(err)
	}
	if m.Spec != (Spec{FeatureSet: 1, Rule: gomoku.Freestyle, Radius: 2}) || m.Forest.Meta() != nil {
		t.Errorf("shipped model spec %v, meta %v; want feature set 1, freestyle, radius 2 and no metadata", m.Spec, m.Forest.Meta())
	}
	f, err := forest.Load(bytes.NewReader(data.Model20261121))
	if err != nil {
		t.Fatal(err)
	}
	ps, rs := middleGames(t, 4)
	row := make([]float64, NumFeatures)
	for k, pos := range ps {
		for _, q := range rs[k].Moves {
			Features(row, pos, &rs[k], q)
			if a, b := m.Forest.PredictClass1(row), f.PredictClass1(row); a != b {
				t.Fatalf("policy model predicts %v, forest %v", a, b)
			}
		}
	}
}

// rowsModel fits a small forest on random rows of p columns with cfg's
// names and metadata, as another program might have.
func rowsModel(t *testing.T, p int, names []string, meta map[string]string) *forest.Model {
	t.Helper()
	x := mat.NewDense(40, p, nil)
	labels := make([]int, 40)
	for i := range labels {
		x.Set(i, 0, float64(i))
		labels[i] = i % 2
	}
	cfg := forest.DefaultConfig()
	cfg.Trees, cfg.FeatureNames, cfg.Meta = 2, names, meta
	f, err := forest.Fit(context.Background(), x, labels, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFromForestRefuses(t *testing.T) {
	good := Spec{FeatureSet, gomoku.Standard, 3}.meta()
	renamed := slices.Clone(FeatureNames[:])
	renamed[3] = "something_else"
	tests := []struct {
		name  string
		p     int
		names []string
		meta  map[string]string
		want  string
	}{
		{"other feature set", NumFeatures, nil, map[string]string{"feature_set": "4", "rule": "freestyle", "radius": "2"}, "it computes feature set 4; this build computes sets 1 to 3"},
		{"set 2 with set 1's columns", NumFeatures, nil, map[string]string{"feature_set": "2", "rule": "freestyle", "radius": "2"}, "it has 30 features and 2 classes, want 32 and 2"},
		{"three columns", 3, nil, nil, "it has 3 features and 2 classes, want 30 and 2"},
		{"renamed column", NumFeatures, renamed, good, "its features are named otherwise"},
		{"radius missing", NumFeatures, nil, map[string]string{"feature_set": "1", "rule": "freestyle"}, "does not say how its features are computed"},
		{"unknown rule", NumFeatures, nil, map[string]string{"feature_set": "1", "rule": "caro", "radius": "2"}, "does not say how"},
		{"radius 9", NumFeatures, nil, map[string]string{"feature_set": "1", "rule": "freestyle", "radius": "9"}, "radius 9 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromForest(rowsModel(t, tt.p, tt.names, tt.meta))
			if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrModel with %q", err, tt.want)
			}
		})
	}
	m, err := FromForest(rowsModel(t, NumFeatures, FeatureNames[:], good))
	if err != nil || m.Spec != (Spec{FeatureSet, gomoku.Standard, 3}) {
		t.Errorf("a model of this build's features: %v, %v", m, err)
	}
}

func TestSaveFileLoadFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models")
	path := filepath.Join(dir, "m.ocf")
	x, labels := mat.NewDense(50, NumFeatures, nil), make([]int, 50)
	for i := range labels {
		x.Set(i, 0, float64(i%7))
		labels[i] = i % 7 / 4
	}
	spec := Spec{FeatureSet, gomoku.Standard, 3}
	cfg := forest.DefaultConfig()
	cfg.Trees = 3
	m, err := Fit(context.Background(), &Dataset{X: x, Labels: labels, Spec: spec}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	n, err := m.SaveFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	got.Save(&buf)
	file, _ := os.ReadFile(path)
	if got.Spec != spec || !bytes.Equal(buf.Bytes(), file) || int64(len(file)) != n {
		t.Errorf("loaded spec %v (want %v), %d bytes reported for %d", got.Spec, spec, n, len(file))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the model directory, want the model alone", len(entries))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("model file mode %v, %v", fi.Mode(), err)
	}
	if _, err := LoadFile(filepath.Join(dir, "none.ocf")); err == nil || !strings.Contains(err.Error(), "none.ocf") {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := m.SaveFile(dir); err == nil {
		t.Error("saving over a directory succeeded")
	}
}

// TestRankModelsWay: Rank computes features with the model's radius,
// whatever the board's, and refuses a board of another rule.
func TestRankModelsWay(t *testing.T) {
	m := shapeModel(t)
	m.Spec.Radius = 3
	pol, err := New(m, DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := gomoku.New(gomoku.Options{Radius: 1})
	for _, p := range []gomoku.Point{gomoku.Center, gomoku.Pt(8, 8), gomoku.Pt(9, 7)} {
		b.Play(p)
	}
	res, scores, err := pol.Rank(b)
	if err != nil {
		t.Fatal(err)
	}
	b3 := gomoku.New(gomoku.Options{Radius: 3})
	for _, p := range b.History() {
		b3.Play(p)
	}
	pos3 := patterns.FromBoard(b3)
	want := patterns.Filter(pos3, b3.ToMove(), patterns.Config{}, patterns.Result{})
	plain, _ := New(m, DefaultConfig(), nil)
	wantScores := plain.Scores(pos3, &want, nil, want.Moves)
	if !slices.Equal(res.Moves, want.Moves) || !slices.Equal(scores, wantScores) || len(want.Moves) != 67 || len(b.Candidates(nil)) != 15 {
		t.Errorf("Rank on a radius-1 board: %d moves, want the radius-3 board's %d", len(res.Moves), len(want.Moves))
	}
	if _, _, err := pol.Rank(gomoku.New(gomoku.Options{Rule: gomoku.Standard})); err == nil || !strings.Contains(err.Error(), "fitted for freestyle, not standard") {
		t.Errorf("a standard board: %v", err)
	}
}

func TestLoadStats(t *testing.T) {
	rows := []Stat{{"k", canon.Move{X: 0, Y: 1}, 4, 30}, {"k", canon.Move{X: 1, Y: 1}, 1, 19}, {"j", canon.Move{X: 0, Y: 0}, -20, 20}}
	var asked int64
	s, err := LoadStats(20, func(minGames int64, fn func(Stat) error) error {
		asked = minGames
		for _, r := range rows {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || asked != 20 || len(s) != 2 || s[KeyMove{"k", canon.Move{X: 0, Y: 1}}] != rows[0] || s[KeyMove{"j", canon.Move{X: 0, Y: 0}}] != rows[2] {
		t.Errorf("stats %v (asked for %d games), %v", s, asked, err)
	}
	boom := errors.New("boom")
	if _, err := LoadStats(1, func(int64, func(Stat) error) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("scan error: %v", err)
	}
}

// TestEvaluate: the AUC of a model that learned the deciding feature, and
// that feature as the baseline.
func TestEvaluate(t *testing.T) {
	m := shapeModel(t)
	x := mat.NewDense(200, NumFeatures, nil)
	labels := make([]int, 200)
	for i := range labels {
		x.Set(i, 0, float64(i%8))
		x.Set(i, 5, float64(i%3))
		if i%8 >= int(patterns.BrokenThree) {
			labels[i] = 1
		}
	}
	ev := Evaluate(m, &Dataset{X: x, Labels: labels})
	if ev.Baseline != "mover_shape_1" || ev.BaselineAUC != 1 || ev.AUC < 0.99 {
		t.Errorf("evaluation %+v, want AUC about 1 and baseline mover_shape_1 at 1", ev)
	}
	if ev := Evaluate(m, &Dataset{}); ev.AUC == ev.AUC || ev.Baseline != "" {
		t.Errorf("an empty set: %+v, want NaN", ev)
	}
}

// TestHistoryFeatureSet: a model of set 2 loads with its spec, and set 2's
// two last columns are the distances to the last two moves (15 without).
func TestHistoryFeatureSet(t *testing.T) {
	meta := Spec{HistoryFeatureSet, gomoku.Freestyle, 2}.meta()
	m, err := FromForest(rowsModel(t, NumHistoryFeatures, HistoryFeatureNames[:], meta))
	if err != nil || m.Spec.FeatureSet != HistoryFeatureSet {
		t.Fatalf("set 2 model: %v, %v", m, err)
	}
	pos := patterns.NewPosition(gomoku.Options{})
	row := make([]float64, NumHistoryFeatures)
	var f patterns.Result
	q := gomoku.Pt(3, 3)
	FeaturesOf(HistoryFeatureSet, row, pos, &f, nil, q)
	if row[NumFeatures] != 15 || row[NumFeatures+1] != 15 {
		t.Errorf("empty board: distances %v, want 15 15", row[NumFeatures:])
	}
	for _, p := range []gomoku.Point{gomoku.Pt(7, 7), gomoku.Pt(5, 3)} {
		if err := pos.Play(p); err != nil {
			t.Fatal(err)
		}
	}
	f = patterns.Filter(pos, pos.Board().ToMove(), patterns.Config{}, f)
	FeaturesOf(HistoryFeatureSet, row, pos, &f, nil, q)
	if row[NumFeatures] != 2 || row[NumFeatures+1] != 4 {
		t.Errorf("after h8 f4: distances from d4 %v, want 2 (to f4) and 4 (to h8)", row[NumFeatures:])
	}
	set1 := make([]float64, NumFeatures)
	Features(set1, pos, &f, q)
	if !slices.Equal(set1, row[:NumFeatures]) {
		t.Errorf("set 2's first columns %v differ from set 1's %v", row[:NumFeatures], set1)
	}
}

// TestThreatFeatureSet: set 3's first columns are set 2's, its threat
// columns are each side's class cells before the move and after it (the
// position with the move put), and computing them leaves the position as
// it was.
func TestThreatFeatureSet(t *testing.T) {
	meta := Spec{ThreatFeatureSet, gomoku.Freestyle, 2}.meta()
	m, err := FromForest(rowsModel(t, NumThreatFeatures, ThreatFeatureNames[:], meta))
	if err != nil || m.Spec.FeatureSet != ThreatFeatureSet {
		t.Fatalf("set 3 model: %v, %v", m, err)
	}
	pos := mustPosition(t, featureDiagram) // Black to move
	res := patterns.Filter(pos, gomoku.Black, patterns.Config{}, patterns.Result{})
	before := pos.Board().String()
	classes := [4]patterns.Class{patterns.MakesWin, patterns.MakesFour, patterns.MakesThree, patterns.MakesDouble}
	counts := func(p *patterns.Position, side gomoku.Player) (n [4]float64) {
		for i, c := range classes {
			n[i] = float64(p.Count(c, side))
		}
		return n
	}
	// i7 makes x's straight four f7-i7: x's win points go (e7 and i7
	// made a straight four before) to none, its five-points are e7 and j7.
	i7, _ := gomoku.ParsePoint("i7")
	row := make([]float64, NumThreatFeatures)
	var th Threats
	th.Read(ThreatFeatureSet, pos)
	FeaturesOf(ThreatFeatureSet, row, pos, &res, &th, i7)
	if pos.Board().String() != before {
		t.Fatalf("the position changed:\n%s", pos.Board())
	}
	if err := pos.Check(); err != nil {
		t.Fatal(err)
	}
	set2 := make([]float64, NumHistoryFeatures)
	FeaturesOf(HistoryFeatureSet, set2, pos, &res, nil, i7)
	if !slices.Equal(set2, row[:NumHistoryFeatures]) {
		t.Errorf("set 3's first columns %v differ from set 2's %v", row[:NumHistoryFeatures], set2)
	}
	cur, their := counts(pos, gomoku.Black), counts(pos, gomoku.White)
	wantBefore := []float64{cur[0], their[0], cur[3], their[3]}
	if got := row[NumHistoryFeatures : NumHistoryFeatures+4]; !slices.Equal(got, wantBefore) {
		t.Errorf("before the move: %v, want %v", got, wantBefore)
	}
	if cur[0] != 2 { // e7 and i7 make x's straight four
		t.Errorf("x's win points before i7: %v, want 2", cur[0])
	}
	after := pos.Clone()
	if err := after.Put(i7, gomoku.Black); err != nil {
		t.Fatal(err)
	}
	mine, theirs := counts(after, gomoku.Black), counts(after, gomoku.White)
	want := append(mine[:], theirs[:]...)
	if got := row[NumHistoryFeatures+4 : NumHistoryFeatures+12]; !slices.Equal(got, want) {
		t.Errorf("after i7: %v, want %v", got, want)
	}
	col := func(name string) float64 { return row[slices.Index(ThreatFeatureNames[:], name)] }
	if col("after_mover_win_points") != 0 || after.Count(patterns.MakesFive, gomoku.Black) != 2 {
		t.Errorf("after i7: x's win points %v (want 0: the four is made), five-points %d (want 2, e7 and j7)",
			col("after_mover_win_points"), after.Count(patterns.MakesFive, gomoku.Black))
	}
	// The VCFs: x wins by a straight four (e7 or i7 first); o, were it to
	// move, by e7's straight four in column e. After i7 o has none (x
	// makes five first), after e7 none (the column is blocked), after a
	// move far away it still has.
	th.Read(ThreatFeatureSet, pos)
	first := th.moverFirst
	e7, _ := gomoku.ParsePoint("e7")
	a15, _ := gomoku.ParsePoint("a15")
	if first != e7 && first != i7 {
		t.Fatalf("x's VCF starts at %v, want e7 or i7", first)
	}
	for _, c := range []struct {
		q                    gomoku.Point
		first, opp, afterOpp float64
	}{
		{i7, b2f(first == i7), 1, 0},
		{e7, b2f(first == e7), 1, 0},
		{a15, 0, 1, 1},
	} {
		FeaturesOf(ThreatFeatureSet, row, pos, &res, &th, c.q)
		if got := [3]float64{col("mover_vcf_first"), col("opp_vcf"), col("after_opp_vcf")}; got != [3]float64{c.first, c.opp, c.afterOpp} {
			t.Errorf("%v: VCF columns %v, want %v", c.q, got, [3]float64{c.first, c.opp, c.afterOpp})
		}
	}
	if pos.Board().String() != before {
		t.Fatalf("the position changed:\n%s", pos.Board())
	}
}
