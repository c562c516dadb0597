package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"ocvist/coordinator"
	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/loop"
	"ocvist/policy"
	"ocvist/store"
	"ocvist/store/backend"
)

const loopAbout = `
Run the learning loop v2 (README.md, "The learning loop v2"; the shipped
model's recipe and figures in data/README.md; "go doc ./loop"): each
generation plays -games teacher games (the search with -nodes nodes a move,
ordered and evaluated by the adopted models) on -workers worker processes,
which publish them as sealed shards that are merged into the database
exactly once, fits a policy forest (which candidate the teacher chose) and a
value model (who wins: the teacher's score, turned into a probability by a
scale fitted on each generation's positions, blended with the outcome by
-value-target; a network of the cells' kinds, -value-set 3, or a forest of
the position's counts, -value-set 1 or 2) on the games of the last
-window generations, measures them on held-out games (top-1,
within-position AUC, value AUC), gates the new engine (the search over the
new models, -gate-nodes nodes a move) against the adopted one (paired games
from generated openings, SPRT) and measures the new engine's Elo against
the shipped engine, generation 0's and patterns, and the pure policy's
against generation 0's and patterns. The gate's SPRT tests H0, the new
engine -gate-elo0 Elo stronger (-20: weaker), against H1, -gate-elo
stronger (0): by default a non-regression gate, which adopts a generation
unless it is weaker; with -gate-elo above 0 it must prove itself stronger.
A gate that ends undecided at -gate-games is decided by its pair score's
95% interval: adopted unless it lies below 50% (above 50%, for a gate that
asks for strength; the SPRT needs 30 pairs: with -gate-games under 60 the
interval always decides, and the loop says so when it starts; -gate-games
0 is no gate: every generation is adopted).
Models go to -models (gen-NNN.policy.ocf, gen-NNN.value.ocf). It runs -gens
generations after those the database holds, or for -duration (then as many
as fit; with both, whichever ends first). A run continues where the
last one was: a stopped or crashed loop's finished games are merged and
only the missing ones played, and a generation whose games are all in is
not played again; the same database, flags and -seed give the same games
and byte-identical models. Against a PostgreSQL database every machine that
runs "train loop" with the same flags plays games of the current
generation, and one of them fits and gates it (README.md, "One job on many
machines"). "train stats -json" lists the generations and "train report"
draws the curve.`

func loopCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := loop.DefaultConfig()
	fs := newFlags("loop", "[-db FILE] [-gens N] [flags]", loopAbout, stderr)
	dbPath := fs.String("db", "data/loop.db", "database `file` (created if missing)")
	dir := fs.String("models", "", "model `directory` (default: the database's name with .models, beside it; data/loop.models for a PostgreSQL URL)")
	start := fs.String("start", "", "generation 0's policy model `file` (default: the shipped 2026-11-21 model)")
	gens := fs.Int("gens", 4, "generations to run, counted from where the loop resumes (without it, with -duration: as many as fit)")
	duration := fs.Duration("duration", 0, "run this long, then stop as a Ctrl-C does (0: no limit)")
	rule := fs.String("rule", "freestyle", "freestyle, standard or renju (a renju loop starts from a -start model fitted for renju)")
	backlog := coordinator.BacklogAuto
	fs.Var(&backlog, "backlog", "bound of the teacher shards waiting on local disk to be merged (as train run's)")
	registerLoopFlags(fs, &cfg)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *duration < 0 {
		return usageError{fmt.Sprintf("loop: -duration %v is negative", *duration)}
	}
	if *duration > 0 && !flagSet(fs, "gens") {
		*gens = math.MaxInt
	}
	if err := completeLoopConfig(fs, &cfg, *rule, *gens); err != nil {
		return err
	}
	if w := gateWarning(cfg.Gate); w != "" {
		fmt.Fprintln(stderr, "train loop: "+w)
	}
	startModel, startBytes, err := loadStartModel(*start)
	if err != nil {
		return err
	}
	if *dir == "" {
		*dir = modelsDir(*dbPath)
	}
	db, err := backend.OpenAt(ctx, *dbPath, store.DefaultConfig(cfg.Rule))
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := loop.New(db, *dir, startModel, cfg)
	if err != nil {
		return err
	}
	l.StartFile = startBytes
	if cfg.Rule == gomoku.Freestyle {
		if l.Anchors, err = shippedAnchor(); err != nil {
			return err
		}
	}
	l.ShardRoot, l.Out, l.Backlog = coordinator.ShardDir(*dbPath), stderr, backlog
	l.Log = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	prev, err := loop.Records(ctx, db)
	if err != nil {
		return err
	}
	done := 0
	if len(prev) > 0 {
		done = prev[len(prev)-1].Gen
	}
	fmt.Fprintf(stderr, "train loop: %s, %s, %d workers, seed %d, models in %s\n", backend.Redact(*dbPath), loopLimit(*gens, *duration, done), cfg.Workers, cfg.Seed, *dir)
	lctx := ctx
	if *duration > 0 {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	recs, err := l.Run(lctx, *gens)
	for _, rec := range recs {
		fmt.Fprintf(stdout, "gen %d: top-1 %.3f, AUC %.3f, value AUC %.3f; gate %.3f [%.3f, %.3f] %s; adopted %v; current gen %d%s\n",
			rec.Gen, rec.Top1, rec.AUC, rec.ValueAUC, rec.Gate.Score, rec.Gate.Low, rec.Gate.High, rec.GateVerdict(), rec.Adopted, rec.Current, engineElo(rec))
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		fmt.Fprintln(stdout, "stopped: finished games are merged; run again to continue")
		return context.Canceled
	case lctx.Err() != nil:
		fmt.Fprintf(stdout, "-duration %v reached: finished games are merged; run again to continue\n", *duration)
		return nil
	}
	return err
}

