package arena

import (
	"context"
	"math/rand/v2"
	"slices"

	"ocvist/agent"
	"ocvist/gomoku"
	"ocvist/policy"
)

// ForestConfig configures a Forest agent.
type ForestConfig struct {
	Name string // shown in results; "" means "forest"
	// Temperature 0 plays the best score (deterministic); above 0 the agent
	// samples with that temperature, as self-play does.
	Temperature float64
	Seed        uint64       // drives the sampling
	Stats       policy.Stats // stored statistics to blend in; nil for none
}

// Forest plays the learned policy (package policy): the pattern filter's
// candidates scored by a forest model, and by stored statistics where a
// move has plenty.
type Forest struct {
	name        string
	pol         *policy.Policy
	temperature float64
	rng         *rand.Rand
}

// NewForest returns a Forest agent over model m.
func NewForest(m *policy.Model, cfg ForestConfig) (*Forest, error) {
	pc := policy.DefaultConfig()
	if cfg.Temperature > 0 {
		pc.Temperature = cfg.Temperature
	}
	pol, err := policy.New(m, pc, cfg.Stats)
	if err != nil {
		return nil, err
	}
	if cfg.Name == "" {
		cfg.Name = "forest"
	}
	return &Forest{name: cfg.Name, pol: pol, temperature: cfg.Temperature, rng: rand.New(rand.NewPCG(cfg.Seed, 0xf0e57))}, nil
}

// LoadForest reads a model file and returns a Forest agent over it.
func LoadForest(path string, cfg ForestConfig) (*Forest, error) {
	m, err := policy.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return NewForest(m, cfg)
}

// Name is the configured name.
func (a *Forest) Name() string { return a.name }

// NewGame refuses a rule the model was not fitted for.
func (a *Forest) NewGame(rule gomoku.Rule) error { return a.pol.Model().Check(rule) }

// Close does nothing: the model is shared and read-only.
func (a *Forest) Close() error { return nil }

// Move plays the best-scored candidate, or samples one when the agent has
// a temperature.
func (a *Forest) Move(_ context.Context, b *gomoku.Board, _ gomoku.Clock) (gomoku.Point, error) {
	res, scores, err := a.pol.Rank(b)
	if err != nil {
		return gomoku.NoPoint, err
	}
	if len(scores) == 0 {
		return gomoku.NoPoint, agent.ErrNoMove
	}
	if a.temperature > 0 {
		return res.Moves[a.pol.Sample(scores, a.rng)], nil
	}
	return res.Moves[policy.Best(scores)], nil
}

// Rank lists the candidates best first, each with the forest's estimate
// that the mover wins after it and the filter level behind the candidates.
func (a *Forest) Rank(b *gomoku.Board) []agent.Scored {
	res, scores, err := a.pol.Rank(b)
	if err != nil {
		return nil
	}
	level := levelText(*res)
	out := make([]agent.Scored, len(scores))
	for i, s := range scores {
		out[i] = agent.Scored{Point: res.Moves[i], Score: s, Level: level}
	}
	slices.SortStableFunc(out, func(x, y agent.Scored) int {
		switch {
		case x.Score > y.Score:
			return -1
		case x.Score < y.Score:
			return 1
		}
		return 0
	})
	return out
}
