// Package policy is Ocvist's learned move policy: the move features, the
// training sets built from stored statistics, the model file that records
// how its features are computed, the policy that scores the pattern
// filter's candidates, and the evaluation of a fit. The learner itself is
// package forest, which knows nothing of the board.
//
// # Features
//
// FeatureNames documents every feature of a move and Features computes
// them; FeatureSet versions the list. Features differ between the moves of
// one position: the shapes a move makes and blocks, the threats it makes
// and takes, its neighbourhood, the filter level behind the candidates.
// Set 2 (HistoryFeatureNames) adds the distances to the last two moves;
// set 3 (ThreatFeatureNames, "train loop -policy-set 3"'s, the shipped
// pure policy's) each side's threat cells
// after the move and the VCFs around it, which FeaturesOf reads from the
// position's Threats (Threats.Read, searched once for all its moves).
//
// # Training
//
// BuildDatasets turns stored (position, move) statistics (Stat rows) into
// weighted samples of "the mover won", placing each canonical position on
// the board (Placement) and holding out a seeded share of the positions;
// Fit fits a forest on them and Evaluate measures it (AUC, and the best
// single feature as a baseline).
//
// # Models
//
// A Model is a forest.Model with its Spec: the feature set, the rule and
// the candidate radius the features were computed with, saved in the
// model file's metadata. Load and FromForest refuse, wrapping ErrModel, a
// model of other features; a file without a Spec (data/model.ocf, made
// before Specs were recorded) is feature set 1, freestyle, radius 2.
// SaveFile writes a model atomically.
//
// # Playing
//
// A Policy scores the filter's candidates with the model and, where a move
// has at least Config.MinStatGames stored games (Stats), blends the
// model's estimate with the move's results; it samples with a temperature
// (self-play) or takes the best (Best). Rank computes everything from a
// board the model's way (its radius) and refuses a board of another rule.
//
// # Contract
//
// The package is silent and synchronous: it never prints, exits or starts
// goroutines (Fit runs forest.Fit's bounded pool and waits for it). A
// Model and Stats are read-only and safe for concurrent use; a Policy
// holds scratch buffers, one per goroutine.
package policy
