package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ocvist/coordinator"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/policy"
)

const testOpenings = "../../data/openings/piskvork-15.txt"

// TestFitReproducible: "train fit" on the same database and seed gives byte-identical model files; a corrupt
// or foreign model file is refused with one clear line.
func TestFitReproducible(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	mustTrain(t, "run", "-db", db, "-games", "400", "-workers", "2", "-seed", "11")
	a, b := filepath.Join(dir, "a.ocf"), filepath.Join(dir, "b.ocf")
	var res fitResult
	out := mustTrain(t, "fit", "-db", db, "-model", a, "-fit-seed", "5", "-trees", "8", "-json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("fit -json: %v: %s", err, out)
	}
	if res.Rows == 0 || res.TrainSamples == 0 || res.TestSamples == 0 || !(res.AUC > 0) || res.Bytes == 0 {
		t.Errorf("fit result %+v", res)
	}
	mustTrain(t, "fit", "-db", db, "-model", b, "-fit-seed", "5", "-trees", "8", "-fit-workers", "1")
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Error("two fits with the same seed gave different model files")
	}
	mustTrain(t, "fit", "-db", db, "-model", b, "-fit-seed", "6", "-trees", "8")
	if bb, _ = os.ReadFile(b); bytes.Equal(ba, bb) {
		t.Error("another seed gave the same model file")
	}
	// A model can drive self-play.
	mustTrain(t, "run", "-db", filepath.Join(dir, "g1.db"), "-games", "20", "-workers", "1", "-model", a, "-seed", "1")
	bad := filepath.Join(dir, "bad.ocf")
	os.WriteFile(bad, ba[:len(ba)/2], 0o644)
	other := filepath.Join(dir, "other.ocf")
	v := bytes.Clone(ba)
	v[8]++ // the format version follows the 8-byte magic
	os.WriteFile(other, v, 0o644)
	for m, want := range map[string]string{bad: "truncated", other: "format version", db: "not a forest model"} {
		_, errOut, code := train(t, "run", "-db", filepath.Join(dir, "g2.db"), "-games", "5", "-workers", "1", "-model", m)
		if code == 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, want) {
			t.Errorf("-model %s: exit %d, stderr %q, want one line with %q", filepath.Base(m), code, errOut, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "g2.db")); err == nil {
		t.Error("a refused run created its database")
	}
	// The model records the radius and rule of its features; self-play
	// under others refuses it.
	r3 := filepath.Join(dir, "r3.ocf")
	mustTrain(t, "fit", "-db", db, "-model", r3, "-radius", "3", "-trees", "2")
	for m, want := range map[string]policy.Spec{a: {FeatureSet: 1, Rule: gomoku.Freestyle, Radius: 2}, r3: {FeatureSet: 1, Rule: gomoku.Freestyle, Radius: 3}} {
		if got, err := policy.LoadFile(m); err != nil || got.Spec != want {
			t.Errorf("model %s: spec %v, %v; want %v", filepath.Base(m), got, err, want)
		}
	}
	for _, args := range [][]string{{"-model", r3}, {"-model", a, "-radius", "3"}, {"-model", a, "-rule", "standard"}} {
		args = append([]string{"run", "-db", filepath.Join(dir, "g3.db"), "-games", "5", "-workers", "1"}, args...)
		if _, errOut, code := train(t, args...); code != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "does not fit the games") {
			t.Errorf("train %v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestGenerations runs a small learning loop: every generation is
// recorded with its games, rows, fit time, AUC and gate score, and the
// report draws them.
func TestGenerations(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "l.db")
	args := []string{"run", "-db", db, "-games", "300", "-workers", "2", "-seed", "21", "-generations", "2",
		"-gate-games", "8", "-gate-openings", testOpenings, "-trees", "8"}
	out := mustTrain(t, args...)
	if strings.Count(out, "\ngeneration ") != 2 { // each after its self-play summary line
		t.Errorf("output:\n%s", out)
	}
	var st struct {
		Games int64 `json:"games"`
		Gens  []struct {
			Gen                   int
			Games, Rows           int64
			AUC, Score, Low, High float64
			FitSeconds            float64 `json:"fit_seconds"`
			Model                 string
			Seed                  uint64
		} `json:"generation_list"`
	}
	raw := mustTrain(t, "stats", "-db", db, "-json")
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		t.Fatal(err)
	}
	if st.Games != 600 || len(st.Gens) != 2 {
		t.Fatalf("stats after 2 generations: %s", raw)
	}
	for i, g := range st.Gens {
		if g.Gen != i+1 || g.Rows == 0 || !(g.AUC > 0) || g.Score < 0 || g.Score > 1 || g.Model == "" || g.Seed != 21 {
			t.Errorf("generation %+v", g)
		}
		if _, err := os.Stat(g.Model); err != nil {
			t.Errorf("model of generation %d: %v", g.Gen, err)
		}
	}
	// Resuming continues the numbering.
	mustTrain(t, append(args[:len(args):len(args)], "-generations", "1")...)
	if raw = mustTrain(t, "stats", "-db", db, "-json"); !strings.Contains(raw, `"gen":3`) {
		t.Errorf("third generation missing: %s", raw)
	}
	png := filepath.Join(dir, "curve.png")
	mustTrain(t, "report", "-db", db, "-o", png)
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("report did not write a PNG: %v", err)
	}
	// Without -o, the chart goes beside the database, named after it.
	beside := strings.TrimSuffix(db, filepath.Ext(db)) + "-curve.png"
	if out := mustTrain(t, "report", "-db", db); !strings.Contains(out, beside) {
		t.Errorf("report without -o: %q, want it to name %s", out, beside)
	}
	if b, err := os.ReadFile(beside); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("report without -o did not write a PNG beside the database: %v", err)
	}
	if _, errOut, code := train(t, "report", "-db", db, "-o", filepath.Join(dir, "c.gif")); code != 2 || !strings.Contains(errOut, ".png or .svg") {
		t.Errorf("report to .gif: exit %d %s", code, errOut)
	}
}

