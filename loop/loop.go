package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"ocvist/arena"
	"ocvist/coordinator"
	"ocvist/gomoku"
	"ocvist/policy"
	"ocvist/store"
)

// Record is what a generation measured; it is stored as the generation's
// Details (JSON) and read back by Records.
type Record struct {
	Gen       int    `json:"gen"`
	Config    Config `json:"config"`
	Rule      string `json:"rule"`
	Games     int    `json:"games"` // teacher games of this generation
	BlackWins int    `json:"black_wins"`
	WhiteWins int    `json:"white_wins"`
	Draws     int    `json:"draws"`
	// Samples are the positions fitted on (window, training games), with
	// the policy and value rows they gave; HeldOut the held-out positions;
	// Skipped the teacher's moves outside the filter's candidates.
	Samples    int `json:"samples"`
	HeldOut    int `json:"held_out"`
	PolicyRows int `json:"policy_rows"`
	ValueRows  int `json:"value_rows"`
	Skipped    int `json:"skipped"`
	// Top1 and AUC measure the policy within held-out positions;
	// ValueAUC the value model on held-out positions. Figures that are
	// undefined (no held-out position with a choice) are recorded as -1.
	Top1     float64 `json:"top1"`
	AUC      float64 `json:"auc"`
	ValueAUC float64 `json:"value_auc"`
	// ScoreAUC is the teacher's own root score's AUC on the same held-out
	// positions (what the value model learns from, when ValueTarget > 0);
	// ScoreScale the fitted scale that turns scores into the value
	// target's probabilities (ScoreWin; 0: outcome targets).
	ScoreAUC   float64 `json:"score_auc,omitempty"`
	ScoreScale float64 `json:"score_scale,omitempty"`
	// ValueFrom is the first generation of the value model's window (see
	// Config.TeacherWindow).
	ValueFrom int `json:"value_from,omitempty"`
	// Seconds of the teacher games, of the two fits, of gate and anchors.
	TeacherSeconds float64 `json:"teacher_seconds"`
	FitSeconds     float64 `json:"fit_seconds"`
	MatchSeconds   float64 `json:"match_seconds"`

	PolicyModel string `json:"policy_model"`
	ValueModel  string `json:"value_model"`
	// Gate is the new engine against the adopted one (Config.GateNodes;
	// before it, records' gates were the pure policies'); Engine the new
	// engine's anchor matches, Anchors the pure policy's.
	Gate    MatchRecord   `json:"gate"`
	Engine  []MatchRecord `json:"engine,omitempty"`
	Anchors []MatchRecord `json:"anchors"`
	Adopted bool          `json:"adopted"`
	Current int           `json:"current"` // the adopted generation after this one (0: the start model)
}

// MatchRecord is a match of the new generation's engine or pure policy
// (A) against Against.
type MatchRecord struct {
	Against  string  `json:"against"`
	Games    int     `json:"games"`
	Score    float64 `json:"score"` // A's pair score with its 95% interval
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Elo      float64 `json:"elo"` // A's Elo over Against with its 95% interval, within ±EloBound
	EloLow   float64 `json:"elo_low"`
	EloHigh  float64 `json:"elo_high"`
	Decision string  `json:"decision,omitempty"` // the SPRT's verdict (or NoGate), gate only
	LLR      float64 `json:"llr,omitempty"`
	// ByInterval, gate only: the SPRT was undecided at the game limit and
	// the pair score's interval decided (see gateDecides).
	ByInterval bool `json:"by_interval,omitempty"`
}

// gateDecides is the gate's verdict on m, a match of gate g: the SPRT's
// when it decided, else (undecided at the game limit) the pair score's 95%
// interval's, which adopts when it lies above 50% for a gate that asks
// for strength and unless it lies below 50% for a non-regression gate
// (Gate.NonRegression); byInterval says which decided.
func gateDecides(g Gate, m MatchRecord) (adopted, byInterval bool) {
	switch m.Decision {
	case arena.AcceptH1.String():
		return true, false
	case arena.AcceptH0.String():
		return false, false
	}
	if g.NonRegression() {
		return !(m.High < 0.5), true
	}
	return m.Low > 0.5, true
}

// NoGate is the gate's decision when there is none (Gate.None): adopted.
const NoGate = "no gate"

