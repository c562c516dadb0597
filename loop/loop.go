package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"ocvist/arena"
	"ocvist/forest"
	"ocvist/gomoku"
	"ocvist/internal/splitmix"
	"ocvist/patterns"
	"ocvist/policy"
	"ocvist/search"
	"ocvist/selfplay"
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
	// Seconds of the teacher games, of the two fits, of gate and anchors.
	TeacherSeconds float64 `json:"teacher_seconds"`
	FitSeconds     float64 `json:"fit_seconds"`
	MatchSeconds   float64 `json:"match_seconds"`

	PolicyModel string        `json:"policy_model"`
	ValueModel  string        `json:"value_model"`
	Gate        MatchRecord   `json:"gate"`
	Anchors     []MatchRecord `json:"anchors"`
	Adopted     bool          `json:"adopted"`
	Current     int           `json:"current"` // the adopted generation after this one (0: the start model)
}

// MatchRecord is a match of the new policy (A) against Against.
type MatchRecord struct {
	Against  string  `json:"against"`
	Games    int     `json:"games"`
	Score    float64 `json:"score"` // A's pair score with its 95% interval
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Elo      float64 `json:"elo"` // A's Elo over Against with its 95% interval, within ±EloBound
	EloLow   float64 `json:"elo_low"`
	EloHigh  float64 `json:"elo_high"`
	Decision string  `json:"decision,omitempty"` // the SPRT's verdict, gate only
	LLR      float64 `json:"llr,omitempty"`
	// ByInterval, gate only: the SPRT was undecided at the game limit and
	// the pair score's interval decided (adopted when Low > 0.5).
	ByInterval bool `json:"by_interval,omitempty"`
}

// gateDecides is the gate's verdict on m: the SPRT's when it decided,
// else (undecided at the game limit) the pair score's 95% interval's,
// which adopts when it lies above 50%; byInterval says which.
func gateDecides(m MatchRecord) (adopted, byInterval bool) {
	switch m.Decision {
	case arena.AcceptH1.String():
		return true, false
	case arena.AcceptH0.String():
		return false, false
	}
	return m.Low > 0.5, true
}

// GateVerdict says what decided the gate: "H1 accepted" or "H0 accepted"
// (the SPRT), or "undecided at the game limit; pair score interval above
// 50%" (adopted) or "… not above 50%" (rejected). Records made before the
// interval decided undecided gates say "undecided".
func (r Record) GateVerdict() string {
	switch {
	case !r.Gate.ByInterval:
		return r.Gate.Decision
	case r.Adopted:
		return "undecided at the game limit; pair score interval above 50%"
	}
	return "undecided at the game limit; pair score interval not above 50%"
}

