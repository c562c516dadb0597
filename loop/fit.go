package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"

	"ocvist/forest"
	"ocvist/internal/splitmix"
	"ocvist/policy"
	"ocvist/store"
)

// fit builds the window's sets and fits both models, saved to Dir; cur
// is the adopted generation, whose models played the games since.
func (l *Loop) fit(ctx context.Context, g, cur int, rec *Record) (models, error) {
	from, policyFrom := l.cfg.windows(g, cur)
	rec.ValueFrom = from
	s, err := buildFrom(ctx, l.db, l.cfg, from, policyFrom, g, nil)
	if err != nil {
		return models{}, err
	}
	rec.Samples, rec.Skipped = s.samples, s.skipped
	rec.PolicyRows, rec.ValueRows = len(s.policyY), s.valueRows()
	if rec.Samples == 0 || rec.ValueRows == 0 {
		return models{}, errors.New("loop: the games gave no samples")
	}
	pcfg := l.cfg.Policy
	pcfg.Seed = int64(splitmix.Derive(l.cfg.Seed, 0xf17, uint64(g)) >> 1)
	spec := policy.Spec{FeatureSet: l.cfg.PolicySet, Rule: l.cfg.Rule, Radius: l.cfg.Radius}
	pm, err := policy.Fit(ctx, policy.NewDataset(s.policyX, s.policyY, spec), pcfg)
	if err != nil {
		return models{}, err
	}
	vm, err := fitValue(ctx, s, l.cfg, g, rec)
	if err != nil {
		return models{}, err
	}
	s = nil // the training rows: the memory the held-out pass may take
	t, err := buildFrom(ctx, l.db, l.cfg, from, policyFrom, g, &measure{policy: pm.Forest, value: policy.NewValuer(vm)})
	if err != nil {
		return models{}, err
	}
	rec.HeldOut, rec.Skipped = t.heldOut, rec.Skipped+t.skipped
	rec.Top1 = defined(forest.GroupTop1(t.scores, t.labels, t.groups))
	rec.AUC = defined(forest.GroupAUC(t.scores, t.labels, t.groups))
	rec.ValueAUC = defined(forest.AUC(t.valueScores, t.valueLabels, nil))
	rec.ScoreAUC = defined(scoreAUC(t))
	rec.PolicyModel = l.modelFile(g, store.RolePolicy)
	rec.ValueModel = l.modelFile(g, store.RoleValue)
	if _, err := pm.SaveFile(rec.PolicyModel); err != nil {
		return models{}, err
	}
	if _, err := vm.SaveFile(rec.ValueModel); err != nil {
		return models{}, err
	}
	return models{gen: g, policy: pm, value: vm, policyFile: rec.PolicyModel, valueFile: rec.ValueModel}, nil
}

// windows are the first generations of generation g's value and policy
// windows: the last Window generations, the value's reaching back (with
// TeacherWindow) over every generation played since cur was adopted,
// up to TeacherWindow of them.
func (c Config) windows(g, cur int) (value, policy int) {
	policy = max(1, g-c.Window+1)
	value = policy
	if c.TeacherWindow > 0 {
		value = max(1, min(policy, max(cur+1, g-c.TeacherWindow+1)))
	}
	return value, policy
}

// fitValue fits generation g's value model on the training rows of s
// (their weights from the teacher's scores when cfg.ValueTarget > 0,
// recording the fitted score scale in rec): a forest, or for value
// feature set 3 a network, whose rows take the blended target itself.
func fitValue(ctx context.Context, s *sets, cfg Config, g int, rec *Record) (*policy.ValueModel, error) {
	seed := int64(splitmix.Derive(cfg.Seed, 0xf18, uint64(g)) >> 1)
	var scales []float64
	if cfg.ValueTarget > 0 {
		scales, rec.ScoreScale = scoreScales(s, cfg.ScaleByGen, g)
	} else {
		scales = make([]float64, len(s.valueWon))
	}
	if cfg.ValueSet == policy.ValueFeatureSet3 {
		for i, t := range valueTargets(s, cfg.ValueTarget, cfg.ValueTD, scales) {
			s.valueNet.SetWeight(i, t, 1)
		}
		ncfg := cfg.Net
		ncfg.Seed = seed
		return policy.FitValueNet(ctx, s.valueNet, cfg.Rule, ncfg)
	}
	vcfg := cfg.Value
	vcfg.Seed = seed
	var weights []float64
	if cfg.ValueTarget > 0 {
		weights = valueWeights(s, cfg.ValueTarget, cfg.ValueTD, scales)
	}
	return policy.FitValue(ctx, cfg.ValueSet, s.valueX, s.valueY, weights, cfg.Rule, vcfg)
}

// FitValue fits the value model that generation to of a loop of cfg
// (its seed, window and value settings) would fit on db's teacher games
// of generations from..to, without the policy, and measures it on the
// held-out games: rec has the value figures (ValueRows, HeldOut as the
// held-out value positions, ValueAUC, ScoreAUC, ScoreScale). It is how
// "train value" compares value targets and features on the same games.
//
// With rescore, the training positions' scores are rescore's searches of
// them instead of the teacher's (the held-out positions keep the
// teacher's, so ScoreAUC stays the teacher's).
func FitValue(ctx context.Context, db store.Store, cfg Config, from, to int, rescore *Rescore) (*policy.ValueModel, Record, error) {
	rec := Record{Gen: to, Config: cfg, Rule: cfg.Rule.String()}
	if err := cfg.Validate(); err != nil {
		return nil, rec, err
	}
	b := newBuilder(cfg)
	b.valueOnly, b.rescore = true, rescore
	s, err := b.read(ctx, db, from, to)
	if err != nil {
		return nil, rec, err
	}
	rec.ValueRows = s.valueRows()
	if rec.ValueRows == 0 {
		return nil, rec, errors.New("loop: the games gave no value rows")
	}
	vm, err := fitValue(ctx, s, cfg, to, &rec)
	if err != nil {
		return nil, rec, err
	}
	t, err := buildValue(ctx, db, cfg, from, to, &measure{value: policy.NewValuer(vm)})
	if err != nil {
		return nil, rec, err
	}
	rec.HeldOut = len(t.valueLabels)
	rec.ValueAUC = defined(forest.AUC(t.valueScores, t.valueLabels, nil))
	rec.ScoreAUC = defined(scoreAUC(t))
	return vm, rec, nil
}

// defined maps an undefined figure (NaN) to -1, which JSON can hold.
func defined(x float64) float64 {
	if math.IsNaN(x) {
		return -1
	}
	return x
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

// publishStart writes generation 0's policy (the start model, see
// StartFile) to its file in Dir, for the workers, and stores it if the
// store keeps models: the current policy before any generation is
// adopted. Generation 0 has no value model.
func (l *Loop) publishStart(ctx context.Context) error {
	b := l.StartFile
	if b == nil {
		var buf bytes.Buffer
		if err := l.start.Save(&buf); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	if _, err := l.writeModel(0, store.RolePolicy, b); err != nil {
		return err
	}
	ms, ok := l.db.(store.ModelStore)
	if !ok {
		return nil
	}
	return ms.PutModel(ctx, 0, store.RolePolicy, b)
}