// TestSelfPlayPolicyBlendsStats: with a model and a database, self-play
// scores a move that has at least 20 stored games by blending the forest's
// estimate with its results (package policy); other moves by the forest.
func TestSelfPlayPolicyBlendsStats(t *testing.T) {
	dir := t.TempDir()
	db, model := filepath.Join(dir, "s.db"), filepath.Join(dir, "s.ocf")
	mustTrain(t, "run", "-db", db, "-games", "400", "-workers", "2", "-seed", "12")
	mustTrain(t, "fit", "-db", db, "-model", model, "-trees", "4")
	g := defaultRunConfig().Game
	g.Model = model
	ctx := context.Background()
	plain, err := coordinator.NewPolicy(ctx, g, "")
	if err != nil {
		t.Fatal(err)
	}
	blend, err := coordinator.NewPolicy(ctx, g, db)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := coordinator.LoadStats(ctx, db, 20)
	if err != nil {
		t.Fatal(err)
	}
	b := gomoku.New(gomoku.Options{})
	b.Play(gomoku.Center)
	pos := patterns.FromBoard(b)
	res := patterns.Filter(pos, b.ToMove(), patterns.Config{}, patterns.Result{})
	c := canon.Of(b)
	p0 := slices.Clone(plain.(coordinator.ForestPolicy).Scores(pos, &res, &c, res.Moves))
	p1 := blend.(coordinator.ForestPolicy).Scores(pos, &res, &c, res.Moves)
	blended := 0
	for i, q := range res.Moves {
		want := p0[i]
		if st, ok := stats[policy.KeyMove{Key: c.Key, Move: c.ToCanon(q)}]; ok {
			want = (float64(st.Games+st.WSum)/2 + 20*p0[i]) / (float64(st.Games) + 20)
			blended++
		}
		if math.Abs(p1[i]-want) > 1e-12 {
			t.Errorf("move %v: score %v, want %v", q, p1[i], want)
		}
	}
	if blended != len(res.Moves) {
		t.Errorf("%d of the %d second moves have 20 stored games after 400 games, want all", blended, len(res.Moves))
	}
}
