package main

import (
	"bytes"
	"context"
	"testing"

	"ocvist/agent"
	"ocvist/arena"
	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/policy"
)

// TestForestAgentModel: the forest agent plays the shipped pure policy
// (data/forest.ocf, feature set 3) and the search orders its moves with
// data/model.ocf (feature set 2): on the standard openings the forest
// agent's move is, every time, that of a forest agent over data.Forest,
// and on some it is not data.Model's.
func TestForestAgentModel(t *testing.T) {
	pure, err := loadPolicy("", data.Forest)
	if err != nil || pure.Spec.FeatureSet != policy.ThreatFeatureSet {
		t.Fatalf("the forest agent's shipped policy: %v, %v; want feature set 3", pure, err)
	}
	prior, err := loadPolicy("", data.Model)
	if err != nil || prior.Spec.FeatureSet != policy.HistoryFeatureSet {
		t.Fatalf("the search's shipped policy: %v, %v; want feature set 2", prior, err)
	}
	want, err := policy.Load(bytes.NewReader(data.Forest))
	if err != nil {
		t.Fatal(err)
	}
	agentOf := func(m *policy.Model) *arena.Forest {
		f, err := arena.NewForest(m, arena.ForestConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	got, err := newAgent("forest", agentEnv{seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	same, other := agentOf(want), agentOf(prior)
	differ := 0
	ops := standardOpenings(t)
	for i, o := range ops {
		b, err := o.Board(gomoku.Options{Rule: gomoku.Freestyle, Radius: 2})
		if err != nil {
			t.Fatal(err)
		}
		var moves [3]gomoku.Point
		for k, a := range []agent.Agent{got, same, other} {
			if err := a.NewGame(gomoku.Freestyle); err != nil {
				t.Fatal(err)
			}
			if moves[k], err = a.Move(context.Background(), b, gomoku.Clock{}); err != nil {
				t.Fatal(err)
			}
		}
		if moves[0] != moves[1] {
			t.Errorf("opening %d: the forest agent played %v, the forest over data/forest.ocf %v", i, moves[0], moves[1])
		}
		if moves[0] != moves[2] {
			differ++
		}
	}
	t.Logf("%d of %d openings: the pure policy's move is not the search's prior's", differ, len(ops))
	if differ == 0 {
		t.Errorf("on all %d openings the forest agent played data/model.ocf's move: is it the search's policy?", len(ops))
	}
}
