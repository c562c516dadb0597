package loop

import (
	"errors"
	"fmt"

	"ocvist/arena"
	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/mlp"
	"ocvist/policy"
	"ocvist/search"
	"ocvist/selfplay"
)

// Config is a learning loop's recipe. Every field is recorded with each
// generation (Record.Config), so a curve says how it was made.
type Config struct {
	Rule   gomoku.Rule `json:"-"`
	Radius int         `json:"radius"` // candidate radius of games and features

	Games int `json:"games"` // teacher games per generation
	// Block is how many games a member claims at once (store.TeacherPlan):
	// who plays a game never changes it.
	Block   int   `json:"block"`
	Nodes   int64 `json:"nodes"`   // the teacher's node budget per move
	Explore int   `json:"explore"` // plies after the opening played among near-best moves
	Margin  int   `json:"margin"`  // how near: root scores within Margin of the best
	// Openings are how many random balanced openings the teacher's games
	// start from (openings.Generate, seeded per generation).
	Openings int `json:"openings"`

	Window int `json:"window"` // generations of games fitted on, this one included
	// TeacherWindow, if not 0, widens the value model's window to every
	// generation the current teacher played, up to TeacherWindow of them:
	// while the gate rejects, the teacher stays and its games pile up,
	// and a fit on more of them is what the next gate can tell apart.
	TeacherWindow int     `json:"teacher_window,omitempty"`
	Negatives     int     `json:"negatives"` // other candidates drawn per sample as "not chosen" rows
	Holdout       float64 `json:"holdout"`   // fraction of games held out for the metrics

	Policy forest.Config `json:"policy"`
	// PolicySet is the policy forest's move features: policy's feature
	// set 2 (the default: the search's prior, cheap) or 3 (a stronger
	// pure policy, no better as the search's prior and a third of its
	// speed: TUNING.md, "The policy's threat features"). Records written
	// before it have none: 2.
	PolicySet int           `json:"policy_set,omitempty"`
	Value     forest.Config `json:"value"` // the value forest (sets 1 and 2)
	// Net is the value network (value feature set 3) and its fit.
	Net mlp.Config `json:"net"`
	// ValueSet is the value model's position features (policy's value
	// feature sets); ValueTarget the weight λ of the teacher's score in
	// its target, the rest the game's outcome (0: the outcome alone; see
	// target.go).
	ValueSet    int     `json:"value_set,omitempty"`
	ValueTarget float64 `json:"value_target,omitempty"`
	// ValueTD is the weight of the game's next position's target in a
	// position's (TD(ValueTD) along the game, see valueTargets; 0: the
	// position's own).
	ValueTD float64 `json:"value_td,omitempty"`
	// ValueQuiet fits the value model on the positions the search asks it
	// about (search.Config.Evaluated of the engine's configuration), and
	// measures it on those: not the third of a game's positions where a
	// side has a five to make, the mover has one to block, or the mover
	// wins by a VCF the horizon finds. The search scores those without
	// the model, and a model fitted on them spends itself on what is
	// never asked (loop/TUNING.md, "The positions the search asks
	// about"). Records written before it have none: every position.
	ValueQuiet bool `json:"value_quiet,omitempty"`
	// ScaleByGen fits the scale that turns the teacher's scores into
	// probabilities on each generation's positions apart (each teacher's
	// units), not on the window's together.
	ScaleByGen bool    `json:"scale_by_gen,omitempty"`
	ValueScale float64 `json:"value_scale"` // the teacher's; see search.Config

	// GateNodes is the node budget a move of the engines in the gate and
	// the engine's anchor matches: the search with a generation's models
	// as users play it (arena's search agent, its prior depth and value
	// scale), deterministic.
	GateNodes int64 `json:"gate_nodes,omitempty"`

	Gate        Gate `json:"gate"`
	AnchorGames int  `json:"anchor_games"` // games against each anchor (paired)

	Workers int    `json:"workers"`
	Seed    uint64 `json:"seed"`
}

