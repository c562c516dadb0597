package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ocvist/store/backend"

	"ocvist/loop"
)

const reportAbout = `
Draw the learning curve of a database's generations. For the learning loop
("train loop"): the engine's Elo (the search over each generation's models,
-gate-nodes nodes a move) against the fixed anchors (the shipped engine,
generation 0's engine, patterns) and the pure policy's (against generation
0's and patterns; random in loops recorded before) with 95% intervals,
adopted and rejected generations marked, and below them the held-out top-1
agreement with the teacher and the value model's AUC. For the v1 loop ("train run -generations"): the gate-match score
against the previous generation and the forest's held-out AUC. The format
follows the file name: .png or .svg.`

func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", "[-db FILE] [-o FILE]", reportAbout, stderr)
	dbPath := fs.String("db", defaultDB, "database `file`")
	out := fs.String("o", "", "chart `file` (.png or .svg; default: next to the database, data/loop.db's data/loop-curve.png; learning-curve.png for a PostgreSQL database)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *out == "" {
		*out = curveFile(*dbPath)
	}
	switch strings.ToLower(filepath.Ext(*out)) {
	case ".png", ".svg":
	default:
		return usageError{fmt.Sprintf("report: -o %s: want a .png or .svg file", *out)}
	}
	db, err := backend.OpenReadOnlyAt(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	recs, err := loop.Records(ctx, db)
	if err != nil {
		return err
	}
	if len(recs) > 0 {
		if err := writeChart(*out, func(w io.Writer) error { return writeCurve(w, recs, filepath.Ext(*out)) }); err != nil {
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
	if err := writeChart(*out, func(w io.Writer) error { return writeGenerationsCurve(w, gens, filepath.Ext(*out)) }); err != nil {
		return fmt.Errorf("report: %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d generations\n", *out, len(gens))
	return nil
}

// curveFile is the chart's default file for the database at dbPath:
// beside it, named after it (one database's report does not overwrite
// another's), or learning-curve.png in the working folder for a
// PostgreSQL database.
func curveFile(dbPath string) string {
	if backend.IsURL(dbPath) {
		return "learning-curve.png"
	}
	return strings.TrimSuffix(dbPath, filepath.Ext(dbPath)) + "-curve.png"
}

// writeChart writes a chart to path through draw.
func writeChart(path string, draw func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = draw(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
