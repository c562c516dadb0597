package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ocvist/coordinator"
	"ocvist/store/backend"

	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/policy"
	"ocvist/store"
)

const fitAbout = `
Fit the random-forest move policy on a database's statistics and save it.

Training rows are the (position, move) pairs with at least -min-games games;
each gives a "mover won" sample weighted by its wins and a "mover lost"
sample weighted by its losses. A seeded -holdout fraction of the positions
is kept out of training; the held-out AUC is printed next to the best single
feature's AUC as a baseline. Features are computed with the database's rule
and -radius (the self-play radius of its games); the model file records both
and the feature set, and is refused where its features would come out
otherwise. The model file is written atomically, next to the database unless
-model names it (the shipped data/model.ocf is only replaced when named); the
same database, flags and -fit-seed give a byte-identical file. The database
is only read.`

// fitConfig configures a fit: which rows, how to split, the features'
// radius, the forest.
type fitConfig struct {
	MinGames int64         `json:"min_games"`
	Holdout  float64       `json:"holdout"`
	Radius   int           `json:"radius"` // as the games were played with; recorded in the model
	Forest   forest.Config `json:"forest"`
}

func defaultFitConfig() fitConfig {
	fc := forest.DefaultConfig()
	fc.Trees, fc.MaxDepth, fc.MinLeaf = 48, 12, 20
	return fitConfig{MinGames: 2, Holdout: 0.1, Radius: 2, Forest: fc}
}

func (c *fitConfig) register(fs *flag.FlagSet) {
	fs.Int64Var(&c.MinGames, "min-games", c.MinGames, "use (position, move) rows with at least this many games")
	fs.Float64Var(&c.Holdout, "holdout", c.Holdout, "fraction of positions held out for the AUC (0 to 0.9)")
	fs.Int64Var(&c.Forest.Seed, "fit-seed", c.Forest.Seed, "seed of the forest and of the hold-out split")
	fs.IntVar(&c.Forest.Trees, "trees", c.Forest.Trees, "trees in the forest")
	fs.IntVar(&c.Forest.MaxDepth, "depth", c.Forest.MaxDepth, "maximum tree depth")
	fs.IntVar(&c.Forest.MinLeaf, "min-leaf", c.Forest.MinLeaf, "least samples in a leaf")
	fs.IntVar(&c.Forest.Workers, "fit-workers", c.Forest.Workers, "goroutines fitting trees (0: all cores)")
}

func (c fitConfig) validate() error {
	if c.MinGames < 1 {
		return fmt.Errorf("-min-games %d must be at least 1", c.MinGames)
	}
	if c.Holdout < 0 || c.Holdout > 0.9 {
		return fmt.Errorf("-holdout %v out of range 0..0.9", c.Holdout)
	}
	if c.Radius < 1 || c.Radius > gomoku.MaxRadius {
		return fmt.Errorf("-radius %d out of range 1..%d", c.Radius, gomoku.MaxRadius)
	}
	if err := c.Forest.Validate(); err != nil {
		// Name the flags, not the forest's fields.
		r := strings.NewReplacer("forest: config: ", "", "Trees", "-trees", "MaxDepth", "-depth", "MinLeaf", "-min-leaf", "Workers", "-fit-workers")
		return errors.New(r.Replace(err.Error()))
	}
	return nil
}

// fitResult is what a fit measured.
type fitResult struct {
	Model        string  `json:"model"`
	TrainSamples int     `json:"train_samples"`
	TestSamples  int     `json:"test_samples"`
	Rows         int     `json:"rows"` // (position, move) rows used
	FitSeconds   float64 `json:"fit_seconds"`
	AUC          float64 `json:"auc"`
	Baseline     string  `json:"baseline_feature"`
	BaselineAUC  float64 `json:"baseline_auc"`
	Bytes        int64   `json:"model_bytes"`
}

func fitCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fc := defaultFitConfig()
	fs := newFlags("fit", "[-db FILE] [-model FILE] [flags]", fitAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file` to learn from")
	model := fs.String("model", "", "model `file` to write (default: the database's name with .ocf, beside it)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	fs.IntVar(&fc.Radius, "radius", fc.Radius, "candidate radius of the features (the self-play -radius of the games)")
	fc.register(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := fc.validate(); err != nil {
		return usageError{err.Error()}
	}
	if *model == "" {
		*model = strings.TrimSuffix(*dbPath, filepath.Ext(*dbPath)) + ".ocf"
	}
	if fi, err := os.Stat(*model); err == nil && fi.IsDir() {
		return usageError{fmt.Sprintf("-model %s is a directory", *model)}
	}
	db, err := backend.OpenReadOnlyAt(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := fitModel(ctx, db, fc, *model)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	fmt.Fprintf(stdout, "fit %s from %s: %d rows, %d training and %d held-out samples, %.1f s\n",
		res.Model, *dbPath, res.Rows, res.TrainSamples, res.TestSamples, res.FitSeconds)
	fmt.Fprintf(stdout, "held-out AUC %.4f (best single feature, %s: %.4f); model %s\n",
		res.AUC, res.Baseline, res.BaselineAUC, coordinator.HumanBytes(res.Bytes))
	return nil
}

// fitModel builds the datasets from db, fits, evaluates on the held-out
// positions and writes the model to path atomically.
func fitModel(ctx context.Context, db store.Store, fc fitConfig, path string) (fitResult, error) {
	rule := db.Config().Rule
	rows := 0
	train, test, err := policy.BuildDatasets(ctx, coordinator.ScanStats(ctx, db, &rows), policy.DatasetConfig{
		Rule: rule, Radius: fc.Radius, MinGames: fc.MinGames, Holdout: fc.Holdout, Seed: uint64(fc.Forest.Seed),
	})
	if err != nil {
		return fitResult{}, err
	}
	if train.Len() == 0 {
		return fitResult{}, fmt.Errorf("fit: no (position, move) rows with at least %d games in %s", fc.MinGames, db.Path())
	}
	start := time.Now()
	m, err := policy.Fit(ctx, train, fc.Forest)
	if err != nil {
		return fitResult{}, err
	}
	ev := policy.Evaluate(m, test)
	res := fitResult{Model: path, Rows: rows, TrainSamples: train.Len(), TestSamples: test.Len(),
		FitSeconds: time.Since(start).Seconds(), AUC: ev.AUC, Baseline: ev.Baseline, BaselineAUC: ev.BaselineAUC}
	res.Bytes, err = m.SaveFile(path)
	return res, err
}
