package loop

import (
	"context"
	"fmt"

	"ocvist/agent"
	"ocvist/arena"
	"ocvist/internal/splitmix"
	"ocvist/openings"
	"ocvist/patterns"
	"ocvist/policy"
	"ocvist/search"
	"ocvist/store"
)

// Current is the generation whose models the loop plays with now, as db
// records it: the last record's Current (0, the start model, before any).
func Current(ctx context.Context, db store.Store) (int, error) {
	recs, err := Records(ctx, db)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	return recs[len(recs)-1].Current, nil
}

// Anchor is a fixed engine: the search over a policy (its prior) and a
// value model (nil: none).
type Anchor struct {
	Name   string
	Policy *policy.Model
	Value  *policy.ValueModel
}

// judge plays the gate (the new engine against the adopted one) and the
// anchor matches of the new engine and of the new pure policy.
func (l *Loop) judge(ctx context.Context, g int, next, cur models, rec *Record) error {
	ops, err := openings.Generate(splitmix.Derive(l.cfg.Seed, 0x9a7e, uint64(g)), max(l.cfg.Gate.MaxGames, l.cfg.AnchorGames)/2, l.cfg.Rule)
	if err != nil {
		return err
	}
	engine := l.engine(Anchor{Name: fmt.Sprintf("gen %d", g), Policy: next.policy, Value: next.value})
	if l.cfg.Gate.None() {
		rec.Gate, rec.Adopted = MatchRecord{Against: fmt.Sprintf("gen %d", cur.gen), Decision: NoGate}, true
		l.logf("gen %d: no gate: adopted", g)
	} else {
		sprt := &arena.SPRT{Elo0: l.cfg.Gate.Elo0, Elo1: l.cfg.Gate.Elo1, Alpha: 0.05, Beta: 0.05, MinPairs: l.cfg.Gate.MinPairs}
		rec.Gate, err = l.match(ctx, engine, fmt.Sprintf("gen %d", cur.gen), l.engine(Anchor{Policy: cur.policy, Value: cur.value}), ops, l.cfg.Gate.MaxGames, sprt)
		if err != nil {
			return err
		}
		rec.Adopted, rec.Gate.ByInterval = gateDecides(l.cfg.Gate, rec.Gate)
		l.logf("gen %d: gate, engine against gen %d's: %d games, pair score %.3f [%.3f, %.3f], LLR %.2f, %s: %s",
			g, cur.gen, rec.Gate.Games, rec.Gate.Score, rec.Gate.Low, rec.Gate.High, rec.Gate.LLR, rec.GateVerdict(), map[bool]string{true: "adopted", false: "rejected"}[rec.Adopted])
	}
	patternsAgent := func(seed uint64) agent.Agent { return arena.NewPatterns(seed, patterns.Config{}) }
	var anchors []opponent
	for _, a := range l.Anchors {
		anchors = append(anchors, opponent{a.Name, l.engine(a)})
	}
	anchors = append(anchors, opponent{"gen 0", l.engine(Anchor{Policy: l.start})}, opponent{"patterns", patternsAgent})
	for _, a := range anchors {
		m, err := l.match(ctx, engine, a.name, a.make, ops, l.cfg.AnchorGames, nil)
		if err != nil {
			return err
		}
		rec.Engine = append(rec.Engine, m)
		l.logf("gen %d: engine against %s: score %.3f, Elo %+.0f [%+.0f, %+.0f]", g, a.name, m.Score, m.Elo, m.EloLow, m.EloHigh)
	}
	pure := policyAgent(next.policy)
	for _, a := range []opponent{{"gen 0", policyAgent(l.start)}, {"patterns", patternsAgent}} {
		m, err := l.match(ctx, pure, a.name, a.make, ops, l.cfg.AnchorGames, nil)
		if err != nil {
			return err
		}
		rec.Anchors = append(rec.Anchors, m)
		l.logf("gen %d: pure policy against %s: score %.3f, Elo %+.0f [%+.0f, %+.0f]", g, a.name, m.Score, m.Elo, m.EloLow, m.EloHigh)
	}
	return nil
}

// opponent is an anchor's name and its agents.
type opponent struct {
	name string
	make func(seed uint64) agent.Agent
}

// gateTTBits sizes the transposition table of the gate's and anchors'
// engines (3 MiB): a fresh engine plays each game, and GateNodes-node
// searches fill no more.
const gateTTBits = 16

// engine makes the search agents of a (the engine users play, at
// GateNodes nodes a move).
func (l *Loop) engine(a Anchor) func(uint64) agent.Agent {
	return func(uint64) agent.Agent {
		ec := search.DefaultConfig()
		ec.TTBits = gateTTBits
		s, err := arena.NewSearch(arena.SearchConfig{Name: a.Name, Engine: ec, Nodes: l.cfg.GateNodes, Model: a.Policy, Value: a.Value})
		if err != nil {
			panic("loop: " + err.Error()) // NewSearch fails on no configuration
		}
		return s
	}
}

// EloBound stands for an infinite Elo estimate (a perfect or a zero score)
// in records, which JSON cannot hold.
const EloBound = 1000

func clampElo(e float64) float64 { return max(-EloBound, min(EloBound, e)) }

// policyAgent makes pure-policy agents (best move, no search) over m.
func policyAgent(m *policy.Model) func(uint64) agent.Agent {
	return func(uint64) agent.Agent {
		a, err := arena.NewForest(m, arena.ForestConfig{})
		if err != nil {
			panic("loop: " + err.Error()) // the model's rule was checked by New
		}
		return a
	}
}

// match plays the agents of a against those of b (named name) from the
// openings, paired, for at most games games (an SPRT may end it sooner).
func (l *Loop) match(ctx context.Context, a func(uint64) agent.Agent, name string, b func(uint64) agent.Agent,
	ops []openings.Opening, games int, sprt *arena.SPRT) (MatchRecord, error) {
	newA := func(int) (agent.Agent, error) { return a(0), nil }
	newB := func(i int) (agent.Agent, error) { return b(splitmix.Derive(l.cfg.Seed, 0xb, uint64(i))), nil }
	res, err := arena.MatchFactories(ctx, newA, newB, arena.Config{Rule: l.cfg.Rule, Radius: l.cfg.Radius,
		Games: games, Openings: ops, SPRT: sprt, Concurrency: l.cfg.Workers})
	if err != nil {
		return MatchRecord{}, err
	}
	if err := ctx.Err(); err != nil {
		return MatchRecord{}, err
	}
	mr := MatchRecord{Against: name, Games: res.Total.Games()}
	mr.Score, mr.Low, mr.High, _ = arena.PairScore(res.Pentanomial())
	mr.Score, mr.Low, mr.High = defined(mr.Score), defined(mr.Low), defined(mr.High)
	mr.Elo, mr.EloLow, mr.EloHigh = res.Elo()
	mr.Elo, mr.EloLow, mr.EloHigh = clampElo(mr.Elo), clampElo(mr.EloLow), clampElo(mr.EloHigh)
	if sprt != nil {
		mr.Decision, mr.LLR = res.Decision.String(), res.LLR
	}
	return mr, nil
}
