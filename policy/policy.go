package policy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/patterns"
)

// Config tunes a Policy.
type Config struct {
	// Temperature shapes sampling: a candidate is drawn with probability
	// proportional to score^(1/Temperature). 1 samples in proportion to the
	// estimated chance of winning; towards 0 it approaches Best.
	Temperature float64
	// PriorGames is how many games the forest's estimate counts for when it
	// is blended with a move's stored statistics: score = (wins + k·p) /
	// (games + k) with k = PriorGames. 0 means 20.
	PriorGames float64
	// MinStatGames is how many games a move's stored statistics need to be
	// blended in (where they are plentiful); 0 means 20. Moves with fewer
	// are scored by the forest alone, and need not be loaded (LoadStats).
	MinStatGames int64
}

// DefaultConfig is temperature 1, a prior worth 20 games, statistics of 20
// games or more.
func DefaultConfig() Config { return Config{Temperature: 1, PriorGames: 20, MinStatGames: 20} }

// Validate checks the ranges.
func (c Config) Validate() error {
	if !(c.Temperature > 0) || math.IsInf(c.Temperature, 0) {
		return fmt.Errorf("policy: temperature %v must be positive", c.Temperature)
	}
	if c.PriorGames < 0 || c.MinStatGames < 0 {
		return fmt.Errorf("policy: prior games %v or least statistics games %d is negative", c.PriorGames, c.MinStatGames)
	}
	return nil
}

// KeyMove names a move in the canonical frame of the position with key
// Key.
type KeyMove struct {
	Key  string
	Move canon.Move
}

// Stats are stored move statistics for a Policy to blend with its model:
// each move's Stat (Key and Move as in its KeyMove). They are read-only
// once a Policy has them.
type Stats map[KeyMove]Stat

// LoadStats collects the statistics of the moves with at least minGames
// games that scan yields (scan calls fn with every row of at least
// minGames games, normally through the store's ScanMoves).
func LoadStats(minGames int64, scan func(minGames int64, fn func(Stat) error) error) (Stats, error) {
	s := Stats{}
	err := scan(minGames, func(st Stat) error {
		if st.Games >= minGames {
			s[KeyMove{st.Key, st.Move}] = st
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("policy: load statistics: %w", err)
	}
	return s, nil
}

// Policy scores the filter's candidates with a model, and with stored
// statistics where a move has plenty, and picks among them. The model and
// the statistics are shared and read-only; a Policy holds scratch buffers,
// so use one per goroutine.
type Policy struct {
	model   *Model
	cfg     Config
	stats   Stats
	row     [MaxFeatures]float64
	threats Threats // the position's, for feature set 3
	scores  []float64

	pos patterns.Position // Rank's position, with the model's radius
	res patterns.Result
}

// New returns a policy over model m. stats may be nil.
func New(m *Model, cfg Config, stats Stats) (*Policy, error) {
	if cfg.PriorGames == 0 {
		cfg.PriorGames = DefaultConfig().PriorGames
	}
	if cfg.MinStatGames == 0 {
		cfg.MinStatGames = DefaultConfig().MinStatGames
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Policy{model: m, cfg: cfg, stats: stats}, nil
}

// Model returns the policy's model.
func (p *Policy) Model() *Model { return p.model }

// Scores returns each move's estimated chance that the mover wins, in the
// order of moves: the forest's estimate from the move's features on pos
// (f is the filter's result for this position and side), blended with the
// move's stored statistics when it has at least MinStatGames games. c is
// the position's canonical form, needed only with statistics (nil skips
// them). pos must be under the model's rule and radius (Rank sees to it).
// The slice is reused by the next call. Guarded by BenchmarkPolicyScores.
func (p *Policy) Scores(pos *patterns.Position, f *patterns.Result, c *canon.Position, moves []gomoku.Point) []float64 {
	p.scores = p.scores[:0]
	set := p.model.Spec.FeatureSet
	p.threats.Read(set, pos)
	for _, q := range moves {
		row := p.row[:p.model.Forest.NumFeatures()]
		FeaturesOf(set, row, pos, f, &p.threats, q)
		s := p.model.Forest.PredictClass1(row)
		if len(p.stats) > 0 && c != nil {
			s = p.blend(s, c.Key, c.ToCanon(q))
		}
		p.scores = append(p.scores, s)
	}
	return p.scores
}

// blend mixes the forest's estimate s with the move's stored statistics:
// (wins + k·s) / (games + k).
func (p *Policy) blend(s float64, key string, m canon.Move) float64 {
	st, ok := p.stats[KeyMove{key, m}]
	if !ok || st.Games < p.cfg.MinStatGames {
		return s
	}
	wins := float64(st.Games+st.WSum) / 2
	return (wins + p.cfg.PriorGames*s) / (float64(st.Games) + p.cfg.PriorGames)
}

// Rank runs the pattern filter on b for the side to move and scores its
// candidates (Scores), the way the model's features are computed: on b,
// or on a copy of it with the model's radius when b's differs. It returns
// the filter's result (Moves, Level, Attack) and the scores of its Moves;
// both are reused by the next call. A board under another rule than the
// model's is an error (Model.Check).
func (p *Policy) Rank(b *gomoku.Board) (*patterns.Result, []float64, error) {
	if err := p.model.Check(b.Rule()); err != nil {
		return nil, nil, err
	}
	if b.Radius() == p.model.Spec.Radius {
		p.pos.Reset(b)
	} else if err := p.resetRadius(b); err != nil {
		return nil, nil, err
	}
	p.res = patterns.Filter(&p.pos, b.ToMove(), patterns.Config{}, p.res)
	var c *canon.Position
	if len(p.stats) > 0 {
		cp := canon.Of(b)
		c = &cp
	}
	return &p.res, p.Scores(&p.pos, &p.res, c, p.res.Moves), nil
}

// resetRadius sets p.pos to b's stones on a board with the model's radius.
func (p *Policy) resetRadius(b *gomoku.Board) error {
	opts := p.model.Spec.options()
	opts.MaxPly = 0
	nb := gomoku.New(opts)
	for _, q := range b.History() {
		if err := nb.Put(q, b.At(q)); err != nil {
			return fmt.Errorf("policy: %w", err)
		}
	}
	p.pos.Reset(nb)
	return nil
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
