package forest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/store"
)

// PolicyConfig tunes a Policy.
type PolicyConfig struct {
	// Temperature shapes sampling: a candidate is drawn with probability
	// proportional to score^(1/Temperature). 1 samples in proportion to the
	// estimated chance of winning; towards 0 it approaches Best.
	Temperature float64
	// PriorGames is how many games the forest's estimate counts for when it
	// is blended with a move's stored statistics: score = (wins + k·p) /
	// (games + k) with k = PriorGames. 0 means 20.
	PriorGames float64
}

// DefaultPolicyConfig is temperature 1 and a prior worth 20 games.
var DefaultPolicyConfig = PolicyConfig{Temperature: 1, PriorGames: 20}

// Validate checks the ranges.
func (c PolicyConfig) Validate() error {
	if !(c.Temperature > 0) || math.IsInf(c.Temperature, 0) {
		return fmt.Errorf("forest: policy temperature %v must be positive", c.Temperature)
	}
	if c.PriorGames < 0 {
		return fmt.Errorf("forest: policy prior games %v is negative", c.PriorGames)
	}
	return nil
}

// MoveStats maps a position's moves to their stored statistics; the policy
// blends them with the forest where a move has games. It is read only.
type MoveStats map[store.KeyMove]store.MoveStat

// Policy scores the filter's candidates with a model (and stored
// statistics, if given) and picks among them. The model is shared and
// read-only; a Policy holds scratch buffers, so use one per goroutine.
type Policy struct {
	model  *Model
	cfg    PolicyConfig
	stats  MoveStats
	row    [NumFeatures]float64
	scores []float64
}

// ErrModelShape reports a model whose columns are not this package's features.
var ErrModelShape = errors.New("model does not take the forest's move features")

// NewPolicy returns a policy over model m, which must take NumFeatures
// columns and two classes. stats may be nil.
func NewPolicy(m *Model, cfg PolicyConfig, stats MoveStats) (*Policy, error) {
	if cfg.PriorGames == 0 {
		cfg.PriorGames = DefaultPolicyConfig.PriorGames
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if m.NumFeatures() != NumFeatures || m.Classes() != 2 {
		return nil, fmt.Errorf("forest: policy: %w: it has %d features and %d classes, want %d and 2",
			ErrModelShape, m.NumFeatures(), m.Classes(), NumFeatures)
	}
	return &Policy{model: m, cfg: cfg, stats: stats}, nil
}

// Scores returns each move's estimated chance that the mover wins, in the
// order of moves. c is the position's canonical form (used only to look
// up stored statistics). The slice is reused by the next call. Guarded by
// BenchmarkPolicyScores.
func (p *Policy) Scores(pos *patterns.Position, f *patterns.Result, c *canon.Position, moves []gomoku.Point) []float64 {
	p.scores = p.scores[:0]
	for _, q := range moves {
		Features(p.row[:], pos, f, q)
		s := p.model.PredictClass1(p.row[:])
		if len(p.stats) > 0 && c != nil {
			m := c.ToCanon(q)
			if st, ok := p.stats[store.KeyMove{Key: c.Key, Move: store.Move{X: m.X, Y: m.Y}}]; ok {
				wins := float64(st.Games+st.WSum) / 2
				s = (wins + p.cfg.PriorGames*s) / (float64(st.Games) + p.cfg.PriorGames)
			}
		}
		p.scores = append(p.scores, s)
	}
	return p.scores
}

// Sample draws an index with probability proportional to
// scores[i]^(1/Temperature).
func (p *Policy) Sample(scores []float64, rng *rand.Rand) int {
	inv := 1 / p.cfg.Temperature
	total := 0.0
	for _, s := range scores {
		total += math.Pow(max(s, 1e-9), inv)
	}
	r := rng.Float64() * total
	for i, s := range scores {
		r -= math.Pow(max(s, 1e-9), inv)
		if r < 0 {
			return i
		}
	}
	return len(scores) - 1
}

// Best returns the index of the highest score (the first of equals).
func Best(scores []float64) int {
	best := 0
	for i, s := range scores {
		if s > scores[best] {
			best = i
		}
	}
	return best
}
