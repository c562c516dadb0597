package arena

import (
	"context"
	"math/rand/v2"

	"ocvist/agent"
	"ocvist/gomoku"
	"ocvist/patterns"
)

// Patterns plays uniformly among the candidates of the pattern filter
// (package patterns): it makes five when it can, blocks the opponent's
// five, makes or stops open fours and double threats, and otherwise plays
// any cell within the radius. Like Random, its moves depend only on the
// seed and the positions it is asked about.
type Patterns struct {
	rng *rand.Rand
	cfg patterns.Config
	pos patterns.Position
	res patterns.Result
}

// NewPatterns returns a Patterns agent with the filter configured by cfg
// and a PCG source seeded by seed.
func NewPatterns(seed uint64, cfg patterns.Config) *Patterns {
	return &Patterns{rng: rand.New(rand.NewPCG(seed, 0x9a77e2a5)), cfg: cfg}
}

// Name is "patterns".
func (a *Patterns) Name() string { return "patterns" }

// NewGame does nothing: the random stream continues across games.
func (a *Patterns) NewGame(gomoku.Rule) error { return nil }

// Close does nothing.
func (a *Patterns) Close() error { return nil }

// filter runs the filter on b for the side to move.
func (a *Patterns) filter(b *gomoku.Board) patterns.Result {
	a.pos.Reset(b)
	a.res = patterns.Filter(&a.pos, b.ToMove(), a.cfg, a.res)
	return a.res
}

// Move draws one of the filter's candidates uniformly, consuming one random
// number per call.
func (a *Patterns) Move(_ context.Context, b *gomoku.Board, _ gomoku.Clock) (gomoku.Point, error) {
	res := a.filter(b)
	if len(res.Moves) == 0 {
		return gomoku.NoPoint, agent.ErrNoMove
	}
	return res.Moves[a.rng.IntN(len(res.Moves))], nil
}

// Rank lists the filter's candidates, each with the probability the agent
// plays it and the level that produced them ("force attack", "trivial
// defence", ...). It consumes no random numbers.
func (a *Patterns) Rank(b *gomoku.Board) []agent.Scored {
	res := a.filter(b)
	level := levelText(res)
	out := make([]agent.Scored, len(res.Moves))
	for i, p := range res.Moves {
		out[i] = agent.Scored{Point: p, Score: 1 / float64(len(res.Moves)), Level: level}
	}
	return out
}

// levelText names the filter level behind a result, with "attack" or
// "defence" for the forcing levels ("force attack", "trivial defence").
func levelText(res patterns.Result) string {
	level := res.Level.String()
	if res.Level != patterns.Opening && res.Level != patterns.Radius {
		if res.Attack {
			level += " attack"
		} else {
			level += " defence"
		}
	}
	return level
}
