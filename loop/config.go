package loop

import (
	"errors"
	"fmt"

	"ocvist/arena"
	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/search"
	"ocvist/selfplay"
)

// Config is a learning loop's recipe. Every field is recorded with each
// generation (Record.Config), so a curve says how it was made.
type Config struct {
	Rule   gomoku.Rule `json:"-"`
	Radius int         `json:"radius"` // candidate radius of games and features

	Games   int   `json:"games"`   // teacher games per generation
	Nodes   int64 `json:"nodes"`   // the teacher's node budget per move
	Explore int   `json:"explore"` // plies after the opening played among near-best moves
	Margin  int   `json:"margin"`  // how near: root scores within Margin of the best
	// Openings are how many random balanced openings the teacher's games
	// start from (arena.GenerateOpenings, seeded per generation).
	Openings int `json:"openings"`

	Window    int     `json:"window"`    // generations of games fitted on, this one included
	Negatives int     `json:"negatives"` // other candidates drawn per sample as "not chosen" rows
	Holdout   float64 `json:"holdout"`   // fraction of games held out for the metrics

	Policy     forest.Config `json:"policy"`
	Value      forest.Config `json:"value"`
	ValueScale float64       `json:"value_scale"` // see search.Config

	Gate        Gate `json:"gate"`
	AnchorGames int  `json:"anchor_games"` // games against each anchor (paired)

	Workers int    `json:"workers"`
	Seed    uint64 `json:"seed"`
}

// Gate is the test of a new generation: paired games of the pure policies
// from generated openings, ended by an SPRT of H0 Elo0 against H1 Elo1
// (alpha = beta = 0.05, no verdict before MinPairs pairs) or after
// MaxGames. A gate that reaches MaxGames undecided (always so when
// MaxGames is under 2·MinPairs, see SPRTCanDecide) is decided by the pair
// score's 95% interval: adopted when it lies above 50%.
type Gate struct {
	MaxGames int     `json:"max_games"` // even: games are played in pairs
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

// SPRTCanDecide reports whether MaxGames leaves the SPRT the pairs it
// needs; if not, every gate is decided by the pair score's interval.
func (g Gate) SPRTCanDecide() bool { return g.MaxGames/2 >= g.SPRTPairs() }

// TeacherValueScale is the weight of the value model in the teacher's
// evaluation (search.Config.ValueScale): the shipped models' recipe was
// run with it, so it stays even where play uses another.
const TeacherValueScale = 300

// TeacherPriorDepth is the least depth left at which the teacher's search
// asks the prior (search.Config.PriorDepth); like TeacherValueScale it is
// the recipe's, whatever play uses.
const TeacherPriorDepth = 4

// teacherSearch is the teacher's search configuration: the engine's,
// with the recipe's prior depth and value scale.
func teacherSearch(valueScale float64) search.Config {
	c := search.DefaultConfig()
	c.PriorDepth, c.ValueScale = TeacherPriorDepth, valueScale
	return c
}

// DefaultConfig is the recipe of the shipped model (data/README.md)
// without its seed.
func DefaultConfig() Config {
	pf := forest.DefaultConfig()
	pf.Trees, pf.MaxDepth, pf.MinLeaf = 48, 14, 10
	vf := forest.DefaultConfig()
	vf.Trees, vf.MaxDepth, vf.MinLeaf = 16, 10, 40
	return Config{
		Rule: gomoku.Freestyle, Radius: 2,
		Games: 1200, Nodes: 3000, Explore: 6, Margin: 30, Openings: 400,
		Window: 2, Negatives: 4, Holdout: 0.1,
		Policy: pf, Value: vf, ValueScale: TeacherValueScale,
		Gate:        Gate{MaxGames: 600, MinPairs: 30, Elo0: 0, Elo1: 40},
		AnchorGames: 200,
		Workers:     2,
	}
}

// Validate checks the ranges.
func (c Config) Validate() error {
	tc := c.teacher(nil)
	err := errors.Join(tc.Validate(), c.Policy.Validate(), c.Value.Validate(),
		arena.SPRT{Elo0: c.Gate.Elo0, Elo1: c.Gate.Elo1, Alpha: 0.05, Beta: 0.05}.Validate())
	switch {
	case err != nil:
		return fmt.Errorf("loop: %w", err)
	case c.Games < 10 || c.Openings < 1 || c.Window < 1 || c.Negatives < 1 || c.Workers < 1:
		return fmt.Errorf("loop: want games >= 10, openings, window, negatives and workers >= 1 (have %d, %d, %d, %d, %d)",
			c.Games, c.Openings, c.Window, c.Negatives, c.Workers)
	case !(c.Holdout > 0 && c.Holdout < 0.5):
		return fmt.Errorf("loop: holdout %v out of range (0, 0.5)", c.Holdout)
	case c.Gate.MaxGames < 2 || c.AnchorGames < 2 || c.Gate.MaxGames%2 != 0 || c.AnchorGames%2 != 0:
		return fmt.Errorf("loop: gate and anchor games %d, %d: want even numbers, at least 2 (games are played in pairs, colours swapped)",
			c.Gate.MaxGames, c.AnchorGames)
	case c.Gate.MinPairs < 0:
		return fmt.Errorf("loop: gate min pairs %d is negative", c.Gate.MinPairs)
	}
	return nil
}

func (c Config) teacher(openings [][]gomoku.Point) selfplay.TeacherConfig {
	return selfplay.TeacherConfig{Rule: c.Rule, Radius: c.Radius, Nodes: c.Nodes,
		Explore: c.Explore, Margin: c.Margin, Openings: openings}
}
