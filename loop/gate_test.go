package loop

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/policy"
	"ocvist/store"
	"ocvist/store/sqlite"
)

// TestGateTooSmallForSPRT: a gate of 40 games cannot reach the SPRT's 30
// pairs, so it ends undecided at its game limit; the shipped engine (the
// search over the shipped policy and value) against generation 0's (its
// policy, no value model) scores far above 50% there, at 3,000 nodes,
// and the pair score's interval, all above 50%, adopts it (the case of
// the issue: 87.5% [78.0, 97.0], LLR 8.47, "undecided: rejected"). The
// other way round the interval is all below 50%: rejected.
func TestGateTooSmallForSPRT(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(filepath.Join(dir, "l.db"), store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gen0, err := policy.Load(bytes.NewReader(data.Model20261121))
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := policy.Load(bytes.NewReader(data.Model))
	if err != nil {
		t.Fatal(err)
	}
	value, err := policy.LoadValue(bytes.NewReader(data.Value))
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig(5)
	cfg.Gate = Gate{MaxGames: 40, MinPairs: 30, Elo0: 0, Elo1: 40}
	// At the recipe's gate budget, where the value model's lead is clear:
	// at smallConfig's 300 nodes the shipped engine scores about 62% against
	// generation 0's, too close for 20 pairs.
	cfg.GateNodes = DefaultConfig().GateNodes
	cfg.AnchorGames = 2
	l, err := New(db, dir, gen0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Gate.SPRTCanDecide() {
		t.Error("a gate of 40 games with 30 pairs needed says its SPRT can decide")
	}
	for _, tt := range []struct {
		name      string
		next, cur models
		adopted   bool
		verdict   string
	}{
		{"stronger", models{gen: 1, policy: shipped, value: value}, models{policy: gen0}, true, "undecided at the game limit; pair score interval above 50%"},
		{"weaker", models{gen: 1, policy: gen0}, models{policy: shipped, value: value}, false, "undecided at the game limit; pair score interval below 50%"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rec Record
			if err := l.judge(ctx, 1, tt.next, tt.cur, &rec); err != nil {
				t.Fatal(err)
			}
			g := rec.Gate
			if g.Games != 40 || g.Decision != "undecided" {
				t.Fatalf("gate: %d games, %s; want 40, undecided", g.Games, g.Decision)
			}
			if rec.Adopted != tt.adopted || rec.GateVerdict() != tt.verdict {
				t.Errorf("gate %.3f [%.3f, %.3f] LLR %.2f: adopted %v (%s), want %v (%s)",
					g.Score, g.Low, g.High, g.LLR, rec.Adopted, rec.GateVerdict(), tt.adopted, tt.verdict)
			}
		})
	}
}

// TestGateVerdict: the SPRT decides when it can; a gate that ended
// undecided falls back to the pair score's interval, which must lie above
// 50% to adopt in a gate that asks for strength and must not lie below it
// in a non-regression gate.
func TestGateVerdict(t *testing.T) {
	strength, nonRegression := Gate{Elo0: 0, Elo1: 20}, Gate{Elo0: -20, Elo1: 0}
	for _, tt := range []struct {
		g       Gate
		m       MatchRecord
		adopted bool
		verdict string
	}{
		{strength, MatchRecord{Decision: "H1 accepted", Low: 0.52}, true, "H1 accepted"},
		{strength, MatchRecord{Decision: "H0 accepted", Low: 0.3}, false, "H0 accepted"},
		{strength, MatchRecord{Decision: "undecided", Low: 0.501, High: 0.6}, true, "undecided at the game limit; pair score interval above 50%"},
		{strength, MatchRecord{Decision: "undecided", Low: 0.5, High: 0.6}, false, "undecided at the game limit; pair score interval not above 50%"},
		{strength, MatchRecord{Decision: "undecided", Low: 0.46, High: 0.52}, false, "undecided at the game limit; pair score interval not above 50%"},
		{strength, MatchRecord{Decision: "undecided", Low: -1, High: 0.499}, false, "undecided at the game limit; pair score interval below 50%"},
		{nonRegression, MatchRecord{Decision: "H1 accepted", Low: 0.48}, true, "H1 accepted"},
		{nonRegression, MatchRecord{Decision: "H0 accepted", High: 0.51}, false, "H0 accepted"},
		{nonRegression, MatchRecord{Decision: "undecided", Low: 0.501, High: 0.6}, true, "undecided at the game limit; pair score interval above 50%"},
		{nonRegression, MatchRecord{Decision: "undecided", Low: 0.46, High: 0.5}, true, "undecided at the game limit; pair score interval not below 50%"},
		{nonRegression, MatchRecord{Decision: "undecided", Low: 0.4, High: 0.499}, false, "undecided at the game limit; pair score interval below 50%"},
	} {
		rec := Record{Gate: tt.m}
		rec.Adopted, rec.Gate.ByInterval = gateDecides(tt.g, tt.m)
		if rec.Adopted != tt.adopted || rec.GateVerdict() != tt.verdict {
			t.Errorf("%+v, %+v: adopted %v (%s), want %v (%s)", tt.g, tt.m, rec.Adopted, rec.GateVerdict(), tt.adopted, tt.verdict)
		}
	}
	if strength.NonRegression() || !nonRegression.NonRegression() || !(Gate{Elo0: -40, Elo1: -10}).NonRegression() {
		t.Error("NonRegression: want it for Elo1 <= 0 only")
	}
}