// Gate is the test of a new generation: paired games of the engines (the
// search at Config.GateNodes over the new models and over the adopted
// ones) from generated openings, ended by an SPRT of H0 Elo0 against H1 Elo1
// (alpha = beta = 0.05, no verdict before MinPairs pairs) or after
// MaxGames; H1 adopts. With Elo1 above 0 the gate asks the new engine to
// be stronger; with Elo1 at or below 0 it is a non-regression gate (as
// Stockfish's tests of simplifications): it adopts unless the new engine
// is weaker. A gate that reaches MaxGames undecided (always so when
// MaxGames is under 2·MinPairs, see SPRTCanDecide) is decided by the pair
// score's 95% interval: adopted when it lies above 50%, or, for a
// non-regression gate, unless it lies below 50%.
type Gate struct {
	MaxGames int     `json:"max_games"` // even: games are played in pairs; 0: no gate (None)
	MinPairs int     `json:"min_pairs"` // pairs before the SPRT may decide; 0 means arena.DefaultMinPairs
	Elo0     float64 `json:"elo0"`
	Elo1     float64 `json:"elo1"`
}

// SPRTPairs is how many pairs the gate's SPRT needs before it may decide.
func (g Gate) SPRTPairs() int {
	if g.MinPairs == 0 {
		return arena.DefaultMinPairs
	}
	return g.MinPairs
}

// NonRegression reports whether the gate adopts a generation unless it is
// weaker (Elo1 <= 0), not only when it is stronger.
func (g Gate) NonRegression() bool { return g.Elo1 <= 0 }

// None reports whether there is no gate (MaxGames 0): every generation is
// adopted, as AlphaZero's loop replaces its network without a match; the
// anchors still measure each one.
func (g Gate) None() bool { return g.MaxGames == 0 }

// SPRTCanDecide reports whether MaxGames leaves the SPRT the pairs it
// needs; if not, every gate is decided by the pair score's interval.
// Without a gate there is nothing to decide: true.
func (g Gate) SPRTCanDecide() bool { return g.None() || g.MaxGames/2 >= g.SPRTPairs() }

// TeacherValueScale is the weight of the value model in the teacher's
// evaluation (search.Config.ValueScale) of the shipped models'
// recipe (data/README.md), which play weighs ten times more
// (search.DefaultConfig's, measured stronger); DefaultConfig's teacher
// evaluates as play does.
const TeacherValueScale = 300

// TeacherPriorDepth is the least depth left at which the teacher's search
// asks the prior (search.Config.PriorDepth); like TeacherValueScale it is
// the recipe's, whatever play uses.
const TeacherPriorDepth = 4

// DefaultConfig is the configuration of "train loop" without flags: the
// recipe of data/README.md's second network run, but for that run's
// -games 6000, -seed and -gens (and its last two generations' 64 hidden
// units), with the value model fitted on the positions the search asks
// about (ValueQuiet, since 2026-12-06). A generation is 12,000
// games, about 230,000 positions with a choice (19 or so a game) and
// 350,000 value positions, two thirds of them quiet; the window of 2
// about twice that. Measured on
// this 2-core machine with 6,000-game generations: 25–40 teacher games a
// second on 2 workers, fits of about 250,000 samples in 10–27 s, the gate
// and anchors 1 to 5 minutes; the fit's memory peaks at 1.2–1.5 GB.
func DefaultConfig() Config {
	pf := forest.DefaultConfig()
	pf.Trees, pf.MaxDepth, pf.MinLeaf = 48, 14, 10
	vf := forest.DefaultConfig()
	// 8 trees of depth 14: +22 Elo over 16 of depth 10 at the gate's
	// 3,000 nodes and +11 at 100 ms a move, at the same cost a leaf
	// (loop/TUNING.md, "The value forest's shape").
	vf.Trees, vf.MaxDepth, vf.MinLeaf = 8, 14, 40
	return Config{
		Rule: gomoku.Freestyle, Radius: 2,
		Games: 12000, Block: 16, Nodes: 3000, Explore: 6, Margin: 30, Openings: 400,
		Window: 2, TeacherWindow: 6, Negatives: 4, Holdout: 0.1,
		Policy: pf, PolicySet: policy.HistoryFeatureSet, Value: vf, Net: mlp.DefaultConfig(),
		// The value network on the teacher's scores alone, each
		// generation's in its own units (loop/TUNING.md, "The value
		// network").
		ValueSet: policy.ValueFeatureSet, ValueTarget: 1, ScaleByGen: true,
		// Fitted on the positions the search asks about: +25 Elo at
		// the gate's 3,000 nodes and +22 at 100 ms a move over the same
		// games fitted whole (loop/TUNING.md, "The positions the search
		// asks about").
		ValueQuiet: true,
		ValueScale: search.DefaultConfig().ValueScale,
		GateNodes:  3000,
		// A non-regression gate: H0 20 Elo weaker, H1 equal. A
		// network generation's step (+10 to +20 Elo) is too small for a
		// gate that asks for proof of strength: in the run of +20 Elo
		// gates the teacher stopped changing after four adoptions and
		// seven generations in a row were rejected (loop/TUNING.md,
		// "The non-regression gate"). At 3,000 nodes a game costs
		// little (4,000 games in about 4 minutes on 2 cores).
		Gate:        Gate{MaxGames: 4000, MinPairs: 30, Elo0: -20, Elo1: 0},
		AnchorGames: 200,
		Workers:     2,
	}
}

