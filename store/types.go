package store

import "fmt"

// Move is a move in the canonical frame: an offset from the canonical box
// corner of its position's key. Offsets may be negative (about −14..28).
type Move struct {
	X, Y int8
}

// KeyMove is a move in a position identified by its canonical key.
type KeyMove struct {
	Key  string
	Move Move
}

// Record is one move of a finished game. Weight is +1 for a move of the
// winner, −1 for a move of the loser and 0 in a draw.
type Record struct {
	Key    string
	Move   Move
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

// Rules accepted in Config.Rule.
const (
	RuleFreestyle = "freestyle" // five or more in a row wins
	RuleStandard  = "standard"  // exactly five wins
)

// DefaultBoardSize is the board size of Ocvist's games.
const DefaultBoardSize = 15

// Config identifies what a database's statistics belong to. Statistics of
// different configurations never mix: Open and Merge refuse a mismatch.
type Config struct {
	Rule       string // RuleFreestyle or RuleStandard
	KeyVersion int    // version of package canon's key format, ≥ 1
	BoardSize  int    // board side, 5..32 (normally DefaultBoardSize)
}

// Validate reports whether c is usable (wrapping ErrInvalidConfig if not).
func (c Config) Validate() error {
	switch {
	case c.Rule != RuleFreestyle && c.Rule != RuleStandard:
		return fmt.Errorf("store: config: rule %q (want %q or %q): %w", c.Rule, RuleFreestyle, RuleStandard, ErrInvalidConfig)
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
	Move          Move
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

// Blacklist is a set of blacklisted moves, loaded with DB.Blacklist. It is
// read-only after loading and then safe for concurrent use.
type Blacklist map[KeyMove]struct{}

// Contains reports whether move m is blacklisted in the position with key.
func (b Blacklist) Contains(key string, m Move) bool {
	_, ok := b[KeyMove{Key: key, Move: m}]
	return ok
}

// Stats summarises a database (see DB.Stats).
type Stats struct {
	Games         int64  `json:"games"`
	BlackWins     int64  `json:"black_wins"`
	WhiteWins     int64  `json:"white_wins"`
	Draws         int64  `json:"draws"`
	Positions     int64  `json:"positions"`
	Moves         int64  `json:"moves"`
	Blacklisted   int64  `json:"blacklisted"`
	MergedShards  int64  `json:"merged_shards"`
	Generations   int64  `json:"generations"`
	Rule          string `json:"rule"`
	KeyVersion    int    `json:"key_version"`
	SchemaVersion int    `json:"schema_version"`
	BoardSize     int    `json:"board_size"`
	FileBytes     int64  `json:"file_bytes"` // database file plus its WAL
}
