package main

import (
	"context"
	"fmt"
	"io"

	"ocvist/loop"
	"ocvist/policy"
	"ocvist/store/backend"
)

const valueAbout = `
Fit a value model on the teacher games of generations -from to -to of a
learning loop's database, as generation -to of "train loop" with the same
flags would (the same held-out games, drawn from -seed, and the same forest
seed), and print its held-out AUC beside the teacher's own score's. The
value flags (-value-set, -value-target, -value-td, -value-quiet, -value-trees,
-value-depth, -value-hidden, -value-epochs) choose
what to compare; the model goes to -o, to play it with "play match"
(search:POLICY,value=FILE). It only reads the database.

With -rescore-nodes N the training positions' scores are not the
teacher's but a search of N nodes over the models -rescore-policy and
-rescore-value (the teacher's settings otherwise, on -workers cores): value
targets from a deeper search than the teacher's. The held-out metrics keep
the teacher's scores.`

func valueCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := loop.DefaultConfig()
	fs := newFlags("value", "[-db FILE] -to G [-from G] -o FILE [flags]", valueAbout, stderr)
	dbPath := fs.String("db", "data/loop.db", "the loop's database `file`")
	from := fs.Int("from", 1, "first generation of games")
	to := fs.Int("to", 0, "last generation of games")
	out := fs.String("o", "", "model `file` to write")
	rule := fs.String("rule", "freestyle", "freestyle or standard")
	rescoreNodes := fs.Int64("rescore-nodes", 0, "search the training positions again with this many `nodes` for their scores (0: the teacher's)")
	rescorePolicy := fs.String("rescore-policy", "", "policy model `file` of the rescoring search's prior (none if empty)")
	rescoreValue := fs.String("rescore-value", "", "value model `file` of the rescoring search (none if empty)")
	registerLoopFlags(fs, &cfg)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *to < *from || *from < 1 || *out == "" {
		return usageError{fmt.Sprintf("value: want 1 <= -from <= -to and -o (have %d, %d, %q)", *from, *to, *out)}
	}
	if err := completeLoopConfig(fs, &cfg, *rule, 1); err != nil {
		return err
	}
	var rescore *loop.Rescore
	if *rescoreNodes == 0 && (*rescorePolicy != "" || *rescoreValue != "") {
		return usageError{"value: -rescore-policy and -rescore-value need -rescore-nodes"}
	}
	if *rescoreNodes != 0 {
		if *rescoreNodes < 100 {
			return usageError{fmt.Sprintf("value: -rescore-nodes %d: want 0 or at least 100", *rescoreNodes)}
		}
		rescore = &loop.Rescore{Nodes: *rescoreNodes, Workers: cfg.Workers, Progress: func(done, total int) {
			if done%200 == 0 || done == total {
				fmt.Fprintf(stderr, "rescoring: %d of %d training games searched again\n", done, total)
			}
		}}
		var err error
		if *rescorePolicy != "" {
			if rescore.Policy, err = policy.LoadFile(*rescorePolicy); err != nil {
				return err
			}
			if rescore.Policy.Check(cfg.Rule) != nil || rescore.Policy.Spec.Radius != cfg.Radius {
				return fmt.Errorf("value: policy model %s (%v) does not fit the games (%s, radius %d)", *rescorePolicy, rescore.Policy.Spec, cfg.Rule, cfg.Radius)
			}
		}
		if *rescoreValue != "" {
			if rescore.Value, err = policy.LoadValueFile(*rescoreValue); err != nil {
				return err
			}
			if err := rescore.Value.Check(cfg.Rule); err != nil {
				return fmt.Errorf("value: value model %s: %w", *rescoreValue, err)
			}
		}
	}
	db, err := backend.OpenReadOnlyAt(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if db.Config().Rule != cfg.Rule {
		return fmt.Errorf("value: the database plays %s, not %s", db.Config().Rule, cfg.Rule)
	}
	vm, rec, err := loop.FitValue(ctx, db, cfg, *from, *to, rescore)
	if err != nil {
		return err
	}
	if _, err := vm.SaveFile(*out); err != nil {
		return err
	}
	scores := "the teacher's scores"
	if rescore != nil {
		scores = fmt.Sprintf("scores of %d-node searches", rescore.Nodes)
	}
	fmt.Fprintf(stdout, "value model %s: set %d, target %.2f (%s, scale %.0f), %d rows; held out: %d positions, value AUC %.4f, the teacher's score's AUC %.4f\n",
		*out, cfg.ValueSet, cfg.ValueTarget, scores, rec.ScoreScale, rec.ValueRows, rec.HeldOut, rec.ValueAUC, rec.ScoreAUC)
	return nil
}