// GateVerdict says what decided the gate: "H1 accepted" or "H0 accepted"
// (the SPRT), or, undecided at the game limit, where the pair score's
// interval lies: "above 50%" or "not below 50%" (adopted), "below 50%" or
// "not above 50%" (rejected). Records made before the interval decided
// undecided gates say "undecided".
func (r Record) GateVerdict() string {
	const limit = "undecided at the game limit; pair score interval "
	switch {
	case !r.Gate.ByInterval:
		return r.Gate.Decision
	case r.Adopted && r.Gate.Low > 0.5:
		return limit + "above 50%"
	case r.Adopted:
		return limit + "not below 50%"
	case r.Gate.High < 0.5:
		return limit + "below 50%"
	}
	return limit + "not above 50%"
}

// Loop runs generations on a store. Models go to Dir as
// gen-NNN.policy.ocf and gen-NNN.value.ocf (generation 0's policy too, for
// the workers to load).
type Loop struct {
	cfg   Config
	db    store.Store
	dir   string
	start *policy.Model // generation 0: the first prior, the gate's first rival, an anchor
	// Log, if set, receives a line per step.
	Log func(format string, args ...any)
	// StartFile, if set, is start's model file, which a store that keeps
	// models (store.ModelStore) keeps as generation 0's policy byte for
	// byte, and the workers load; without it, start as policy.Model.Save
	// writes it.
	StartFile []byte
	// ShardRoot is where the teacher jobs make their folders (default:
	// coordinator.ShardDir of the database's path).
	ShardRoot string
	// Out receives the teacher jobs' progress lines and warnings
	// (default: none).
	Out io.Writer
	// Backlog and Progress are the teacher jobs' (coordinator.Config's
	// fields of the same names; default: BacklogAuto, 5 s).
	Backlog  coordinator.ByteSize
	Progress time.Duration
	// Poll is how often a member that waits for the others (their games,
	// the leader's fit) looks again (default 2 s).
	Poll time.Duration
	// Anchors are fixed engines every generation's engine is measured
	// against besides generation 0's and patterns (cmd/train: the shipped
	// engine), searching at Config.GateNodes.
	Anchors []Anchor
	// openingsOf is the generation whose openings' file Dir holds.
	openingsOf int
}

// New returns a loop over db whose generation 0 is the policy model start.
func New(db store.Store, dir string, start *policy.Model, cfg Config) (*Loop, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch {
	case cfg.Rule != db.Config().Rule:
		return nil, fmt.Errorf("loop: rule %s, but the database plays %s", cfg.Rule, db.Config().Rule)
	case start.Spec.Rule != cfg.Rule:
		return nil, fmt.Errorf("loop: rule %s, but the start model was fitted for %s: start from a model fitted for %s", cfg.Rule, start.Spec.Rule, cfg.Rule)
	}
	return &Loop{cfg: cfg, db: db, dir: dir, start: start, Backlog: coordinator.BacklogAuto, Progress: 5 * time.Second, Poll: 2 * time.Second}, nil
}

func (l *Loop) logf(format string, args ...any) {
	if l.Log != nil {
		l.Log(format, args...)
	}
}

