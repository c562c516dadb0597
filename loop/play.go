package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"ocvist/coordinator"
	"ocvist/internal/splitmix"
	"ocvist/openings"
	"ocvist/store"
)

// recipe is the configuration every member must play and fit a
// generation with: Config without what each machine chooses for itself
// (its workers, the block size, which the plan records).
func (c Config) recipe() string {
	c.Workers, c.Policy.Workers, c.Value.Workers, c.Block = 0, 0, 0, 0
	b, _ := json.Marshal(c)
	return string(b)
}

// plan records generation g's plan (its quota in blocks, this loop's
// recipe) unless it has one, and returns it; a generation planned with
// another recipe is refused: its games and fit would not be this loop's.
func (l *Loop) plan(ctx context.Context, g int) (store.TeacherPlan, error) {
	want := store.TeacherPlan{Gen: g, Games: l.cfg.Games, Block: l.cfg.Block, Recipe: l.cfg.recipe()}
	plan, err := l.db.PlanTeacher(ctx, want)
	if err != nil {
		return plan, err
	}
	if plan.Recipe != want.Recipe {
		return plan, fmt.Errorf("loop: generation %d was started with another recipe (%s); this loop's is %s: give the flags it was started with (or another database)",
			g, plan.Recipe, want.Recipe)
	}
	return plan, nil
}

// openings generates generation g's openings (from the seed alone) and
// writes them to gen-NNN.openings in Dir for the workers, once per
// generation and Loop.
func (l *Loop) openings(g int) (string, error) {
	path := filepath.Join(l.dir, fmt.Sprintf("gen-%03d.openings", g))
	if l.openingsOf == g {
		return path, nil
	}
	ops, err := openings.Generate(splitmix.Derive(l.cfg.Seed, 0x0be7, uint64(g)), l.cfg.Openings, l.cfg.Rule)
	if err == nil {
		err = os.MkdirAll(l.dir, 0o755)
	}
	if err == nil {
		err = coordinator.WriteOpenings(path, ops, fmt.Sprintf("generation %d's %d openings of the learning loop of seed %d", g, len(ops), l.cfg.Seed))
	}
	if err != nil {
		return "", fmt.Errorf("loop: openings of generation %d: %w", g, err)
	}
	l.openingsOf = g
	return path, nil
}

// play plays, as member m, the games of claim c of generation plan.Gen and
// of the next blocks it can claim, with cfg.Workers teacher workers over
// the models cur, and merges them (coordinator.PlayTeacher); stored is how
// many of the generation's games were in when it began.
func (l *Loop) play(ctx context.Context, m store.LoopMember, plan store.TeacherPlan, cur models, c store.Claim, stored int64) error {
	g := plan.Gen
	openings, err := l.openings(g)
	if err != nil {
		return err
	}
	tc := coordinator.TeacherConfig{
		Rule: l.cfg.Rule, Radius: l.cfg.Radius, Nodes: l.cfg.Nodes, Explore: l.cfg.Explore, Margin: l.cfg.Margin,
		Openings: openings, Seed: l.cfg.Seed, Gen: g,
		Policy: cur.policyFile, Value: cur.valueFile, PriorDepth: TeacherPriorDepth, ValueScale: l.cfg.ValueScale,
	}
	first := &c
	claim := func(ctx context.Context) ([]int, bool, error) {
		if first != nil {
			games := first.Games
			first = nil
			return games, true, nil
		}
		next, ok, err := m.Claim(ctx, g)
		return next.Games, ok, err
	}
	l.logf("gen %d: playing teacher games with gen %d's models on %d workers (%d of %d in)", g, cur.gen, l.cfg.Workers, stored, plan.Games)
	res, err := coordinator.PlayTeacher(ctx, coordinator.TeacherJob{
		DB: l.db, ShardRoot: l.ShardRoot, Workers: l.cfg.Workers, Game: tc, Claim: claim,
		Backlog: l.Backlog, Progress: l.Progress, Log: l.Out,
		Label: fmt.Sprintf("gen %d", g), Quota: int64(plan.Games), Stored: stored,
	})
	l.logf("gen %d: %d teacher games played here in %.0fs, %d merged (%d already in)", g, res.Played, res.Play.Seconds(), res.Merged, res.Duplicates)
	return err
}
