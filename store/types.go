package store

import (
	"cmp"
	"fmt"
	"slices"

	"ocvist/canon"
	"ocvist/gomoku"
)

// Move is canon.Move, the store's word for a move in a position's canonical
// frame.
//
// Deprecated: use canon.Move; this alias only keeps packages that have not
// switched yet compiling.
type Move = canon.Move

// KeyMove is a move in a position identified by its canonical key.
type KeyMove struct {
	Key  string
	Move canon.Move
}

// Record is one move of a finished game. Weight is +1 for a move of the
// winner, −1 for a move of the loser and 0 in a draw.
type Record struct {
	Key    string
	Move   canon.Move
	Weight int8
}

// Game is a finished game. Records holds its moves (each position occurs at
// most once in a game); Blacklist the moves to blacklist (usually the loser's
// last move, or nothing); Result is +1 when black won, −1 when white won and 0
// for a draw.
type Game struct {
	Records   []Record
	Blacklist []KeyMove
	Result    int8
}

// DefaultBoardSize is the board size of Ocvist's games.
const DefaultBoardSize = gomoku.Size

// Config identifies what a database's statistics belong to. Statistics of
// different configurations never mix: Open and Merge refuse a mismatch.
type Config struct {
	Rule       gomoku.Rule // gomoku.Freestyle, gomoku.Standard or gomoku.Renju
	KeyVersion int         // version of package canon's key format, ≥ 1
	BoardSize  int         // board side, 5..32 (normally DefaultBoardSize)
}

// DefaultConfig is the configuration of Ocvist's games under rule.
func DefaultConfig(rule gomoku.Rule) Config {
	return Config{Rule: rule, KeyVersion: canon.Version, BoardSize: DefaultBoardSize}
}

// Validate reports whether c is usable (wrapping ErrInvalidConfig if not).
func (c Config) Validate() error {
	switch {
	case !c.Rule.Valid():
		return fmt.Errorf("store: config: rule %d (want freestyle, standard or renju): %w", c.Rule, ErrInvalidConfig)
	case c.KeyVersion < 1:
		return fmt.Errorf("store: config: key version %d (want ≥ 1): %w", c.KeyVersion, ErrInvalidConfig)
	case c.BoardSize < 5 || c.BoardSize > 32:
		return fmt.Errorf("store: config: board size %d (want 5..32): %w", c.BoardSize, ErrInvalidConfig)
	}
	return nil
}

// MoveStat is the statistics row of one move in one position.
type MoveStat struct {
	Key           string
	Move          canon.Move
	WSum          int64 // sum of the move's weights (+1 win, −1 loss, 0 draw)
	Games         int64 // games in which the move was played in this position
	Blacklisted   bool
	PositionGames int64 // games in which the position occurred
}

// Mean is the move's mean weight WSum/Games in [−1, 1], or 0 without games.
func (m MoveStat) Mean() float64 {
	if m.Games == 0 {
		return 0
	}
	return float64(m.WSum) / float64(m.Games)
}

// BlacklistEntry is one blacklisted move of the position whose key has the
// canon.ID ID.
type BlacklistEntry struct {
	ID   int64
	Move canon.Move
}

func cmpEntry(a, b BlacklistEntry) int {
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return CompareMoves(a.Move, b.Move)
}

func CompareMoves(a, b canon.Move) int {
	if c := cmp.Compare(a.X, b.X); c != 0 {
		return c
	}
	return cmp.Compare(a.Y, b.Y)
}

// Blacklist is a set of blacklisted moves, loaded with DB.Blacklist: 16 bytes
// a move, sorted by position id. It identifies positions by canon.ID, so
// a blacklisted move of one position also applies to a different key with
// the same 64-bit id (for a million positions, a chance of about 10⁻⁷ that
// any such pair exists). It is read-only after loading and then safe for
// concurrent use.
type Blacklist struct {
	entries []BlacklistEntry
}

// NewBlacklist returns a blacklist of the given moves.
func NewBlacklist(moves ...KeyMove) Blacklist {
	es := make([]BlacklistEntry, len(moves))
	for i, km := range moves {
		es[i] = BlacklistEntry{canon.ID(km.Key), km.Move}
	}
	return BlacklistOf(es)
}

// blacklistOf sorts es and removes duplicates; it takes ownership of es.
func BlacklistOf(es []BlacklistEntry) Blacklist {
	slices.SortFunc(es, cmpEntry)
	return Blacklist{slices.Compact(es)}
}

// Entries returns every blacklisted move, sorted by position id and
// move; the slice aliases the blacklist and must not be modified.
func (b Blacklist) Entries() []BlacklistEntry { return b.entries }

// Len is the number of blacklisted moves.
func (b Blacklist) Len() int { return len(b.entries) }

// Contains reports whether move m is blacklisted in the position with key.
func (b Blacklist) Contains(key string, m canon.Move) bool {
	_, ok := slices.BinarySearchFunc(b.entries, BlacklistEntry{canon.ID(key), m}, cmpEntry)
	return ok
}

// Moves returns the blacklisted moves of the position whose key has id, in
// (X, Y) order; the slice aliases the blacklist and must not be modified.
func (b Blacklist) Moves(id int64) []BlacklistEntry {
	lo, _ := slices.BinarySearchFunc(b.entries, BlacklistEntry{ID: id, Move: canon.Move{X: -128, Y: -128}}, cmpEntry)
	hi := lo
	for hi < len(b.entries) && b.entries[hi].ID == id {
		hi++
	}
	return b.entries[lo:hi]
}

// Stats summarises a database (see DB.Stats).
type Stats struct {
	Games        int64 `json:"games"`
	BlackWins    int64 `json:"black_wins"`
	WhiteWins    int64 `json:"white_wins"`
	Draws        int64 `json:"draws"`
	Positions    int64 `json:"positions"`    // young and promoted
	Moves        int64 `json:"moves"`        // (position, move) rows, young and promoted
	Blacklisted  int64 `json:"blacklisted"`  // blacklisted moves, those of pruned positions included
	Young        int64 `json:"young"`        // positions below the prune threshold (not promoted)
	YoungRuns    int64 `json:"young_runs"`   // run files holding them
	PrunedBlack  int64 `json:"pruned_black"` // blacklisted moves kept from pruned positions
	MergedShards int64 `json:"merged_shards"`
	Generations  int64 `json:"generations"`
	TeacherGames int64 `json:"teacher_games"` // the learning loop's games (not in Games)
	// TeacherShards are the teacher shards merged, with the games they
	// held: TeacherShardGames exceeds TeacherGames only by games merged
	// twice from two shards (duplicates, kept once) and falls short of it
	// by games stored before teacher shards (schema 6).
	TeacherShards     int64 `json:"teacher_shards"`
	TeacherShardGames int64 `json:"teacher_shard_games"`
	// Rule is the rule's name ("freestyle", "standard" or "renju").
	Rule          string `json:"rule"`
	KeyVersion    int    `json:"key_version"`
	SchemaVersion int    `json:"schema_version"`
	BoardSize     int    `json:"board_size"`
	FileBytes     int64  `json:"file_bytes"` // database file, its WAL and its young runs
}
