package gomoku

import "time"

// Clock is a player's time control at one move, as a tournament manager
// states it (the Gomocup protocol's INFO timeout_turn, timeout_match and
// time_left): the raw limits, not a budget. The engine decides how much of
// them to use (package search's time manager); the manager and the
// protocol adaptors pass them through as they are. The zero Clock has no
// limit at all.
type Clock struct {
	// Start is when the move's time began: when the manager's command
	// came (the turn's time includes reading and answering it). Zero:
	// when the engine is asked.
	Start time.Time
	// Turn is the most this move may take; 0 means no turn limit.
	Turn time.Duration
	// Match is the time of the whole game for this player's moves; 0
	// means no match clock. A manager that states only the time left
	// (Gomocup's time_left without timeout_match) gives Left as Match.
	Match time.Duration
	// Left is what is left of Match at Start (it may be negative: the
	// clock ran out). Only meaningful when Match > 0.
	Left time.Duration
	// Increment is added to Left after each move (a Fischer clock); 0:
	// none (the Gomocup protocol has none).
	Increment time.Duration
}

// Limited reports whether the clock limits the move at all.
func (c Clock) Limited() bool { return c.Turn > 0 || c.Match > 0 }

// Limit is the most this move may take by the rules: the turn limit, and
// with a match clock at most the time left (not below 0); ok is false
// without any limit. An engine that uses all of it loses on time: it is
// the referee's bound, not a budget.
func (c Clock) Limit() (limit time.Duration, ok bool) {
	switch {
	case c.Match > 0 && c.Turn > 0:
		return max(min(c.Turn, c.Left), 0), true
	case c.Match > 0:
		return max(c.Left, 0), true
	case c.Turn > 0:
		return c.Turn, true
	}
	return 0, false
}