// Records reads the loop's generations from db (those with details).
func Records(ctx context.Context, db store.Store) ([]Record, error) {
	gens, err := db.Generations(ctx)
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, g := range gens {
		if g.Details == "" {
			continue
		}
		var r Record
		if err := json.Unmarshal([]byte(g.Details), &r); err != nil {
			return nil, fmt.Errorf("loop: generation %d: details: %w", g.Gen, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// models are the adopted generation's models (value nil for generation 0)
// with their files, which the teacher workers load.
type models struct {
	gen                   int
	policy                *policy.Model
	value                 *policy.ValueModel
	policyFile, valueFile string
}

// Run runs n more generations after the last recorded one (n recorded
// by this loop or, on a database several machines feed, by whichever
// member led them), as a member of the database's loop (see doc.go):
// it first merges the shards that earlier jobs here left (a stopped or
// crashed loop's), then, generation by generation, plays its share of the
// games and, once they are all in, fits and gates if it leads. Stopped
// (ctx ends) it returns what it recorded with ctx's error: finished games
// are merged, and a next Run resumes where this one was.
func (l *Loop) Run(ctx context.Context, n int) ([]Record, error) {
	if l.ShardRoot == "" {
		l.ShardRoot = coordinator.ShardDir(l.db.Path())
	}
	if l.Out == nil {
		l.Out = io.Discard
	}
	a, err := coordinator.AdoptShards(ctx, l.db, l.ShardRoot)
	coordinator.ReportAdopted(l.Out, a)
	if err != nil {
		return nil, err
	}
	if err := l.publishStart(ctx); err != nil {
		return nil, err
	}
	m, err := l.db.JoinLoop(ctx)
	if err != nil {
		return nil, err
	}
	defer m.Leave()
	var out []Record
	for len(out) < n {
		recs, err := Records(ctx, l.db)
		if err != nil {
			return out, err
		}
		cur, next := models{}, 1
		if len(recs) > 0 {
			last := recs[len(recs)-1]
			next = last.Gen + 1
			cur, err = l.load(ctx, recs, last.Current)
		} else {
			cur, err = l.load(ctx, nil, 0)
		}
		if err != nil {
			return out, err
		}
		rec, err := l.generation(ctx, m, next, cur)
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// load reads the models of generation gen (0: the start model), from
// the database when it keeps them (store.ModelStore: the leader may be
// another machine), else from the files the records name.
func (l *Loop) load(ctx context.Context, recs []Record, gen int) (models, error) {
	if gen == 0 {
		return models{policy: l.start, policyFile: l.modelFile(0, store.RolePolicy)}, nil
	}
	i := slices.IndexFunc(recs, func(r Record) bool { return r.Gen == gen })
	if i < 0 {
		return models{}, fmt.Errorf("loop: adopted generation %d has no record", gen)
	}
	m := models{gen: gen, policyFile: recs[i].PolicyModel, valueFile: recs[i].ValueModel}
	if ms, ok := l.db.(store.ModelStore); ok {
		var err error
		if m.policyFile, err = l.fetch(ctx, ms, gen, store.RolePolicy); err != nil {
			return models{}, err
		}
		if m.valueFile, err = l.fetch(ctx, ms, gen, store.RoleValue); err != nil {
			return models{}, err
		}
	}
	var err error
	if m.policy, err = policy.LoadFile(m.policyFile); err != nil {
		return models{}, err
	}
	if m.value, err = policy.LoadValueFile(m.valueFile); err != nil {
		return models{}, err
	}
	return m, nil
}

// modelFile is where the loop keeps generation gen's model of the role.
func (l *Loop) modelFile(gen int, role string) string {
	return filepath.Join(l.dir, fmt.Sprintf("gen-%03d.%s.ocf", gen, role))
}

// fetch writes generation gen's model of the role, as the database keeps
// it, to its file in Dir (unless the file holds it already) and returns
// the file's path.
func (l *Loop) fetch(ctx context.Context, ms store.ModelStore, gen int, role string) (string, error) {
	m, err := ms.Model(ctx, gen, role)
	if err != nil {
		return "", err
	}
	return l.writeModel(gen, role, m.Bytes)
}

// writeModel writes b as generation gen's model file of the role, unless
// the file holds it already, and returns its path.
func (l *Loop) writeModel(gen int, role string, b []byte) (string, error) {
	path := l.modelFile(gen, role)
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, b) {
		return path, nil
	}
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return "", err
	}
	return path, policy.WriteFileAtomic(path, b)
}

// generation plays, fits, gates and measures generation g with cur as the
// adopted models, as member m (see doc.go): while g's games are not all
// in, it plays the blocks it can claim, or waits for the other members'
// (on a database several machines feed); once they are, it records the
// generation if it can lead, or waits for the leader's record. A
// generation another member recorded is returned as recorded.
func (l *Loop) generation(ctx context.Context, m store.LoopMember, g int, cur models) (Record, error) {
	plan, err := l.plan(ctx, g)
	if err != nil {
		return Record{}, err
	}
	t0 := time.Now()
	waiting := ""
	for {
		switch rec, ok, err := l.recorded(ctx, g); {
		case err != nil:
			return Record{}, err
		case ok:
			l.logf("gen %d: recorded by the member that led it", g)
			return rec, nil
		}
		stored, err := l.db.TeacherStored(ctx, g)
		if err != nil {
			return Record{}, err
		}
		if stored >= int64(plan.Games) {
			if lead, err := m.Lead(ctx); err != nil || lead {
				if err != nil {
					return Record{}, err
				}
				return l.lead(ctx, m, g, cur, time.Since(t0))
			}
			waiting = l.wait(waiting, fmt.Sprintf("gen %d: all %d games in; another member fits and gates it", g, stored))
		} else {
			c, ok, err := m.Claim(ctx, g)
			if err != nil {
				return Record{}, err
			}
			if ok {
				if err := l.play(ctx, m, plan, cur, c, stored); err != nil {
					return Record{}, err
				}
				waiting = ""
				continue
			}
			waiting = l.wait(waiting, fmt.Sprintf("gen %d: %d of %d games in; the other members play the rest", g, stored, plan.Games))
		}
		if _, shared := l.db.(store.ModelStore); !shared {
			// One writer: nothing else can bring the games or the record.
			return Record{}, fmt.Errorf("loop: generation %d: %d of %d games stored and none left to claim", g, stored, plan.Games)
		}
		select {
		case <-ctx.Done():
			return Record{}, ctx.Err()
		case <-time.After(l.Poll):
		}
	}
}

// wait says what the member waits for, once for each new reason.
func (l *Loop) wait(said, why string) string {
	if why != said {
		l.logf("%s: waiting", why)
	}
	return why
}

// recorded returns generation g's record if it has one.
func (l *Loop) recorded(ctx context.Context, g int) (Record, bool, error) {
	recs, err := Records(ctx, l.db)
	if err != nil {
		return Record{}, false, err
	}
	i := slices.IndexFunc(recs, func(r Record) bool { return r.Gen == g })
	if i < 0 {
		return Record{}, false, nil
	}
	return recs[i], true, nil
}

// lead fits, gates and records generation g; the member leads until it
// returns. played is how long the games took this member.
func (l *Loop) lead(ctx context.Context, m store.LoopMember, g int, cur models, played time.Duration) (Record, error) {
	defer m.Unlead(context.WithoutCancel(ctx))
	if rec, ok, err := l.recorded(ctx, g); err != nil || ok {
		return rec, err
	}
	rec := Record{Gen: g, Config: l.cfg, Rule: l.cfg.Rule.String(), TeacherSeconds: played.Seconds()}
	err := l.db.TeacherGames(ctx, g, g, func(tg store.TeacherGame) error {
		rec.Games++
		switch tg.Winner {
		case gomoku.Black:
			rec.BlackWins++
		case gomoku.White:
			rec.WhiteWins++
		default:
			rec.Draws++
		}
		return nil
	})
	if err != nil {
		return rec, err
	}
	l.logf("gen %d: %d teacher games in (black %d, white %d, draws %d); %.0fs of play here", g, rec.Games, rec.BlackWins, rec.WhiteWins, rec.Draws, rec.TeacherSeconds)

	t0 := time.Now()
	next, err := l.fit(ctx, g, cur.gen, &rec)
	if err != nil {
		return rec, err
	}
	rec.FitSeconds = time.Since(t0).Seconds()
	l.logf("gen %d: fitted on %d samples (%d policy rows, %d value rows) in %.0fs: held-out top-1 %.3f, AUC %.3f, value AUC %.3f",
		g, rec.Samples, rec.PolicyRows, rec.ValueRows, rec.FitSeconds, rec.Top1, rec.AUC, rec.ValueAUC)

	t0 = time.Now()
	if err := l.judge(ctx, g, next, cur, &rec); err != nil {
		return rec, err
	}
	rec.MatchSeconds = time.Since(t0).Seconds()
	rec.Current = cur.gen
	if rec.Adopted {
		rec.Current = g
	}
	if err := l.save(ctx, rec); errors.Is(err, store.ErrGenerationExists) {
		// Another member recorded it meanwhile (it took the lead while
		// this one's connection was lost): the same games, the same
		// record.
		rec, _, err = l.recorded(ctx, g)
		return rec, err
	} else if err != nil {
		return rec, err
	}
	return rec, nil
}