// engineElo lists the engine's Elo against its anchors.
func engineElo(rec loop.Record) string {
	var b strings.Builder
	for _, m := range rec.Engine {
		fmt.Fprintf(&b, "; engine vs %s %+.0f [%+.0f, %+.0f]", m.Against, m.Elo, m.EloLow, m.EloHigh)
	}
	return b.String()
}

// loopLimit says how long a loop runs that resumes after generation done
// (0: a new loop): -gens counts the generations this run adds.
func loopLimit(gens int, d time.Duration, done int) string {
	var s string
	switch {
	case gens == math.MaxInt:
		s = fmt.Sprintf("for %v from generation %d", d, done+1)
	case gens == 1:
		s = fmt.Sprintf("1 generation (%d)", done+1)
	default:
		s = fmt.Sprintf("%d generations (%d to %d)", gens, done+1, done+gens)
	}
	if d > 0 && gens != math.MaxInt {
		s += fmt.Sprintf(" or %v", d)
	}
	if done > 0 {
		s += fmt.Sprintf(", resuming after generation %d", done)
	}
	return s
}

// completeLoopConfig sets the rule and the fits' workers of cfg and
// checks it with -gens (a usageError if wrong). A gate that asks for
// strength (-gate-elo above 0) without -gate-elo0 tests it against H0
// "equal", as such gates did before the non-regression gate was the
// default, not against the default's "20 Elo weaker".
func completeLoopConfig(fs *flag.FlagSet, cfg *loop.Config, rule string, gens int) error {
	r, err := gomoku.ParseRule(rule)
	if err != nil {
		return usageError{"loop: " + err.Error()}
	}
	if flagSet(fs, "gate-elo") && !flagSet(fs, "gate-elo0") && cfg.Gate.Elo1 > 0 {
		cfg.Gate.Elo0 = 0
	}
	cfg.Rule = r
	cfg.Policy.Workers, cfg.Value.Workers = cfg.Workers, cfg.Workers
	if err := cfg.Validate(); err != nil {
		return usageError{err.Error()}
	}
	if gens < 1 {
		return usageError{fmt.Sprintf("loop: -gens %d: want at least 1", gens)}
	}
	return nil
}

// gateWarning is the line saying that a gate of g's size cannot be decided
// by its SPRT, or "" when it can.
func gateWarning(g loop.Gate) string {
	if g.SPRTCanDecide() {
		return ""
	}
	adopted := "adopted when above 50%"
	if g.NonRegression() {
		adopted = "adopted unless below 50%"
	}
	return fmt.Sprintf("-gate-games %d leaves the gate's SPRT %d pairs, under the %d it needs to decide: each gate will be decided by its pair score's 95%% interval (%s); use -gate-games %d or more for the SPRT",
		g.MaxGames, g.MaxGames/2, g.SPRTPairs(), adopted, 2*g.SPRTPairs())
}

// modelsDir is the default -models of the database at dbPath: beside a
// SQLite file, data/loop.models for a PostgreSQL URL.
func modelsDir(dbPath string) string {
	if backend.IsURL(dbPath) {
		return filepath.Join("data", "loop.models")
	}
	return strings.TrimSuffix(dbPath, filepath.Ext(dbPath)) + ".models"
}

// loadStartModel loads generation 0's policy model, path or the model
// shipped on 2026-11-21 when path is empty, and returns its file's bytes.
func loadStartModel(path string) (*policy.Model, []byte, error) {
	b := data.Model20261121
	if path != "" {
		var err error
		if b, err = os.ReadFile(path); err != nil {
			return nil, nil, fmt.Errorf("loop: -start: %w", err)
		}
	}
	m, err := policy.Load(bytes.NewReader(b))
	if err != nil && path != "" {
		err = fmt.Errorf("loop: -start %s: %w", path, err)
	}
	return m, b, err
}

// shippedAnchor is the shipped engine (data/model.ocf and data/value.ocf,
// fitted for freestyle), the curve's fixed anchor.
func shippedAnchor() ([]loop.Anchor, error) {
	pm, err := policy.Load(bytes.NewReader(data.Model))
	if err != nil {
		return nil, err
	}
	vm, err := policy.LoadValue(bytes.NewReader(data.Value))
	if err != nil {
		return nil, err
	}
	return []loop.Anchor{{Name: "shipped", Policy: pm, Value: vm}}, nil
}

