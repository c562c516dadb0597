package main

import (
	"math/rand/v2"

	"ocvist/arena"
	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/selfplay"
)

// newGameConfig turns the flag-level game configuration into self-play's.
func newGameConfig(g gameConfig) (selfplay.Config, error) {
	rule, err := gomoku.ParseRule(g.Rule)
	if err != nil {
		return selfplay.Config{}, err
	}
	c := selfplay.Config{Rule: rule, Radius: g.Radius, MaxPly: g.MaxPly}
	if g.Openings != "" {
		ops, err := arena.ReadOpeningsFile(g.Openings)
		if err != nil {
			return c, err
		}
		for _, op := range ops {
			c.Openings = append(c.Openings, op.Moves)
		}
	}
	return c, c.Validate()
}

// newPolicy returns the self-play policy: uniform in generation 0, the
// forest's with a model.
func newPolicy(g gameConfig) (selfplay.Policy, error) {
	if g.Model == "" {
		return selfplay.Uniform{}, nil
	}
	m, err := forest.LoadFile(g.Model)
	if err != nil {
		return nil, err
	}
	cfg := forest.DefaultPolicyConfig
	cfg.Temperature = g.Temperature
	pol, err := forest.NewPolicy(m, cfg, nil)
	if err != nil {
		return nil, err
	}
	return forestPolicy{pol}, nil
}

// forestPolicy samples self-play moves from the forest's scores.
type forestPolicy struct{ p *forest.Policy }

func (f forestPolicy) Choose(t *selfplay.Turn, rng *rand.Rand) gomoku.Point {
	return t.Moves[f.p.Sample(f.p.Scores(t.Pos, t.Filter, &t.Canon, t.Moves), rng)]
}
