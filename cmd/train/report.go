package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"ocvist/loop"
	"ocvist/store"
)

const reportAbout = `
Draw the learning curve of a database's generations. For the learning loop
("train loop"): the pure policy's Elo against the fixed anchors (random,
patterns, generation 0) with 95% intervals, adopted and rejected
generations marked, and below it the held-out top-1 agreement with the
teacher. For the v1 loop ("train run -generations"): the gate-match score
against the previous generation and the forest's held-out AUC. The format
follows the file name: .png or .svg.`

func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", "[-db FILE] [-o FILE]", reportAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	out := fs.String("o", "data/learning-curve.png", "chart `file` (.png or .svg)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	switch strings.ToLower(filepath.Ext(*out)) {
	case ".png", ".svg":
	default:
		return usageError{fmt.Sprintf("report: -o %s: want a .png or .svg file", *out)}
	}
	db, err := openReadOnlyDB(*dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	recs, err := loop.Records(ctx, db)
	if err != nil {
		return err
	}
	if len(recs) > 0 {
		if err := loopCurve(recs, *out); err != nil {
			return fmt.Errorf("report: %s: %w", *out, err)
		}
		fmt.Fprintf(stdout, "wrote %s: %d generations of the learning loop\n", *out, len(recs))
		return nil
	}
	gens, err := db.Generations(ctx)
	if err != nil {
		return err
	}
	if len(gens) == 0 {
		return fmt.Errorf("report: %s has no generations yet (run \"train run -generations N\")", *dbPath)
	}
	p, err := learningCurve(gens)
	if err != nil {
		return err
	}
	if err := p.Save(8*vg.Inch, 5*vg.Inch, *out); err != nil {
		return fmt.Errorf("report: save %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d generations\n", *out, len(gens))
	return nil
}

// learningCurve plots score (with its interval) and AUC per generation.
func learningCurve(gens []store.Generation) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Ocvist learning curve"
	p.X.Label.Text = "generation"
	p.Y.Label.Text = "gate score vs previous / held-out AUC"
	p.Y.Min, p.Y.Max = 0, 1
	score := make(plotter.XYs, len(gens))
	auc := make(plotter.XYs, len(gens))
	errs := make(plotter.YErrors, len(gens))
	for i, g := range gens {
		score[i] = plotter.XY{X: float64(g.Gen), Y: g.Score}
		auc[i] = plotter.XY{X: float64(g.Gen), Y: g.AUC}
		errs[i] = struct{ Low, High float64 }{g.Score - g.ScoreLow, g.ScoreHigh - g.Score}
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{score, errs})
	if err != nil {
		return nil, err
	}
	if err := plotutil.AddLinePoints(p, "gate score", score, "held-out AUC", auc); err != nil {
		return nil, err
	}
	half, err := plotter.NewLine(plotter.XYs{{X: float64(gens[0].Gen), Y: 0.5}, {X: float64(gens[len(gens)-1].Gen), Y: 0.5}})
	if err != nil {
		return nil, err
	}
	half.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(bars, half)
	p.Legend.Top = true
	return p, nil
}
