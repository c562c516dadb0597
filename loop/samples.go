package loop

import (
	"context"
	"math/rand/v2"

	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/internal/splitmix"
	"ocvist/mlp"
	"ocvist/patterns"
	"ocvist/policy"
	"ocvist/search"
	"ocvist/store"
)

// sets are the training rows built from teacher games, or, when the
// models to measure are given (measure), the held-out games' predictions:
// held-out rows are scored as they are built and not kept (a held-out
// position gives a row per candidate, as many rows in all as the training
// games give), so the fit's memory is its training rows.
type sets struct {
	policyX, valueX []float64 // rows one after another
	policyY, valueY []int
	// The training positions' value rows: with a score target (Config.
	// ValueTarget > 0) each position has two rows, labels 1 and 0, whose
	// weights (valueW) are set once the scores' scale is known (fit); the
	// position's outcome for the mover and the teacher's score of it
	// (noScore for games stored without their searches).
	valueW     []float64
	valueWon   []bool
	valueScore []int16
	valueGen   []int32 // the generation of each position's game
	valueLast  []bool  // whether the position is its game's last value position
	// valueNet are the training positions' rows for a value network
	// (value feature set 3): one a position, its target set by fit.
	valueNet *mlp.Rows
	// Held-out predictions: the policy's score of every candidate of each
	// held-out position, whether the teacher chose it and the position's
	// number (groups); the value model's of each held-out position.
	scores, valueScores       []float64
	labels, valueLabels       []bool
	teacherScores             []float64 // the teacher's score of each held-out value position
	groups                    []int
	samples, heldOut, skipped int
}

// valueRows is the number of value rows: a forest's (two a position with
// a score target), or a network's (one a position).
func (s *sets) valueRows() int {
	if s.valueNet != nil {
		return s.valueNet.Len()
	}
	return len(s.valueY)
}

// measure are the models a pass over the held-out games scores.
type measure struct {
	policy *forest.Model
	value  *policy.Valuer
}

// heldOutGame reports whether game (gen, index) is held out: a seeded hash
// of the game, so a game's positions never straddle the split.
func heldOutGame(seed uint64, gen, index int, frac float64) bool {
	return float64(splitmix.Derive(seed, 0x401d, uint64(gen), uint64(index))>>11)/(1<<53) < frac
}

// builder turns teacher games into rows: the training games' (m nil) or
// the held-out games' predictions by m's models.
type builder struct {
	cfg Config
	m   *measure
	pos *patterns.Position
	res patterns.Result
	row [policy.MaxFeatures]float64
	// threats are the VCFs of the position whose moves features reads
	// (policy feature set 3).
	threats policy.Threats
	vrow    [policy.NumValueFeatures2]float64
	nrow    policy.NetRow
	perm    []int
	s       sets
	// valueOnly builds the value rows alone; policyFrom is the first
	// generation whose games give policy rows.
	valueOnly  bool
	policyFrom int
	// rescore, when set, searches the training games' positions again for
	// their scores (Rescore) before their rows are built.
	rescore *Rescore
	// engine is the configuration whose evaluated positions the value
	// rows are, with Config.ValueQuiet.
	engine search.Config
}

func newBuilder(cfg Config) *builder {
	return &builder{cfg: cfg, pos: patterns.NewPosition(gomoku.Options{Rule: cfg.Rule, Radius: cfg.Radius}),
		engine: search.DefaultConfig()}
}

// build reads the games of generations from..to and builds the training
// sets, or with m the held-out games' predictions.
func build(ctx context.Context, db store.Store, cfg Config, from, to int, m *measure) (*sets, error) {
	return buildFrom(ctx, db, cfg, from, from, to, m)
}

// buildFrom is build with the policy rows from generation policyFrom on
// (the value rows from from).
func buildFrom(ctx context.Context, db store.Store, cfg Config, from, policyFrom, to int, m *measure) (*sets, error) {
	b := newBuilder(cfg)
	b.m, b.policyFrom = m, policyFrom
	return b.read(ctx, db, from, to)
}

// buildValue is build for the value rows alone.
func buildValue(ctx context.Context, db store.Store, cfg Config, from, to int, m *measure) (*sets, error) {
	b := newBuilder(cfg)
	b.m, b.valueOnly = m, true
	return b.read(ctx, db, from, to)
}

// read adds the rows of the games of generations from..to.
func (b *builder) read(ctx context.Context, db store.Store, from, to int) (*sets, error) {
	if b.rescore != nil && b.m == nil {
		return b.readRescored(ctx, db, from, to)
	}
	err := db.TeacherGames(ctx, from, to, func(g store.TeacherGame) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return b.game(&g)
	})
	return &b.s, err
}

// readRescored is read with the training games' scores searched again
// (b.rescore): the games are read, rescored in parallel, then built in
// the store's order.
func (b *builder) readRescored(ctx context.Context, db store.Store, from, to int) (*sets, error) {
	var games []*store.TeacherGame
	err := db.TeacherGames(ctx, from, to, func(g store.TeacherGame) error {
		if !heldOutGame(b.cfg.Seed, g.Gen, g.Game, b.cfg.Holdout) {
			games = append(games, &g)
		}
		return ctx.Err()
	})
	if err == nil {
		err = b.rescore.rescoreGames(ctx, b.cfg, games)
	}
	for _, g := range games {
		if err != nil {
			break
		}
		err = b.game(g)
	}
	return &b.s, err
}

