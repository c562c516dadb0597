package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"ocvist/gomoku"
	"ocvist/internal/field"
	"ocvist/openings"
	"ocvist/policy"
	"ocvist/search"
	"ocvist/selfplay"
	"ocvist/store"
	"ocvist/store/shard"
)

// TeacherConfig is what a teacher worker plays: game numbers of generation
// Gen of the learning loop (package loop), each seeded from (Seed, Gen,
// game) alone (selfplay.TeacherSeed), by the search with Nodes nodes a
// move ordered by the policy model and evaluated with the value model,
// from the openings of the Openings file (written with WriteOpenings: the
// loop generates a generation's openings once, which takes seconds). It
// travels to the worker processes as JSON, so a worker plays exactly what
// the loop plans, whichever game it is given.
type TeacherConfig struct {
	Rule       gomoku.Rule `json:"rule"`
	Radius     int         `json:"radius"`
	Nodes      int64       `json:"nodes"`
	Explore    int         `json:"explore"`
	Margin     int         `json:"margin"`
	Openings   string      `json:"openings"` // the openings' file
	Seed       uint64      `json:"seed"`
	Gen        int         `json:"gen"`
	Policy     string      `json:"policy"`          // the policy model's file (the search's prior)
	Value      string      `json:"value,omitempty"` // the value model's file ("" none)
	PriorDepth int         `json:"prior_depth"`     // see search.Config.PriorDepth
	ValueScale float64     `json:"value_scale"`
}

// Validate checks the configuration (not its files): fields out of range
// as field errors named as in TeacherConfig.
func (c *TeacherConfig) Validate() error {
	return errors.Join(
		field.Check(c.Rule.Valid(), "Rule", c.Rule, "freestyle, standard or renju"),
		field.Check(c.Openings != "", "Openings", `""`, "an openings file"),
		field.Check(c.Gen >= 0, "Gen", c.Gen, "at least 0"),
		field.Check(c.Policy != "", "Policy", `""`, "a policy model file"),
		field.Check(c.PriorDepth >= 0, "PriorDepth", c.PriorDepth, "at least 0"),
		c.selfplay(nil).Validate())
}

func (c *TeacherConfig) selfplay(openings [][]gomoku.Point) selfplay.TeacherConfig {
	return selfplay.TeacherConfig{Rule: c.Rule, Radius: c.Radius, Nodes: c.Nodes, Explore: c.Explore, Margin: c.Margin, Openings: openings}
}

// NewTeacher returns the teacher c describes: its openings read, its
// models loaded and checked against the games' rule and radius.
func (c *TeacherConfig) NewTeacher() (*selfplay.Teacher, error) {
	ops, err := openings.ReadFile(c.Openings)
	if err != nil {
		return nil, err
	}
	lines := make([][]gomoku.Point, len(ops))
	for i, o := range ops {
		lines[i] = o.Moves
	}
	pm, err := policy.LoadFile(c.Policy)
	if err != nil {
		return nil, err
	}
	if pm.Check(c.Rule) != nil || pm.Spec.Radius != c.Radius {
		return nil, fmt.Errorf("teacher: policy model %s (%v) does not fit the games (%s, radius %d)", c.Policy, pm.Spec, c.Rule, c.Radius)
	}
	tc := c.selfplay(lines)
	if err := tc.Validate(); err != nil {
		return nil, err
	}
	scfg := search.DefaultConfig()
	scfg.PriorDepth, scfg.ValueScale = c.PriorDepth, c.ValueScale
	// The recipe's teacher (loop/TUNING.md) predates the evaluation's
	// cuts, the fail-high reduction, the move of an iteration cut short
	// and the shapes' share beside the value model.
	scfg.RFPDepth, scfg.RazorDepth, scfg.FHRMargin, scfg.PartialRoot, scfg.ShapeShare = 0, 0, 0, false, 1
	t := selfplay.NewTeacher(tc, scfg)
	t.Searcher().SetPrior(func() search.Prior { return policy.NewPrior(pm) })
	if c.Value != "" {
		vm, err := policy.LoadValueFile(c.Value)
		if err != nil {
			return nil, err
		}
		t.Searcher().SetValue(func() search.Value { return policy.NewValuer(vm) })
	}
	return t, nil
}

// WriteOpenings writes the openings to path (atomically), as
// TeacherConfig.Openings reads them: one a line, as offsets from the
// centre (openings.Parse), in order.
func WriteOpenings(path string, ops []openings.Opening, header string) error {
	return policy.WriteFileAtomic(path, openings.Format(header, ops))
}

// playTeacher is a teacher worker: it makes its teacher, writes "playing"
// and then, claim after claim, writes "claim", reads the coordinator's
// answer from cfg.In ("play I J …": those games; "done", or the end of
// In: no more) and plays the games, writing "played N" after each, and
// publishes them as one teacher shard in cfg.Dir ("published PATH GAMES
// BYTES"). When ctx ends or its parent dies, it publishes the games it
// finished and returns nil.
func playTeacher(ctx context.Context, cfg WorkerConfig, out io.Writer) error {
	tc := cfg.Teacher
	t, err := tc.NewTeacher()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "playing")
	ppid := os.Getppid()
	played := 0
	for {
		fmt.Fprintln(out, "claim")
		games, ok, err := answer(ctx, cfg.In)
		if err != nil || !ok {
			return err
		}
		var done []store.TeacherGame
		for _, i := range games {
			if ctx.Err() != nil || os.Getppid() != ppid {
				break
			}
			g := t.Play(rand.New(rand.NewPCG(selfplay.TeacherSeed(tc.Seed, tc.Gen, i), 0)))
			done = append(done, g.Stored(tc.Gen, i))
			played++
			fmt.Fprintf(out, "played %d\n", played)
		}
		// Never cancelled: finished games are published while stopping.
		path, err := shard.WriteTeacherShard(context.Background(), cfg.Dir, store.DefaultConfig(tc.Rule), done, map[string]string{
			"worker": strconv.Itoa(cfg.Index), "gen": strconv.Itoa(tc.Gen), "seed": strconv.FormatUint(tc.Seed, 10),
		})
		if err != nil {
			return err
		}
		if path != "" {
			fmt.Fprintf(out, "published %s %d %d\n", path, len(done), fileSize(path))
		}
		if len(done) < len(games) {
			return nil // stopped
		}
	}
}

// answer waits for the coordinator's answer to a claim: the games to
// play (ok), or none more (not ok: "done", the end of in, or ctx ended).
func answer(ctx context.Context, in <-chan string) (games []int, ok bool, err error) {
	select {
	case <-ctx.Done():
		return nil, false, nil
	case line, open := <-in:
		if !open || line == "done" {
			return nil, false, nil
		}
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "play" {
			return nil, false, fmt.Errorf("teacher worker: unexpected answer %q", line)
		}
		for _, s := range f[1:] {
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 {
				return nil, false, fmt.Errorf("teacher worker: unexpected answer %q", line)
			}
			games = append(games, i)
		}
		return games, true, nil
	}
}
