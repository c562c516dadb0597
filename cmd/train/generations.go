package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"ocvist/agent"
	"ocvist/coordinator"
	"ocvist/openings"
	"ocvist/store/backend"

	"ocvist/arena"
	"ocvist/patterns"
	"ocvist/store"
)

// gateConfig configures the match that judges each new generation against
// the previous one.
type gateConfig struct {
	Games       int     `json:"games"`
	Openings    string  `json:"openings"`
	Temperature float64 `json:"temperature"`
}

func defaultGateConfig() gateConfig {
	return gateConfig{Games: 200, Openings: "data/openings/piskvork-15.txt", Temperature: 0.25}
}

func (g *gateConfig) register(fs *flag.FlagSet) {
	fs.IntVar(&g.Games, "gate-games", g.Games, "games of each generation's gate match, even (paired, colours swapped)")
	fs.StringVar(&g.Openings, "gate-openings", g.Openings, "opening set `file` of the gate match")
	fs.Float64Var(&g.Temperature, "gate-temperature", g.Temperature, "sampling temperature of the forest agents in the gate match (0: best move)")
}

func (g gateConfig) validate() error {
	if g.Games < 2 {
		return fmt.Errorf("-gate-games %d must be at least 2", g.Games)
	}
	if g.Games%2 != 0 {
		return fmt.Errorf("-gate-games %d: want an even number (games are played in pairs, colours swapped)", g.Games)
	}
	if g.Temperature < 0 {
		return fmt.Errorf("-gate-temperature %v is negative", g.Temperature)
	}
	if _, err := os.Stat(g.Openings); err != nil {
		return fmt.Errorf("-gate-openings: %v", err)
	}
	return nil
}

// runGenerations runs the learning loop: for each generation, self-play
// with the current policy (merged, pruned and concluded by runJob), fit a
// forest on the whole database, play the gate match against the previous
// generation and record the result. A new model becomes the self-play
// policy only if it scores at least 50% in its gate match, so a later
// generation is never worse than an earlier one by that measure.
func runGenerations(ctx context.Context, cfg coordinator.Config, gens int, fc fitConfig, gate gateConfig, stdout, stderr io.Writer) error {
	current, last, err := lastGeneration(ctx, cfg)
	if err != nil {
		return err
	}
	if cfg.Game.Model == "" {
		cfg.Game.Model = current
	}
	// Beside the database file; for a PostgreSQL URL under data/, like its shards.
	models := strings.TrimSuffix(coordinator.ShardDir(cfg.DB), ".shards") + ".models"
	for g := last + 1; g <= last+gens; g++ {
		if ctx.Err() != nil {
			return nil
		}
		fmt.Fprintf(stderr, "generation %d: self-play with %s\n", g, policyName(cfg.Game.Model))
		gc := cfg
		gc.Seed = coordinator.WorkerSeed(cfg.Seed, g, -1)
		if err := coordinator.Run(ctx, gc, stdout, stderr); err != nil {
			return fmt.Errorf("generation %d: %w", g, err)
		}
		if ctx.Err() != nil {
			return nil // interrupted: the games are merged; the fit waits for the next run
		}
		rec, err := nextGeneration(ctx, cfg, g, fc, gate, filepath.Join(models, fmt.Sprintf("gen-%03d.ocf", g)), stderr)
		if err != nil {
			return fmt.Errorf("generation %d: %w", g, err)
		}
		accepted := rec.Score >= 0.5
		fmt.Fprintf(stdout, "generation %d: %d rows, fit %.1f s, held-out AUC %.4f, gate score %.3f [%.3f, %.3f] against %s: %s\n",
			g, rec.Rows, rec.FitSeconds, rec.AUC, rec.Score, rec.ScoreLow, rec.ScoreHigh, policyName(cfg.Game.Model),
			map[bool]string{true: "accepted", false: "rejected, keeping the previous policy"}[accepted])
		if accepted {
			cfg.Game.Model = rec.Model
		}
	}
	return nil
}

