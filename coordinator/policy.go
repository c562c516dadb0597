package coordinator

import (
	"context"
	"fmt"
	"math/rand/v2"

	"ocvist/gomoku"
	"ocvist/openings"
	"ocvist/policy"
	"ocvist/selfplay"
	"ocvist/store"
	"ocvist/store/backend"
)

// newGameConfig turns the flag-level game configuration into self-play's.
func newGameConfig(g GameConfig) (selfplay.Config, error) {
	c := selfplay.Config{Rule: g.Rule, Radius: g.Radius, MaxPly: g.MaxPly}
	if g.Openings != "" {
		ops, err := openings.ReadFile(g.Openings)
		if err != nil {
			return c, err
		}
		for _, op := range ops {
			c.Openings = append(c.Openings, op.Moves)
		}
	}
	return c, c.Validate()
}

// NewPolicy returns the self-play policy: uniform in generation 0, the
// forest's with a model, blended with the statistics of the database at
// dbPath (if not "") where a move has plenty of games. The model must be
// fitted for the games' rule and radius.
func NewPolicy(ctx context.Context, g GameConfig, dbPath string) (selfplay.Policy, error) {
	if g.Model == "" {
		return selfplay.Uniform{}, nil
	}
	m, err := policy.LoadFile(g.Model)
	if err != nil {
		return nil, err
	}
	if m.Check(g.Rule) != nil || m.Spec.Radius != g.Radius {
		return nil, fmt.Errorf("model %s (%v) does not fit the games (%s, radius %d)", g.Model, m.Spec, g.Rule, g.Radius)
	}
	cfg := policy.DefaultConfig()
	cfg.Temperature = g.Temperature
	var stats policy.Stats
	if dbPath != "" {
		if stats, err = LoadStats(ctx, dbPath, cfg.MinStatGames); err != nil {
			return nil, err
		}
	}
	pol, err := policy.New(m, cfg, stats)
	if err != nil {
		return nil, err
	}
	return ForestPolicy{pol}, nil
}

// LoadStats reads the statistics of the moves with at least minGames games
// from the database at path.
func LoadStats(ctx context.Context, path string, minGames int64) (policy.Stats, error) {
	db, err := backend.OpenReadOnlyAt(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return policy.LoadStats(minGames, ScanStats(ctx, db, nil))
}

// ForestPolicy samples self-play moves from the forest's scores (blended
// with the stored statistics).
type ForestPolicy struct{ *policy.Policy }

func (f ForestPolicy) Choose(t *selfplay.Turn, rng *rand.Rand) gomoku.Point {
	return t.Moves[f.Sample(f.Scores(t.Pos, t.Filter, &t.Canon, t.Moves), rng)]
}

// ScanStats reads db's move statistics as the policy's rows (counting them
// in *rows when rows is not nil).
func ScanStats(ctx context.Context, db store.Store, rows *int) func(int64, func(policy.Stat) error) error {
	return func(minGames int64, fn func(policy.Stat) error) error {
		return db.ScanMoves(ctx, minGames, func(m store.MoveStat) error {
			if rows != nil {
				*rows++
			}
			return fn(policy.Stat{Key: m.Key, Move: m.Move, WSum: m.WSum, Games: m.Games})
		})
	}
}
