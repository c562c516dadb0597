package forest

import (
	"fmt"
	"math"
)

// Config controls Fit. The zero value is not valid; start from DefaultConfig
// and change what you need. Every field except Workers is saved with the
// model, so a model file records how it was made.
type Config struct {
	// Trees is the number of trees in the forest (1..65535).
	Trees int
	// MaxDepth is the deepest level a leaf may sit at; the root is depth 0
	// (1..40).
	MaxDepth int
	// MinLeaf is the least number of bootstrap samples (counted with their
	// multiplicity) each child of a split must hold (>= 1).
	MinLeaf int
	// Bins is the number of histogram bins per feature (2..256), so a
	// quantised value fits in a uint8.
	Bins int
	// FeatureFraction is the fraction of the features tried at each split
	// (0 < f <= 1). Zero means sqrt(NumFeatures) features.
	FeatureFraction float64
	// SampleFraction is the size of each tree's bootstrap sample (drawn
	// with replacement) as a fraction of the rows with non-zero weight
	// (0 < f <= 1).
	SampleFraction float64
	// Seed determines the whole fit: tree t draws from its own
	// math/rand/v2 source derived from Seed and t.
	Seed int64
	// Workers bounds the goroutines Fit uses; 0 means GOMAXPROCS. It does
	// not change the result and is not saved.
	Workers int
	// FeatureNames optionally names the columns of X; when set it must have
	// one entry per column. The names are saved in the model file.
	FeatureNames []string
	// Meta optionally records, as text keys and values, whatever the
	// model's user needs to compute its rows the same way later (which
	// features, with which settings). The forest does not read it; it is
	// saved in the model file and returned by Model.Meta. Keys must not be
	// empty.
	Meta map[string]string
}

// DefaultConfig returns the defaults: 64 trees of depth at most 12, leaves of
// at least 5 samples, 64 bins, sqrt(features) tried per split, full-size
// bootstrap samples, seed 1, all CPUs.
func DefaultConfig() Config {
	return Config{
		Trees:          64,
		MaxDepth:       12,
		MinLeaf:        5,
		Bins:           64,
		SampleFraction: 1,
		Seed:           1,
	}
}

// Limits checked by Validate.
const (
	maxTrees   = 1<<16 - 1
	maxDepth   = 40
	maxBins    = 256
	maxClasses = 256
)

// Validate reports the first field that is out of range.
func (c Config) Validate() error {
	switch {
	case c.Trees < 1 || c.Trees > maxTrees:
		return fmt.Errorf("forest: config: Trees %d out of range 1..%d", c.Trees, maxTrees)
	case c.MaxDepth < 1 || c.MaxDepth > maxDepth:
		return fmt.Errorf("forest: config: MaxDepth %d out of range 1..%d", c.MaxDepth, maxDepth)
	case c.MinLeaf < 1:
		return fmt.Errorf("forest: config: MinLeaf %d must be at least 1", c.MinLeaf)
	case c.Bins < 2 || c.Bins > maxBins:
		return fmt.Errorf("forest: config: Bins %d out of range 2..%d", c.Bins, maxBins)
	case !(c.FeatureFraction >= 0 && c.FeatureFraction <= 1):
		return fmt.Errorf("forest: config: FeatureFraction %v out of range [0, 1]", c.FeatureFraction)
	case !(c.SampleFraction > 0 && c.SampleFraction <= 1):
		return fmt.Errorf("forest: config: SampleFraction %v out of range (0, 1]", c.SampleFraction)
	case c.Workers < 0:
		return fmt.Errorf("forest: config: Workers %d must not be negative", c.Workers)
	}
	if _, ok := c.Meta[""]; ok {
		return fmt.Errorf("forest: config: a Meta key is empty")
	}
	return nil
}

// featuresPerSplit is how many features a split tries out of p.
func (c Config) featuresPerSplit(p int) int {
	var m int
	if c.FeatureFraction == 0 {
		m = int(math.Round(math.Sqrt(float64(p))))
	} else {
		m = int(math.Round(c.FeatureFraction * float64(p)))
	}
	return min(max(m, 1), p)
}