// registerLoopFlags binds the loop's recipe flags to cfg.
func registerLoopFlags(fs *flag.FlagSet, cfg *loop.Config) {
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of everything the loop draws")
	fs.IntVar(&cfg.Games, "games", cfg.Games, "teacher games per generation")
	fs.Int64Var(&cfg.Nodes, "nodes", cfg.Nodes, "the teacher's search nodes per move")
	fs.IntVar(&cfg.Explore, "explore", cfg.Explore, "plies after the opening played among near-best root moves")
	fs.IntVar(&cfg.Margin, "margin", cfg.Margin, "near-best: within this many evaluation units of the best")
	fs.IntVar(&cfg.Openings, "openings", cfg.Openings, "generated openings the teacher games start from")
	fs.IntVar(&cfg.Window, "window", cfg.Window, "generations of games each fit uses")
	fs.IntVar(&cfg.TeacherWindow, "teacher-window", cfg.TeacherWindow, "widen the value model's window to every generation the current teacher played, up to this many (0: -window only)")
	fs.IntVar(&cfg.Negatives, "negatives", cfg.Negatives, "other candidates drawn per sample as not-chosen rows")
	fs.IntVar(&cfg.PolicySet, "policy-set", cfg.PolicySet, "the policy forest's move features: 2 (shapes, counts and the last moves' distances: the search's prior) or 3 (and each side's threat cells after the move and the VCFs: a stronger pure policy, two thirds of the search's speed)")
	fs.IntVar(&cfg.Policy.Trees, "trees", cfg.Policy.Trees, "trees of the policy forest")
	fs.IntVar(&cfg.Policy.MaxDepth, "depth", cfg.Policy.MaxDepth, "maximum depth of the policy trees")
	fs.IntVar(&cfg.Value.Trees, "value-trees", cfg.Value.Trees, "trees of the value forest")
	fs.IntVar(&cfg.Value.MaxDepth, "value-depth", cfg.Value.MaxDepth, "maximum depth of the value trees")
	fs.IntVar(&cfg.ValueSet, "value-set", cfg.ValueSet, "the value model: a forest of the position's features 1 (shapes) or 2 (and threats), or 3, a network of the cells' kinds and set 2")
	fs.IntVar(&cfg.Net.Hidden, "value-hidden", cfg.Net.Hidden, "hidden units of the value network (-value-set 3)")
	fs.IntVar(&cfg.Net.Epochs, "value-epochs", cfg.Net.Epochs, "passes of the value network's fit over its rows (-value-set 3)")
	fs.BoolVar(&cfg.Net.Anneal, "value-anneal", cfg.Net.Anneal, "lower the value network's step size to nothing over its fit (-value-set 3)")
	fs.Float64Var(&cfg.ValueTarget, "value-target", cfg.ValueTarget, "weight of the teacher's score in the value target, the rest the outcome (0..1)")
	fs.Float64Var(&cfg.ValueTD, "value-td", cfg.ValueTD, "weight of the game's next position's target in a position's value target, TD(λ) along the game (0..1, 0: the position's own; with -value-quiet=false)")
	fs.BoolVar(&cfg.ValueQuiet, "value-quiet", cfg.ValueQuiet, "fit and measure the value model on the positions the search evaluates, not those with a five to make or to block or a VCF the search's horizon finds (false: every position, as before 2026-12-06)")
	fs.BoolVar(&cfg.ScaleByGen, "scale-by-gen", cfg.ScaleByGen, "turn each generation's teacher scores into probabilities with a scale fitted on that generation alone (its teacher's units)")
	fs.Float64Var(&cfg.ValueScale, "value-scale", cfg.ValueScale, "the teacher's evaluation units of a sure win over ½ (as the search agent's valuescale)")
	fs.Int64Var(&cfg.GateNodes, "gate-nodes", cfg.GateNodes, "search nodes a move of the engines in the gate and the engine's anchor matches")
	fs.IntVar(&cfg.Gate.MaxGames, "gate-games", cfg.Gate.MaxGames, fmt.Sprintf("most games of a gate match, even (an SPRT may end it sooner; it needs %d to decide); 0: no gate, every generation adopted", 2*cfg.Gate.SPRTPairs()))
	fs.Float64Var(&cfg.Gate.Elo0, "gate-elo0", cfg.Gate.Elo0, "the gate's H0, rejected: the new engine is this much stronger (negative: weaker)")
	fs.Float64Var(&cfg.Gate.Elo1, "gate-elo", cfg.Gate.Elo1, "the gate's H1, adopted: the new engine is this much stronger (0 or less: a non-regression gate, adopted unless weaker; above 0 without -gate-elo0: H0 equal)")
	fs.IntVar(&cfg.AnchorGames, "anchor-games", cfg.AnchorGames, "games against each anchor, even (paired, colours swapped)")
	fs.IntVar(&cfg.Block, "block", cfg.Block, "teacher games a worker is given at once (claimed together; who plays a game never changes it)")
	fs.IntVar(&cfg.Workers, "workers", runtime.NumCPU(), "worker processes for the teacher games, goroutines for fits and matches")
}
