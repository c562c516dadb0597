package main

import (
	"fmt"

	"ocvist/arena"
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
	return nil, fmt.Errorf("-model: the forest policy is not wired yet")
}
