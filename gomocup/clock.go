package gomocup

import "time"

// Timing of the engine's moves.
const (
	// DefaultTurn is the turn limit when the manager sends no timeout_turn.
	DefaultTurn = time.Second
	fastTurn    = 100 * time.Millisecond // for timeout_turn 0, "as fast as possible"
	unlimited   = 2147483647             // time_left's "no limit"
	maxMillis   = 1 << 40                // larger times (35 years) are taken as this
)

// clock is the time control of a game: the INFO limits and the time used.
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

// limit is the time this move may take: the turn limit (fastTurn for
// timeout_turn 0), at most a 15th of the game time left: time_left when
// sent (unless timeout_match 0 said the match time is not limited: then
// time_left means nothing), else timeout_match less the time used.
func (c *clock) limit() time.Duration {
	limit := c.turn
	if limit == 0 {
		limit = fastTurn
	}
	left, ok := c.timeLeft, c.haveLeft && !(c.matchSet && c.match == 0)
	if !ok && c.match > 0 {
		left, ok = c.match-c.used, true
	}
	if ok {
		limit = min(limit, max(left, 0)/15)
	}
	return limit
}

// budget is the engine's time for a move whose limit is limit: less a
// safety margin of 20 ms and a tenth of it, at least a millisecond. It is
// the deadline of the engine's context.
func budget(limit time.Duration) time.Duration {
	return max(limit-20*time.Millisecond-limit/10, time.Millisecond)
}

// hard is when an engine that has not answered is given up for this move
// and the fallback move is sent: half way from the budget to the limit.
func hard(limit time.Duration) time.Duration {
	b := budget(limit)
	return b + max(limit-b, 0)/2
}
