package policy

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"ocvist/forest"
	"ocvist/gomoku"
)

// Spec is how a model's features are computed: the feature set, the rule
// (shapes differ between freestyle and standard) and the filter's
// candidate radius (the "candidates" feature counts them). A model file
// records it, and a model is used only where its features come out the
// same way.
type Spec struct {
	FeatureSet int
	Rule       gomoku.Rule
	Radius     int // 1..gomoku.MaxRadius
}

// legacySpec is what model files without a recorded Spec were made with:
// the shipped data/model.ocf (feature set 1, freestyle, radius 2).
var legacySpec = Spec{FeatureSet: 1, Rule: gomoku.Freestyle, Radius: 2}

// The model file's metadata keys (forest.Config.Meta) holding the Spec.
const (
	metaFeatureSet = "feature_set"
	metaRule       = "rule"
	metaRadius     = "radius"
)

// Validate checks the ranges.
func (s Spec) Validate() error {
	if err := s.options().Validate(); err != nil || s.Radius < 1 {
		return fmt.Errorf("policy: spec %v: %v", s, cmp.Or(err, errors.New("radius 0")))
	}
	if s.FeatureSet < 1 {
		return fmt.Errorf("policy: spec %v: feature set below 1", s)
	}
	return nil
}

func (s Spec) String() string {
	return fmt.Sprintf("feature set %d, %s, radius %d", s.FeatureSet, s.Rule, s.Radius)
}

func (s Spec) meta() map[string]string {
	return map[string]string{
		metaFeatureSet: strconv.Itoa(s.FeatureSet),
		metaRule:       s.Rule.String(),
		metaRadius:     strconv.Itoa(s.Radius),
	}
}

// options are the board options the features are computed on.
func (s Spec) options() gomoku.Options { return gomoku.Options{Rule: s.Rule, Radius: s.Radius} }

// specOf reads a Spec from model metadata; no metadata is legacySpec.
func specOf(meta map[string]string) (Spec, error) {
	if len(meta) == 0 {
		return legacySpec, nil
	}
	fs, err1 := strconv.Atoi(meta[metaFeatureSet])
	radius, err2 := strconv.Atoi(meta[metaRadius])
	rule, err3 := gomoku.ParseRule(meta[metaRule])
	if err := errors.Join(err1, err2, err3); err != nil {
		return Spec{}, fmt.Errorf("%w: its metadata %v does not say how its features are computed", ErrModel, meta)
	}
	s := Spec{FeatureSet: fs, Rule: rule, Radius: radius}
	if err := s.Validate(); err != nil {
		return Spec{}, fmt.Errorf("%w: %v", ErrModel, err)
	}
	return s, nil
}

// Model is a forest fitted on the move features, with the Spec they were
// computed under. It is read-only and safe for concurrent use.
type Model struct {
	Forest *forest.Model
	Spec   Spec
}

// ErrModel reports a model this build cannot use as a move policy: other
// features (set, number or names), or not a two-class model.
var ErrModel = errors.New("policy: not a model of this build's move features")

// FromForest makes a forest model a policy model: it reads the Spec from
// the model's metadata (a model without any is one of legacySpec, like the
// shipped data/model.ocf) and refuses, wrapping ErrModel, a model whose
// features this build does not compute exactly: another feature set, other
// columns or names, or other than two classes.
func FromForest(f *forest.Model) (*Model, error) {
	spec, err := specOf(f.Meta())
	if err != nil {
		return nil, err
	}
	want := names(spec.FeatureSet)
	switch got := f.FeatureNames(); {
	case want == nil:
		return nil, fmt.Errorf("%w: it computes feature set %d; this build computes sets %d to %d", ErrModel, spec.FeatureSet, FeatureSet, ThreatFeatureSet)
	case f.NumFeatures() != len(want) || f.Classes() != 2:
		return nil, fmt.Errorf("%w: it has %d features and %d classes, want %d and 2", ErrModel, f.NumFeatures(), f.Classes(), len(want))
	case got != nil && !slices.Equal(got, want):
		return nil, fmt.Errorf("%w: its features are named otherwise (%q…)", ErrModel, got[0])
	}
	return &Model{Forest: f, Spec: spec}, nil
}

// Fit fits a forest on the training set d (its rows, labels and weights)
// with cfg, recording the feature names and d's Spec in the model.
func Fit(ctx context.Context, d *Dataset, cfg forest.Config) (*Model, error) {
	if d.Len() == 0 {
		return nil, errors.New("policy: fit: no samples")
	}
	cfg.FeatureNames, cfg.Meta = names(d.Spec.FeatureSet), d.Spec.meta()
	f, err := forest.Fit(ctx, d.X, d.Labels, d.Weights, cfg)
	if err != nil {
		return nil, err
	}
	return &Model{Forest: f, Spec: d.Spec}, nil
}

// Load reads a model file (forest.Load) and makes it a policy model
// (FromForest).
func Load(r io.Reader) (*Model, error) {
	f, err := forest.Load(r)
	if err != nil {
		return nil, err
	}
	return FromForest(f)
}

// LoadFile reads the model file path (see Load); errors name the file.
func LoadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	defer f.Close()
	m, err := Load(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	return m, nil
}

// Save writes the model file (forest's format, with the Spec in its
// metadata).
func (m *Model) Save(w io.Writer) error { return m.Forest.Save(w) }

// SaveFile writes the model to path atomically: to a temporary file in the
// same directory (created if needed), synced, then renamed, so a crash
// never leaves a half-written model under the real name. It returns the
// file's size.
func (m *Model) SaveFile(path string) (int64, error) { return saveFile(path, m.Save) }

// saveFile writes the file save writes to path atomically (WriteFileAtomic)
// and returns its size.
func saveFile(path string, save func(io.Writer) error) (int64, error) {
	var buf bytes.Buffer
	if err := save(&buf); err != nil {
		return 0, err
	}
	if err := WriteFileAtomic(path, buf.Bytes()); err != nil {
		return 0, fmt.Errorf("save model %s: %w", path, err)
	}
	return int64(buf.Len()), nil
}

// WriteFileAtomic writes a model file's bytes to path the way SaveFile
// does: a temporary file in the same directory, synced, renamed.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".model-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Chmod(0o644), tmp.Sync(), tmp.Close())
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Check reports, with a clear error, whether the model's features can be
// computed in a game under rule: the rule must be the model's.
func (m *Model) Check(rule gomoku.Rule) error {
	if rule != m.Spec.Rule {
		return fmt.Errorf("policy: the model was fitted for %s, not %s", m.Spec.Rule, rule)
	}
	return nil
}