// lastGeneration returns the model of the last accepted generation ("" for
// generation 0) and the number of the last generation recorded.
func lastGeneration(ctx context.Context, cfg coordinator.Config) (model string, last int, err error) {
	if _, err := os.Stat(cfg.DB); err != nil && !backend.IsURL(cfg.DB) {
		return "", 0, nil
	}
	db, err := backend.OpenAt(ctx, cfg.DB, store.DefaultConfig(cfg.Game.Rule))
	if err != nil {
		return "", 0, err
	}
	defer db.Close()
	gens, err := db.Generations(ctx)
	if err != nil {
		return "", 0, err
	}
	for _, g := range gens {
		last = max(last, g.Gen)
		if g.Score >= 0.5 {
			model = g.Model
		}
	}
	return model, last, nil
}

// nextGeneration fits generation g's model on the database, plays its gate
// match against the previous policy and records the generation.
func nextGeneration(ctx context.Context, cfg coordinator.Config, g int, fc fitConfig, gate gateConfig, path string, log io.Writer) (store.Generation, error) {
	db, err := backend.OpenAt(ctx, cfg.DB, store.DefaultConfig(cfg.Game.Rule))
	if err != nil {
		return store.Generation{}, err
	}
	defer db.Close()
	fc.Forest.Seed = int64(coordinator.WorkerSeed(cfg.Seed, g, -2) >> 1)
	fc.Radius = cfg.Game.Radius // the model's features as the games were played
	fit, err := fitModel(ctx, db, fc, path)
	if err != nil {
		return store.Generation{}, err
	}
	fmt.Fprintf(log, "generation %d: fit %s: %d rows, held-out AUC %.4f (best single feature %s %.4f), %.1f s\n",
		g, path, fit.Rows, fit.AUC, fit.Baseline, fit.BaselineAUC, fit.FitSeconds)
	res, err := gateMatch(ctx, cfg, g, gate, path, cfg.Game.Model)
	if err != nil {
		return store.Generation{}, err
	}
	t := res.Total
	s, lo, hi := arena.ScoreInterval(t.AWins, t.Draws, t.BWins)
	st, err := db.Stats(ctx)
	if err != nil {
		return store.Generation{}, err
	}
	rec := store.Generation{
		Gen: g, Games: st.Games, Rows: int64(fit.Rows), FitSeconds: fit.FitSeconds,
		AUC: nanToZero(fit.AUC), Score: s, ScoreLow: lo, ScoreHigh: hi, Model: path,
		Seed: int64(cfg.Seed), // the run's -seed, bit for bit: with g it derives every seed above
	}
	return rec, db.AddGeneration(ctx, rec)
}

// gateMatch plays the new model against the previous policy (the pattern
// filter with uniform choice for generation 0).
func gateMatch(ctx context.Context, cfg coordinator.Config, g int, gate gateConfig, model, prev string) (*arena.Result, error) {
	rule := cfg.Game.Rule
	ops, err := openings.ReadFile(gate.Openings)
	if err != nil {
		return nil, err
	}
	seed := coordinator.WorkerSeed(cfg.Seed, g, -3)
	a, err := arena.LoadForest(model, arena.ForestConfig{Name: fmt.Sprintf("gen-%d", g), Temperature: gate.Temperature, Seed: seed})
	if err != nil {
		return nil, err
	}
	var b agent.Agent = arena.NewPatterns(seed+1, patterns.Config{})
	if prev != "" {
		if b, err = arena.LoadForest(prev, arena.ForestConfig{Name: "previous", Temperature: gate.Temperature, Seed: seed + 1}); err != nil {
			return nil, err
		}
	}
	return arena.Match(ctx, a, b, arena.Config{Rule: rule, Radius: cfg.Game.Radius, MaxPly: cfg.Game.MaxPly, Games: gate.Games, Openings: ops})
}

func policyName(model string) string {
	if model == "" {
		return "generation 0 (uniform among the filter's candidates)"
	}
	return model
}

func nanToZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