// Validate checks the ranges.
func (c Config) Validate() error {
	tc := c.teacher(nil)
	err := errors.Join(tc.Validate(), c.Policy.Validate(), c.Value.Validate())
	if !c.Gate.None() {
		err = errors.Join(err, arena.SPRT{Elo0: c.Gate.Elo0, Elo1: c.Gate.Elo1, Alpha: 0.05, Beta: 0.05}.Validate())
	}
	switch {
	case !c.Gate.None() && !(c.Gate.Elo0 < c.Gate.Elo1):
		return fmt.Errorf("loop: the gate's H0, %g Elo, must be below its H1, %g Elo (-gate-elo0, -gate-elo)", c.Gate.Elo0, c.Gate.Elo1)
	case err != nil:
		return fmt.Errorf("loop: %w", err)
	case c.TeacherWindow < 0:
		return fmt.Errorf("loop: teacher window %d is negative", c.TeacherWindow)
	case c.Games < 10 || c.Block < 1 || c.Openings < 1 || c.Window < 1 || c.Negatives < 1 || c.Workers < 1:
		return fmt.Errorf("loop: want games >= 10, block, openings, window, negatives and workers >= 1 (have %d, %d, %d, %d, %d, %d)",
			c.Games, c.Block, c.Openings, c.Window, c.Negatives, c.Workers)
	case !(c.Holdout > 0 && c.Holdout < 0.5):
		return fmt.Errorf("loop: holdout %v out of range (0, 0.5)", c.Holdout)
	case !c.Gate.None() && c.Gate.MaxGames < 2 || c.AnchorGames < 2 || c.Gate.MaxGames%2 != 0 || c.AnchorGames%2 != 0:
		return fmt.Errorf("loop: gate and anchor games %d, %d: want even numbers, at least 2 (games are played in pairs, colours swapped; 0 gate games: no gate)",
			c.Gate.MaxGames, c.AnchorGames)
	case c.PolicySet != policy.HistoryFeatureSet && c.PolicySet != policy.ThreatFeatureSet:
		return fmt.Errorf("loop: policy feature set %d: want %d or %d (-policy-set)", c.PolicySet, policy.HistoryFeatureSet, policy.ThreatFeatureSet)
	case c.ValueSet == policy.ValueFeatureSet3 && c.Net.Validate() != nil:
		return fmt.Errorf("loop: %w", c.Net.Validate())
	case c.ValueSet != policy.ValueFeatureSet3 && policy.NumValueColumns(c.ValueSet) == 0:
		return fmt.Errorf("loop: value feature set %d: want %d, %d or %d", c.ValueSet, policy.ValueFeatureSet1, policy.ValueFeatureSet2, policy.ValueFeatureSet3)
	case !(c.ValueTarget >= 0 && c.ValueTarget <= 1):
		return fmt.Errorf("loop: value target %v out of range [0, 1]", c.ValueTarget)
	case !(c.ValueTD >= 0 && c.ValueTD < 1):
		return fmt.Errorf("loop: value TD weight %v out of range [0, 1) (-value-td)", c.ValueTD)
	case c.ValueTD > 0 && c.ValueQuiet:
		return errors.New("loop: -value-td looks along every position of a game and -value-quiet leaves some out: turn one off")
	case c.GateNodes < 100:
		return fmt.Errorf("loop: gate nodes %d: want at least 100", c.GateNodes)
	case c.Gate.MinPairs < 0:
		return fmt.Errorf("loop: gate min pairs %d is negative", c.Gate.MinPairs)
	}
	return nil
}

func (c Config) teacher(openings [][]gomoku.Point) selfplay.TeacherConfig {
	return selfplay.TeacherConfig{Rule: c.Rule, Radius: c.Radius, Nodes: c.Nodes,
		Explore: c.Explore, Margin: c.Margin, Openings: openings}
}
