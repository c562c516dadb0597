package gomocup

import (
	"time"

	"ocvist/gomoku"
)

// Timing of the engine's moves.
const (
	// DefaultTurn is the turn limit when the manager sends no timeout_turn.
	DefaultTurn = time.Second
	fastTurn    = 100 * time.Millisecond // for timeout_turn 0, "as fast as possible"
	unlimited   = 2147483647             // time_left's "no limit"
	maxMillis   = 1 << 40                // larger times (35 years) are taken as this
)

// clock is the time control of a game: the INFO limits and the time used.
// The server computes no budget from it: the engine gets it raw (raw) and
// decides (package search's time manager); the server only keeps the
// protocol's limit, by which it plays a fallback move for an engine that
// has not answered (fallbackAt).
type clock struct {
	turn     time.Duration // timeout_turn
	match    time.Duration // timeout_match, 0 = none
	matchSet bool          // timeout_match was sent
	timeLeft time.Duration // time_left
	haveLeft bool          // time_left was sent and is not "unlimited"
	used     time.Duration // time spent on moves this game
}

// millis converts an INFO value in milliseconds (at least −maxMillis),
// without overflow.
func millis(n int64) time.Duration { return time.Duration(min(n, maxMillis)) * time.Millisecond }

// raw is the move's clock as the manager stated it, the move's time
// counted from start: the turn limit (fastTurn for timeout_turn 0, "as
// fast as possible"); the match clock when the game's time is limited:
// time_left when sent (unless timeout_match 0 said the match time is not
// limited: then time_left means nothing), else timeout_match less the time
// used. A manager that sends time_left without timeout_match gives no
// match total: time_left stands for it.
func (c *clock) raw(start time.Time) gomoku.Clock {
	clk := gomoku.Clock{Start: start, Turn: c.turn}
	if clk.Turn == 0 {
		clk.Turn = fastTurn
	}
	left, ok := c.timeLeft, c.haveLeft && !(c.matchSet && c.match == 0)
	if !ok && c.match > 0 {
		left, ok = c.match-c.used, true
	}
	if ok {
		clk.Match, clk.Left = c.match, left
		if clk.Match <= 0 {
			clk.Match = max(left, time.Millisecond)
		}
	}
	return clk
}

// Margins of the fallback: the engine's context ends 2 × margin before the
// move's limit, the fallback move is sent margin before it.
func margin(limit time.Duration) time.Duration {
	return min(max(limit/40, 5*time.Millisecond), limit/4)
}

// deadlines are, for a move whose limit (gomoku.Clock.Limit) is limit,
// when the engine's context ends and when a move the engine has not given
// is replaced by the fallback: both before the limit, so that an answer is
// always in time. A thinking engine answers well before them (its own
// time manager keeps a reserve); they are the safety net.
func deadlines(limit time.Duration) (engine, fallback time.Duration) {
	m := margin(limit)
	return limit - 2*m, limit - m
}
