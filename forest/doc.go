// Package forest is Ocvist's random-forest classifier: it fits a forest of
// histogram-split CART trees on rows of float64 features, predicts class
// probabilities in microseconds, and saves and loads a versioned model file.
//
// # Fitting
//
// Fit takes the rows as a gonum *mat.Dense, labels 0..K-1 and optional
// sample weights, and a Config (start from DefaultConfig). Each feature is
// quantised once into at most Config.Bins bins whose edges are quantiles of
// a deterministic sample of the column; each tree grows on its own
// bootstrap sample, choosing at every node the Gini-best split among a
// random subset of the features. Fit is deterministic: the same data and
// Config (Seed included) give a byte-identical saved model whatever
// Config.Workers is, because tree t draws only from its own math/rand/v2
// source derived from the seed and t. No global random source is used.
//
// # Predicting
//
// A split's threshold is stored as the raw feature value that bounds its
// bin (x < threshold goes left; NaN goes right), so a model predicts from
// raw feature values without the quantiser. Predict returns the mean of the
// trees' leaf class distributions; PredictInto and PredictClass1 do the
// same without allocating.
//
// # Model files
//
// Save writes a little-endian binary file (layout in file.go): magic,
// format version, feature count and names, the caller's metadata
// (Config.Meta: how to compute the rows, which this package does not
// read), the Config with the seed, the trees as flat arrays, and a CRC-32.
// Load also reads version-1 files (no metadata), rejects other versions
// with ErrFormatVersion and a damaged or truncated file with ErrCorrupt,
// and never panics on bad input.
//
// # Contract
//
// The package is silent and synchronous: it never prints, exits, or leaves
// goroutines running. Fit runs a bounded pool of Config.Workers goroutines
// and waits for them before returning; it honours context cancellation. A
// Model is read-only after Fit or Load and safe for concurrent use.
// Evaluation helpers (AUC, Accuracy, LogLoss) take their statistics from
// gonum.
//
// The learner knows nothing about the board: it depends on gonum (and
// internal/splitmix) only. The gomoku move features, training sets and the
// move policy are package policy.
package forest
