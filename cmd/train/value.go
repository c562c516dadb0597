package main

import (
	"context"
	"fmt"
	"io"

	"ocvist/loop"
	"ocvist/store/backend"
)

const valueAbout = `
Fit a value model on the teacher games of generations -from to -to of a
learning loop's database, as generation -to of "train loop" with the same
flags would (the same held-out games, drawn from -seed, and the same forest
seed), and print its held-out AUC beside the teacher's own score's. The
value flags (-value-set, -value-target, -value-trees, -value-depth) choose
what to compare; the model goes to -o, to play it with "play match"
(search:POLICY,value=FILE). It only reads the database.`

func valueCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := loop.DefaultConfig()
	fs := newFlags("value", "[-db FILE] -to G [-from G] -o FILE [flags]", valueAbout, stderr)
	dbPath := fs.String("db", "data/loop.db", "the loop's database `file`")
	from := fs.Int("from", 1, "first generation of games")
	to := fs.Int("to", 0, "last generation of games")
	out := fs.String("o", "", "model `file` to write")
	rule := fs.String("rule", "freestyle", "freestyle or standard")
	registerLoopFlags(fs, &cfg)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *to < *from || *from < 1 || *out == "" {
		return usageError{fmt.Sprintf("value: want 1 <= -from <= -to and -o (have %d, %d, %q)", *from, *to, *out)}
	}
	if err := completeLoopConfig(&cfg, *rule, 1); err != nil {
		return err
	}
	db, err := backend.OpenReadOnlyAt(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if db.Config().Rule != cfg.Rule {
		return fmt.Errorf("value: the database plays %s, not %s", db.Config().Rule, cfg.Rule)
	}
	vm, rec, err := loop.FitValue(ctx, db, cfg, *from, *to)
	if err != nil {
		return err
	}
	if _, err := vm.SaveFile(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "value model %s: set %d, target %.2f (score scale %.0f), %d rows; held out: %d positions, value AUC %.4f, the teacher's score's AUC %.4f\n",
		*out, cfg.ValueSet, cfg.ValueTarget, rec.ScoreScale, rec.ValueRows, rec.HeldOut, rec.ValueAUC, rec.ScoreAUC)
	return nil
}
