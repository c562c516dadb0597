package loop

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/policy"
	"ocvist/store"
	"ocvist/store/sqlite"
)

func smallConfig(seed uint64) Config {
	c := DefaultConfig()
	c.Games, c.Block, c.Nodes, c.Openings, c.Explore = 12, 3, 300, 4, 2
	c.Policy.Trees, c.Policy.MaxDepth, c.Value.Trees, c.Value.MaxDepth = 4, 6, 3, 5
	// A lenient gate: models fitted on a dozen games do not beat the
	// start model's engine; it accepts an engine 200 Elo weaker rather
	// than 400. The tests that need every generation adopted have no
	// gate (newSmall).
	c.Gate = Gate{MaxGames: 8, MinPairs: 2, Elo0: -400, Elo1: -200}
	c.AnchorGames, c.Workers, c.Seed, c.GateNodes = 4, 2, seed, 300
	return c
}

// runSmall runs gens generations of a small loop in a fresh directory and
// returns the stored games, the records and the directory.
func runSmall(t *testing.T, seed uint64, gens int) ([]store.TeacherGame, []Record, string) {
	t.Helper()
	return runConfig(t, smallConfig(seed), gens)
}

// runConfig is runSmall with its configuration.
func runConfig(t *testing.T, cfg Config, gens int) ([]store.TeacherGame, []Record, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(filepath.Join(dir, "l.db"), store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start, err := policy.Load(bytes.NewReader(data.Model20261121))
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(db, filepath.Join(dir, "models"), start, cfg)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := l.Run(ctx, gens)
	if err != nil || len(recs) != gens {
		t.Fatalf("run: %d records, %v", len(recs), err)
	}
	var games []store.TeacherGame
	if err := db.TeacherGames(ctx, 0, 100, func(g store.TeacherGame) error { games = append(games, g); return nil }); err != nil {
		t.Fatal(err)
	}
	stored, err := Records(ctx, db)
	if err != nil || !reflect.DeepEqual(stored, recs) {
		t.Fatalf("stored records differ from the run's (%v)", err)
	}
	return games, recs, dir
}

// TestPolicySet3: with PolicySet 3 the loop fits policies of feature set 3
// (the threat columns), and generation 2's teacher searches with
// generation 1's as its prior: its games are not those of the loop with
// set 2, whose first generation's games they share.
func TestPolicySet3(t *testing.T) {
	cfg := smallConfig(9)
	cfg.PolicySet = policy.ThreatFeatureSet
	g3, recs, _ := runConfig(t, cfg, 2)
	for _, r := range recs {
		m, err := policy.LoadFile(r.PolicyModel)
		if err != nil || m.Spec.FeatureSet != policy.ThreatFeatureSet || m.Forest.NumFeatures() != policy.NumThreatFeatures {
			t.Fatalf("gen %d: policy %v (%v); want feature set 3 with %d columns", r.Gen, m, err, policy.NumThreatFeatures)
		}
		if r.Samples == 0 || !(r.Top1 > 0 && r.Top1 <= 1) {
			t.Errorf("gen %d: %d samples, top-1 %v", r.Gen, r.Samples, r.Top1)
		}
	}
	g2, _, _ := runConfig(t, smallConfig(9), 2)
	if len(g3) != 24 || len(g2) != 24 || !reflect.DeepEqual(g3[:12], g2[:12]) || reflect.DeepEqual(g3[12:], g2[12:]) {
		t.Errorf("%d and %d games; generation 1 equal %v (want true), generation 2 equal %v (want false)",
			len(g3), len(g2), reflect.DeepEqual(g3[:12], g2[:12]), reflect.DeepEqual(g3[12:], g2[12:]))
	}
}

// TestNewRules: a loop refuses a database of another rule, and a start
// model fitted for another rule, each with its own error.
func TestNewRules(t *testing.T) {
	dir := t.TempDir()
	start, err := policy.Load(bytes.NewReader(data.Model20261121))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		db, loop gomoku.Rule
		want     string
	}{
		{gomoku.Standard, gomoku.Freestyle, "loop: rule freestyle, but the database plays standard"},
		{gomoku.Standard, gomoku.Standard, "loop: rule standard, but the start model was fitted for freestyle: start from a model fitted for standard"},
	} {
		db, err := sqlite.Open(filepath.Join(dir, c.loop.String()+".db"), store.DefaultConfig(c.db))
		if err != nil {
			t.Fatal(err)
		}
		cfg := smallConfig(1)
		cfg.Rule = c.loop
		if _, err := New(db, dir, start, cfg); err == nil || err.Error() != c.want {
			t.Errorf("database %v, loop %v: %v, want %q", c.db, c.loop, err, c.want)
		}
		db.Close()
	}
}

