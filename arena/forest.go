package arena

import (
	"context"
	"math/rand/v2"
	"slices"

	"ocvist/canon"
	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/patterns"
)

// Forest plays the learned policy: the pattern filter's candidates scored
// by a forest model (package forest). With temperature 0 it plays the best
// score (deterministic); above 0 it samples, as self-play does.
type Forest struct {
	name        string
	pol         *forest.Policy
	temperature float64
	rng         *rand.Rand
	pos         patterns.Position
	res         patterns.Result
}

// NewForest returns a Forest agent over model m. name is shown in results;
// temperature 0 plays the best move, above 0 samples with that
// temperature; seed drives the sampling.
func NewForest(m *forest.Model, name string, temperature float64, seed uint64) (*Forest, error) {
	cfg := forest.DefaultPolicyConfig
	if temperature > 0 {
		cfg.Temperature = temperature
	}
	pol, err := forest.NewPolicy(m, cfg, nil)
	if err != nil {
		return nil, err
	}
	return &Forest{name: name, pol: pol, temperature: temperature, rng: rand.New(rand.NewPCG(seed, 0xf0e57))}, nil
}

// LoadForest reads a model file and returns a Forest agent over it.
func LoadForest(path, name string, temperature float64, seed uint64) (*Forest, error) {
	m, err := forest.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return NewForest(m, name, temperature, seed)
}

// Name is the name given to NewForest.
func (a *Forest) Name() string { return a.name }

// NewGame does nothing.
func (a *Forest) NewGame(gomoku.Rule) error { return nil }

// Close does nothing: the model is shared and read-only.
func (a *Forest) Close() error { return nil }

func (a *Forest) score(b *gomoku.Board) []float64 {
	a.pos.Reset(b)
	a.res = patterns.Filter(&a.pos, b.ToMove(), patterns.Config{}, a.res)
	return a.pol.Scores(&a.pos, &a.res, (*canon.Position)(nil), a.res.Moves)
}

// Move plays the best-scored candidate, or samples one when the agent has
// a temperature.
func (a *Forest) Move(_ context.Context, b *gomoku.Board) (gomoku.Point, error) {
	scores := a.score(b)
	if len(scores) == 0 {
		return gomoku.NoPoint, ErrNoMove
	}
	if a.temperature > 0 {
		return a.res.Moves[a.pol.Sample(scores, a.rng)], nil
	}
	return a.res.Moves[forest.Best(scores)], nil
}

// Rank lists the candidates best first, each with the forest's estimate
// that the mover wins after it and the filter level behind the candidates.
func (a *Forest) Rank(b *gomoku.Board) []Scored {
	scores := a.score(b)
	level := levelText(a.res)
	out := make([]Scored, len(scores))
	for i, s := range scores {
		out[i] = Scored{Point: a.res.Moves[i], Score: s, Level: level}
	}
	slices.SortStableFunc(out, func(x, y Scored) int {
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
