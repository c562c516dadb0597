package policy

import (
	"ocvist/gomoku"
	"ocvist/patterns"
)

// Prior ranks moves with a policy model for the search (it satisfies
// search.Prior): the filter's result for the features, then the forest on
// every move. It scores the search's position, whose radius is the
// game's. It holds scratch buffers: one per goroutine.
type Prior struct {
	pol *Policy
	res patterns.Result
}

// NewPrior returns a Prior over m.
func NewPrior(m *Model) *Prior {
	return &Prior{pol: &Policy{model: m, cfg: DefaultConfig()}}
}

// Scores writes each move's score into out (the filter restores pos).
func (p *Prior) Scores(pos *patterns.Position, moves []gomoku.Point, out []float64) {
	p.res = patterns.Filter(pos, pos.Board().ToMove(), patterns.Config{}, p.res)
	copy(out, p.pol.Scores(pos, &p.res, nil, moves))
}