// TestReproducible: acceptance point 4 of the issue. The same seed gives
// the same teacher games (played by worker processes, this test binary:
// see TestMain; published in shards and stored once each), the same
// records' figures and byte-identical model files; another seed other
// games. FitValue refits a generation's value model as the loop did.
func TestReproducible(t *testing.T) {
	g1, r1, d1 := runSmall(t, 7, 2)
	g2, r2, d2 := runSmall(t, 7, 2)
	if len(g1) != 24 || !reflect.DeepEqual(g1, g2) {
		t.Fatalf("%d and %d games, equal %v; want 24 equal", len(g1), len(g2), reflect.DeepEqual(g1, g2))
	}
	for i := range r1 {
		a, b := r1[i], r2[i]
		if a.Samples != b.Samples || a.PolicyRows != b.PolicyRows || a.Top1 != b.Top1 || a.AUC != b.AUC || a.Gate.Score != b.Gate.Score || a.Adopted != b.Adopted {
			t.Errorf("gen %d: records differ:\n%+v\n%+v", a.Gen, a, b)
		}
		if a.Samples == 0 || a.PolicyRows < a.Samples*2 || !(a.Top1 >= 0 && a.Top1 <= 1) || a.Games != 12 {
			t.Errorf("gen %d: implausible record %+v", a.Gen, a)
		}
		if !reflect.DeepEqual(a.Engine, b.Engine) || !reflect.DeepEqual(a.Anchors, b.Anchors) || a.ScoreScale != b.ScoreScale || a.ValueAUC != b.ValueAUC {
			t.Errorf("gen %d: the engine's or the policy's matches or the value figures differ:\n%+v\n%+v", a.Gen, a, b)
		}
		// The value target is the teacher's scores (a fitted scale), a
		// network's row a position; the engine meets gen 0's engine and
		// patterns, the pure policy gen 0's and patterns.
		if a.ScoreScale < minScoreScale || a.ValueRows == 0 || len(a.Engine) != 2 || a.Engine[0].Against != "gen 0" ||
			a.Engine[1].Against != "patterns" || len(a.Anchors) != 2 || a.Gate.Games == 0 {
			t.Errorf("gen %d: score scale %v, %d value rows, engine %+v, policy %+v, gate %+v", a.Gen, a.ScoreScale, a.ValueRows, a.Engine, a.Anchors, a.Gate)
		}
		for _, name := range []string{a.PolicyModel, a.ValueModel} {
			rel, _ := filepath.Rel(d1, name)
			x, err1 := os.ReadFile(name)
			y, err2 := os.ReadFile(filepath.Join(d2, rel))
			if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
				t.Errorf("%s: model files differ (%v, %v)", rel, err1, err2)
			}
		}
	}
	// FitValue (train value) fits generation 2's value model byte for
	// byte as the loop did, and measures it alike.
	db, err := sqlite.OpenReadOnly(filepath.Join(d1, "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	vm, rec, err := FitValue(context.Background(), db, smallConfig(7), 1, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := vm.Save(&got); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(r1[1].ValueModel)
	if err != nil || !bytes.Equal(got.Bytes(), want) || rec.ValueAUC != r1[1].ValueAUC || rec.ScoreScale != r1[1].ScoreScale || rec.ValueRows != r1[1].ValueRows {
		t.Errorf("FitValue: model equal %v (%v), value AUC %v, scale %v, %d rows; the loop's %v, %v, %d",
			bytes.Equal(got.Bytes(), want), err, rec.ValueAUC, rec.ScoreScale, rec.ValueRows, r1[1].ValueAUC, r1[1].ScoreScale, r1[1].ValueRows)
	}
	if r1[1].Samples <= r1[0].Samples {
		t.Errorf("generation 2 fitted on %d samples, generation 1 on %d: the window of 2 should hold more", r1[1].Samples, r1[0].Samples)
	}
	g3, _, _ := runSmall(t, 8, 1)
	if reflect.DeepEqual(g3, g1[:12]) {
		t.Error("seed 8 played the games of seed 7")
	}
}