// game adds the rows of one game: for each ply after the book where the
// filter leaves a choice and the teacher's move is among its candidates,
// a sample. Training games give the teacher's move and Negatives drawn
// others; held-out games give every candidate (within-position metrics).
// Every position with a decided game gives a value row.
func (b *builder) game(g *store.TeacherGame) error {
	test := heldOutGame(b.cfg.Seed, g.Gen, g.Game, b.cfg.Holdout)
	if test != (b.m != nil) {
		return nil // the other pass's
	}
	rng := rand.New(rand.NewPCG(splitmix.Derive(b.cfg.Seed, 0x5a3e, uint64(g.Gen), uint64(g.Game)), 0))
	b.pos.Reset(gomoku.New(gomoku.Options{Rule: b.cfg.Rule, Radius: b.cfg.Radius}))
	rows := len(b.s.valueLast)
	for i, m := range g.Moves {
		if i >= g.Book {
			b.ply(g, i, test, rng)
		}
		if err := b.pos.Play(m); err != nil {
			return err
		}
	}
	if n := len(b.s.valueLast); n > rows {
		b.s.valueLast[n-1] = true // the game's value positions are rows..n-1
	}
	return nil
}

func (b *builder) ply(g *store.TeacherGame, i int, test bool, rng *rand.Rand) {
	me := b.pos.Board().ToMove()
	if g.Winner != gomoku.Empty && (!b.cfg.ValueQuiet || b.engine.Evaluated(b.pos)) {
		score := int16(noScore)
		if g.Plies != nil {
			score = g.Plies[i-g.Book].Score
		}
		b.valueRow(g.Winner == me, score, g.Gen, test)
	}
	if b.valueOnly || g.Gen < b.policyFrom {
		return
	}
	b.res = patterns.Filter(b.pos, me, patterns.Config{}, b.res)
	teacher := g.Teacher[i-g.Book]
	chosen := -1
	for k, q := range b.res.Moves {
		if q == teacher {
			chosen = k
		}
	}
	switch {
	case len(b.res.Moves) < 2:
		return // no choice to learn
	case chosen < 0:
		b.s.skipped++ // the teacher left the filter's candidates (a search-only move)
		return
	}
	b.threats.Read(b.cfg.PolicySet, b.pos)
	if test {
		b.s.heldOut++
		for k, q := range b.res.Moves {
			b.s.scores = append(b.s.scores, b.m.policy.PredictClass1(b.features(q)))
			b.s.labels = append(b.s.labels, k == chosen)
			b.s.groups = append(b.s.groups, b.s.heldOut)
		}
		return
	}
	b.s.samples++
	b.s.policyX, b.s.policyY = append(b.s.policyX, b.features(teacher)...), append(b.s.policyY, 1)
	b.perm = b.perm[:0]
	for k := range b.res.Moves {
		if k != chosen {
			b.perm = append(b.perm, k)
		}
	}
	for n := 0; n < b.cfg.Negatives && len(b.perm) > 0; n++ {
		j := rng.IntN(len(b.perm))
		b.s.policyX = append(b.s.policyX, b.features(b.res.Moves[b.perm[j]])...)
		b.s.policyY = append(b.s.policyY, 0)
		b.perm[j] = b.perm[len(b.perm)-1]
		b.perm = b.perm[:len(b.perm)-1]
	}
}

// noScore marks a position whose game was stored without the teacher's
// searches (before schema 6): its value target is the outcome alone.
const noScore = -1 << 15

// valueRow adds the position's value row: did the mover win, and the
// teacher's score of it.
func (b *builder) valueRow(won bool, score int16, gen int, test bool) {
	if test {
		b.s.valueScores = append(b.s.valueScores, b.m.value.Value(b.pos))
		b.s.valueLabels = append(b.s.valueLabels, won)
		b.s.teacherScores = append(b.s.teacherScores, float64(score))
		return
	}
	b.s.valueWon, b.s.valueScore = append(b.s.valueWon, won), append(b.s.valueScore, score)
	b.s.valueGen, b.s.valueLast = append(b.s.valueGen, int32(gen)), append(b.s.valueLast, false)
	if b.cfg.ValueSet == policy.ValueFeatureSet3 {
		if b.s.valueNet == nil {
			b.s.valueNet = policy.NewValueNetRows()
		}
		b.nrow.Fill(b.pos)
		b.s.valueNet.Add(b.nrow.Cols, b.nrow.Counts, b.nrow.Dense[:], b2f(won), 1)
		return
	}
	row := b.vrow[:policy.NumValueColumns(b.cfg.ValueSet)]
	policy.ValueFeaturesOf(b.cfg.ValueSet, row, b.pos)
	b.s.valueX, b.s.valueY = append(b.s.valueX, row...), append(b.s.valueY, b2i(won))
	if b.cfg.ValueTarget > 0 {
		b.s.valueX, b.s.valueY = append(b.s.valueX, row...), append(b.s.valueY, 1-b2i(won))
	}
}

func (b *builder) features(q gomoku.Point) []float64 {
	row := b.row[:policy.NumFeaturesOf(b.cfg.PolicySet)]
	policy.FeaturesOf(b.cfg.PolicySet, row, b.pos, &b.res, &b.threats, q)
	return row
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