// Loop runs generations on a store. Models go to Dir as
// gen-NNN.policy.ocf and gen-NNN.value.ocf.
type Loop struct {
	cfg   Config
	db    store.Store
	dir   string
	start *policy.Model // generation 0: the first prior, the gate's first rival, an anchor
	// Log, if set, receives a line per step.
	Log func(format string, args ...any)
	// StartFile, if set, is start's model file, which a store that keeps
	// models (store.ModelStore) keeps as generation 0's policy byte for
	// byte; without it, start as policy.Model.Save writes it.
	StartFile []byte
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
	return &Loop{cfg: cfg, db: db, dir: dir, start: start}, nil
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

// models are the adopted generation's models (value nil for generation 0).
type models struct {
	gen    int
	policy *policy.Model
	value  *policy.ValueModel
}

// Run runs n more generations after the last recorded one.
func (l *Loop) Run(ctx context.Context, n int) ([]Record, error) {
	recs, err := Records(ctx, l.db)
	if err != nil {
		return nil, err
	}
	if err := l.publishStart(ctx); err != nil {
		return nil, err
	}
	cur := models{policy: l.start}
	next := 1
	if len(recs) > 0 {
		last := recs[len(recs)-1]
		next = last.Gen + 1
		if cur, err = l.load(recs, last.Current); err != nil {
			return nil, err
		}
	}
	var out []Record
	for g := next; g < next+n; g++ {
		rec, adopted, err := l.generation(ctx, g, cur)
		if err != nil {
			return out, err
		}
		if rec.Adopted {
			cur = adopted
		}
		rec.Current = cur.gen
		if err := l.save(ctx, rec); err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// load reads the models of generation gen (0: the start model).
func (l *Loop) load(recs []Record, gen int) (models, error) {
	if gen == 0 {
		return models{policy: l.start}, nil
	}
	for _, r := range recs {
		if r.Gen == gen {
			pm, err := policy.LoadFile(r.PolicyModel)
			if err != nil {
				return models{}, err
			}
			vm, err := policy.LoadValueFile(r.ValueModel)
			if err != nil {
				return models{}, err
			}
			return models{gen, pm, vm}, nil
		}
	}
	return models{}, fmt.Errorf("loop: adopted generation %d has no record", gen)
}

// generation plays, fits, gates and measures generation g with cur as the
// adopted models.
func (l *Loop) generation(ctx context.Context, g int, cur models) (Record, models, error) {
	rec := Record{Gen: g, Config: l.cfg, Rule: l.cfg.Rule.String()}
	t0 := time.Now()
	games, err := l.play(ctx, g, cur)
	if err != nil {
		return rec, models{}, err
	}
	for _, tg := range games {
		switch tg.Winner {
		case gomoku.Black:
			rec.BlackWins++
		case gomoku.White:
			rec.WhiteWins++
		default:
			rec.Draws++
		}
	}
	if _, err := l.db.AddTeacherGames(ctx, games); err != nil {
		return rec, models{}, err
	}
	rec.Games = len(games)
	rec.TeacherSeconds = time.Since(t0).Seconds()
	l.logf("gen %d: %d teacher games in %.0fs (black %d, white %d, draws %d)", g, len(games), rec.TeacherSeconds, rec.BlackWins, rec.WhiteWins, rec.Draws)

	t0 = time.Now()
	next, err := l.fit(ctx, g, &rec)
	if err != nil {
		return rec, models{}, err
	}
	rec.FitSeconds = time.Since(t0).Seconds()
	l.logf("gen %d: fitted on %d samples (%d policy rows, %d value rows) in %.0fs: held-out top-1 %.3f, AUC %.3f, value AUC %.3f",
		g, rec.Samples, rec.PolicyRows, rec.ValueRows, rec.FitSeconds, rec.Top1, rec.AUC, rec.ValueAUC)

	t0 = time.Now()
	if err := l.judge(ctx, g, next, cur, &rec); err != nil {
		return rec, models{}, err
	}
	rec.MatchSeconds = time.Since(t0).Seconds()
	return rec, next, nil
}

// play plays the generation's teacher games on cfg.Workers goroutines;
// game i depends only on (Seed, g, i).
func (l *Loop) play(ctx context.Context, g int, cur models) ([]store.TeacherGame, error) {
	ops, err := arena.GenerateOpenings(splitmix.Derive(l.cfg.Seed, 0x0be7, uint64(g)), l.cfg.Openings, l.cfg.Rule)
	if err != nil {
		return nil, err
	}
	openings := make([][]gomoku.Point, len(ops))
	for i, o := range ops {
		openings[i] = o.Moves
	}
	tc := l.cfg.teacher(openings)
	out := make([]store.TeacherGame, l.cfg.Games)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range l.cfg.Workers {
		wg.Add(1)
		go func() { // bounded: cfg.Workers teachers, joined below
			defer wg.Done()
			t := selfplay.NewTeacher(tc, teacherSearch(l.cfg.ValueScale))
			pm, vm := cur.policy, cur.value
			t.Searcher().SetPrior(func() search.Prior { return policy.NewPrior(pm) })
			if vm != nil {
				t.Searcher().SetValue(func() search.Value { return policy.NewValuer(vm) })
			}
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(out) {
					return
				}
				rng := rand.New(rand.NewPCG(splitmix.Derive(l.cfg.Seed, 0x7eac, uint64(g), uint64(i)), 0))
				tg := t.Play(rng)
				out[i] = store.TeacherGame{Gen: g, Game: i, Moves: tg.Moves, Book: tg.Book, Teacher: tg.Teacher, Winner: tg.Winner}
				if n := done.Add(1); n%int64(max(1, len(out)/10)) == 0 {
					l.logf("gen %d: %d/%d teacher games", g, n, len(out))
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// fit builds the window's sets and fits both models, saved to Dir.
func (l *Loop) fit(ctx context.Context, g int, rec *Record) (models, error) {
	s, err := build(ctx, l.db, l.cfg, max(1, g-l.cfg.Window+1), g)
	if err != nil {
		return models{}, err
	}
	rec.Samples, rec.HeldOut, rec.Skipped = s.samples, s.heldOut, s.skipped
	rec.PolicyRows, rec.ValueRows = len(s.policyY), len(s.valueY)
	if rec.Samples == 0 || len(s.valueY) == 0 {
		return models{}, errors.New("loop: the games gave no samples")
	}
	pcfg, vcfg := l.cfg.Policy, l.cfg.Value
	pcfg.Seed = int64(splitmix.Derive(l.cfg.Seed, 0xf17, uint64(g)) >> 1)
	vcfg.Seed = int64(splitmix.Derive(l.cfg.Seed, 0xf18, uint64(g)) >> 1)
	spec := policy.Spec{FeatureSet: policy.HistoryFeatureSet, Rule: l.cfg.Rule, Radius: l.cfg.Radius}
	pm, err := policy.Fit(ctx, policy.NewDataset(s.policyX, s.policyY, spec), pcfg)
	if err != nil {
		return models{}, err
	}
	vm, err := policy.FitValue(ctx, s.valueX, s.valueY, nil, l.cfg.Rule, vcfg)
	if err != nil {
		return models{}, err
	}
	rec.Top1, rec.AUC = groupMetrics(pm.Forest, s.testX, s.testY, s.groups, policy.NumHistoryFeatures)
	rec.ValueAUC = auc(vm.Forest, s.testValueX, s.testValueY, policy.NumValueFeatures)
	rec.Top1, rec.AUC, rec.ValueAUC = defined(rec.Top1), defined(rec.AUC), defined(rec.ValueAUC)
	rec.PolicyModel = filepath.Join(l.dir, fmt.Sprintf("gen-%03d.policy.ocf", g))
	rec.ValueModel = filepath.Join(l.dir, fmt.Sprintf("gen-%03d.value.ocf", g))
	if _, err := pm.SaveFile(rec.PolicyModel); err != nil {
		return models{}, err
	}
	if _, err := vm.SaveFile(rec.ValueModel); err != nil {
		return models{}, err
	}
	return models{g, pm, vm}, nil
}

// defined maps an undefined figure (NaN) to -1, which JSON can hold.
func defined(x float64) float64 {
	if math.IsNaN(x) {
		return -1
	}
	return x
}

func groupMetrics(f *forest.Model, x []float64, y, groups []int, cols int) (top1, a float64) {
	scores, labels := predict(f, x, y, cols)
	return forest.GroupTop1(scores, labels, groups), forest.GroupAUC(scores, labels, groups)
}

func auc(f *forest.Model, x []float64, y []int, cols int) float64 {
	scores, labels := predict(f, x, y, cols)
	return forest.AUC(scores, labels, nil)
}

func predict(f *forest.Model, x []float64, y []int, cols int) ([]float64, []bool) {
	scores, labels := make([]float64, len(y)), make([]bool, len(y))
	for i := range y {
		scores[i] = f.PredictClass1(x[i*cols : (i+1)*cols])
		labels[i] = y[i] == 1
	}
	return scores, labels
}

// save records the generation: its model files first when the store
// keeps them (store.ModelStore), so that a generation the records name
// current always has its models there.
func (l *Loop) save(ctx context.Context, rec Record) error {
	details, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := l.publish(ctx, rec.Gen, store.RolePolicy, rec.PolicyModel); err != nil {
		return err
	}
	if err := l.publish(ctx, rec.Gen, store.RoleValue, rec.ValueModel); err != nil {
		return err
	}
	return l.db.AddGeneration(ctx, store.Generation{
		Gen: rec.Gen, Games: int64(rec.Games), Rows: int64(rec.PolicyRows), FitSeconds: rec.FitSeconds,
		AUC: rec.AUC, Score: rec.Gate.Score, ScoreLow: rec.Gate.Low, ScoreHigh: rec.Gate.High,
		Model: rec.PolicyModel, Seed: int64(l.cfg.Seed >> 1), Details: string(details),
	})
}

// publish stores the model file at path as generation gen's model of the
// role, if the store keeps models.
func (l *Loop) publish(ctx context.Context, gen int, role, path string) error {
	ms, ok := l.db.(store.ModelStore)
	if !ok {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return ms.PutModel(ctx, gen, role, b)
}

// publishStart stores generation 0's policy (the start model, see
// StartFile) if the store keeps models: the current policy before any
// generation is adopted. Generation 0 has no value model.
func (l *Loop) publishStart(ctx context.Context) error {
	ms, ok := l.db.(store.ModelStore)
	if !ok {
		return nil
	}
	b := l.StartFile
	if b == nil {
		var buf bytes.Buffer
		if err := l.start.Save(&buf); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	return ms.PutModel(ctx, 0, store.RolePolicy, b)
}

// Current is the generation whose models the loop plays with now, as db
// records it: the last record's Current (0, the start model, before any).
func Current(ctx context.Context, db store.Store) (int, error) {
	recs, err := Records(ctx, db)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	return recs[len(recs)-1].Current, nil
}

// judge plays the gate and the anchors' matches of the new policy.
func (l *Loop) judge(ctx context.Context, g int, next, cur models, rec *Record) error {
	ops, err := arena.GenerateOpenings(splitmix.Derive(l.cfg.Seed, 0x9a7e, uint64(g)), max(l.cfg.Gate.MaxGames, l.cfg.AnchorGames)/2, l.cfg.Rule)
	if err != nil {
		return err
	}
	sprt := &arena.SPRT{Elo0: l.cfg.Gate.Elo0, Elo1: l.cfg.Gate.Elo1, Alpha: 0.05, Beta: 0.05, MinPairs: l.cfg.Gate.MinPairs}
	rec.Gate, err = l.match(ctx, next.policy, fmt.Sprintf("gen %d", cur.gen), policyAgent(cur.policy), ops, l.cfg.Gate.MaxGames, sprt)
	if err != nil {
		return err
	}
	rec.Adopted, rec.Gate.ByInterval = gateDecides(rec.Gate)
	l.logf("gen %d: gate against gen %d: %d games, pair score %.3f [%.3f, %.3f], LLR %.2f, %s: %s",
		g, cur.gen, rec.Gate.Games, rec.Gate.Score, rec.Gate.Low, rec.Gate.High, rec.Gate.LLR, rec.GateVerdict(), map[bool]string{true: "adopted", false: "rejected"}[rec.Adopted])
	anchors := []struct {
		name string
		make func(seed uint64) arena.Agent
	}{
		{"random", func(seed uint64) arena.Agent { return arena.NewRandom(seed) }},
		{"patterns", func(seed uint64) arena.Agent { return arena.NewPatterns(seed, patterns.Config{}) }},
		{"gen 0", policyAgent(l.start)},
	}
	for _, a := range anchors {
		m, err := l.match(ctx, next.policy, a.name, a.make, ops, l.cfg.AnchorGames, nil)
		if err != nil {
			return err
		}
		rec.Anchors = append(rec.Anchors, m)
		l.logf("gen %d: against %s: score %.3f, Elo %+.0f [%+.0f, %+.0f]", g, a.name, m.Score, m.Elo, m.EloLow, m.EloHigh)
	}
	return nil
}

// EloBound stands for an infinite Elo estimate (a perfect or a zero score)
// in records, which JSON cannot hold.
const EloBound = 1000

func clampElo(e float64) float64 { return max(-EloBound, min(EloBound, e)) }

// policyAgent makes pure-policy agents (best move, no search) over m.
func policyAgent(m *policy.Model) func(uint64) arena.Agent {
	return func(uint64) arena.Agent {
		a, err := arena.NewForest(m, arena.ForestConfig{})
		if err != nil {
			panic("loop: " + err.Error()) // the model's rule was checked by New
		}
		return a
	}
}

// match plays the pure policy of m (A) against the agents of b from the
// openings, paired, for at most games games (an SPRT may end it sooner).
func (l *Loop) match(ctx context.Context, m *policy.Model, name string, b func(uint64) arena.Agent,
	ops []arena.Opening, games int, sprt *arena.SPRT) (MatchRecord, error) {
	newA := func(int) (arena.Agent, error) { return policyAgent(m)(0), nil }
	newB := func(i int) (arena.Agent, error) { return b(splitmix.Derive(l.cfg.Seed, 0xb, uint64(i))), nil }
	res, err := arena.MatchFactories(ctx, newA, newB, arena.Config{Rule: l.cfg.Rule, Radius: l.cfg.Radius,
		Games: games, Openings: ops, SPRT: sprt, Concurrency: l.cfg.Workers})
	if err != nil {
		return MatchRecord{}, err
	}
	if err := ctx.Err(); err != nil {
		return MatchRecord{}, err
	}
	mr := MatchRecord{Against: name, Games: res.Total.Games()}
	mr.Score, mr.Low, mr.High, _ = arena.PairScore(res.Pentanomial())
	mr.Score, mr.Low, mr.High = defined(mr.Score), defined(mr.Low), defined(mr.High)
	mr.Elo, mr.EloLow, mr.EloHigh = res.Elo()
	mr.Elo, mr.EloLow, mr.EloHigh = clampElo(mr.Elo), clampElo(mr.EloLow), clampElo(mr.EloHigh)
	if sprt != nil {
		mr.Decision, mr.LLR = res.Decision.String(), res.LLR
	}
	return mr, nil
}
