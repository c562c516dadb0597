package store

import (
	"encoding/json"
	"testing"
)

// TestGenerationJSON: a generation reads back as it was written, its
// details inline as JSON; details that are not JSON are left out.
func TestGenerationJSON(t *testing.T) {
	g := Generation{Gen: 3, Games: 12000, Rows: 5, FitSeconds: 1.5, AUC: 0.9, Score: 0.6, ScoreLow: 0.55, ScoreHigh: 0.65,
		Model: "gen-003.policy.ocf", Seed: 7, Created: "2026-11-25T03:00:00Z", Details: `{"gen":3,"adopted":true}`}
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"gen":3,"games":12000,"rows":5,"fit_seconds":1.5,"auc":0.9,"score":0.6,"score_low":0.55,"score_high":0.65,"model":"gen-003.policy.ocf","seed":7,"created":"2026-11-25T03:00:00Z","details":{"gen":3,"adopted":true}}`
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
	var back Generation
	if err := json.Unmarshal(b, &back); err != nil || back != g {
		t.Fatalf("read back %+v, %v", back, err)
	}
	g.Details = "not json"
	if b, err := json.Marshal(g); err != nil || string(b) != want[:len(want)-len(`,"details":{"gen":3,"adopted":true}}`)]+"}" {
		t.Fatalf("bad details: %s, %v", b, err)
	}
}
