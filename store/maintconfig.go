package store

import (
	"errors"
	"ocvist/internal/field"
)

// PruneConfig sets Prune's thresholds.
type PruneConfig struct {
	// MinGames: a position seen in at least this many games is promoted
	// into the moves table for good (≥ 1). Merge applies it as positions
	// arrive; Prune records it for the merges that follow.
	MinGames int64 `json:"min_games"`
	// Age: a young run merged at least this many games ago (in the
	// database's game count) expires: its positions that are still below
	// MinGames are dropped (≥ 0; 0 drops them at every prune).
	Age int64 `json:"age"`
	// Batch: expire only once this many runs are due (0 or 1: as soon as
	// one is), so that a promoted position's rows of several runs reach
	// the moves table in one upsert. A long job's coordinator batches; a
	// final prune does not.
	Batch int `json:"batch"`
	// Progress, if set, is told of a long prune's steps (the PostgreSQL
	// store's batches), on the calling goroutine.
	Progress func(PruneProgress) `json:"-"`
	// SkipCounts: the PostgreSQL store need not count the promoted and
	// young positions after a prune (Mature and Young are -1 then), which
	// reads moves and young whole. The SQLite store counts anyway (its
	// index has them).
	SkipCounts bool `json:"-"`
}

// PruneProgress is how far a prune has got: its batch (1-based; 0: the
// due positions are being counted first) of Batches, the young rows
// expired so far of TotalRows due; Counting: the batches are done and the
// positions are being counted.
type PruneProgress struct {
	Batch, Batches  int
	Rows, TotalRows int64
	Counting        bool
}

func (c PruneConfig) Report(p PruneProgress) {
	if c.Progress != nil {
		c.Progress(p)
	}
}

// DefaultPrune returns the default thresholds.
func DefaultPrune() PruneConfig {
	return PruneConfig{MinGames: DefaultPruneMinGames, Age: DefaultPruneAge}
}

// Validate reports whether c is usable: its fields out of range, as
// field errors (which are ErrInvalidConfig).
func (c PruneConfig) Validate() error {
	return errors.Join(
		field.Check(c.MinGames >= 1, "MinGames", c.MinGames, "at least 1"),
		field.Check(c.Age >= 0, "Age", c.Age, "at least 0"),
		field.Check(c.Batch >= 0, "Batch", c.Batch, "at least 0"))
}

// PruneResult reports what Prune did.
type PruneResult struct {
	Runs        int   // young runs that expired
	Positions   int64 // positions dropped (their rows in expired runs)
	Moves       int64 // move rows dropped
	Blacklisted int64 // blacklisted moves of dropped positions, kept
	Updated     int64 // rows of promoted positions moved from expired runs into the moves table
	YoungRuns   int   // young runs left
	Young       int64 // positions left young (below MinGames)
	Mature      int64 // positions in the moves table
}

// add adds the counts of what a batch of a prune expired.
func (r *PruneResult) Add(b PruneResult) {
	r.Runs += b.Runs
	r.Positions += b.Positions
	r.Moves += b.Moves
	r.Blacklisted += b.Blacklisted
	r.Updated += b.Updated
}

// ConcludeConfig sets when Conclude blacklists a move. The defaults are in
// DefaultConclude, the one place they are defined.
type ConcludeConfig struct {
	// MinGames: the move, and every sibling compared with it, has at least
	// this many games (≥ 1).
	MinGames int64 `json:"min_games"`
	// Margin: the move's mean weight is below the best sibling's mean by
	// more than this (≥ 0; means lie in [−1, 1]).
	Margin float64 `json:"margin"`
	// MaxMean: the move's mean is also below this; 1 or more disables the
	// condition.
	MaxMean float64 `json:"max_mean"`
}

// DefaultConclude returns Conclude's default thresholds: a move with at least
// 20 games whose mean weight is more than 1.0 below the best sibling's (with
// 20 games too) and below −0.5.
func DefaultConclude() ConcludeConfig {
	return ConcludeConfig{MinGames: 20, Margin: 1.0, MaxMean: -0.5}
}

// Validate reports whether c is usable: its fields out of range, as
// field errors (which are ErrInvalidConfig).
func (c ConcludeConfig) Validate() error {
	return errors.Join(
		field.Check(c.MinGames >= 1, "MinGames", c.MinGames, "at least 1"),
		field.Check(c.Margin >= 0, "Margin", c.Margin, "at least 0"))
}

// Prune defaults: a position is promoted into the moves table once seen in
// DefaultPruneMinGames games; one that stays below that for
// DefaultPruneAge later games is dropped.
const (
	DefaultPruneMinGames = 2
	DefaultPruneAge      = 50_000
)
