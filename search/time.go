package search

import (
	"time"

	"ocvist/gomoku"
)

// The time manager: how long a move thinks, from the game's clock as the
// manager states it (Limits.Clock: the turn limit, the match clock's time
// left, an increment). It is the only place that turns a clock into a
// budget; the protocol adaptors pass the clock through. Its numbers are
// Config's Time… and Match… fields.
//
// Two times a move:
//
//   - maximum, never passed (the search is aborted there): the turn limit
//     less TimeReserve (what the move costs outside the search: reading
//     the command, setting up, answering, the manager's own measure) and
//     TimeMargin of the turn (the last poll, the garbage collector, a
//     loaded machine); with a match clock also at most 1/MatchMaxShare of
//     the time left, less TimeReserve. So the match clock is never run
//     out: each move takes at most a share of what is left.
//   - optimum, after which no new iteration starts: with only a turn limit
//     (or a match clock with time to spare for a turn limit's every move),
//     TimeOptimum of the maximum; under a match clock that binds, the time
//     left spread over the moves expected to remain (our half of the
//     MatchPlies a game is expected to last, at least MatchMovesMin;
//     their increments counted, TimeReserve each kept back), and no more
//     than TimeOptimum of the maximum.
//
// An iteration the maximum cuts short is not wasted: a root move it found
// better than the last iteration's best is played (Config.PartialRoot).
//
// After each finished iteration the search stops once the time since
// Clock.Start passes optimum × instability × fall (at most the maximum):
// instability is 1 + TimeUnstable × the changes of the best move, each
// halved at every later iteration (a move that keeps changing needs a
// deeper look); fall is 1 + the score's drop from the previous iteration
// over TimeFallScale, at most TimeFallMax (a move whose score falls is
// in trouble). A forced move takes little: a rule or a threat search
// decides it before any iteration, a root with one move stops after
// OneMoveDepth iterations, a proved win at once.

// timeBudget is the optimum and the maximum time of a move on a board of
// stones stones under clk; ok is false when clk has no limit.
func (c *Config) timeBudget(clk gomoku.Clock, stones int) (optimum, maximum time.Duration, ok bool) {
	if !clk.Limited() {
		return 0, 0, false
	}
	maximum = time.Duration(1<<63 - 1)
	if clk.Turn > 0 {
		maximum = clk.Turn - c.TimeReserve - time.Duration(c.TimeMargin*float64(clk.Turn))
	}
	optimum = time.Duration(c.TimeOptimum * float64(maximum))
	if clk.Match > 0 {
		maximum = min(maximum, clk.Left/time.Duration(c.MatchMaxShare)-c.TimeReserve)
		n := time.Duration(max(c.MatchMovesMin, (c.MatchPlies-stones+1)/2)) // a count, not a duration
		spread := (clk.Left + (n-1)*clk.Increment - n*c.TimeReserve) / n
		optimum = min(time.Duration(c.TimeOptimum*float64(maximum)), spread)
	}
	maximum = max(maximum, 0)
	optimum = min(max(optimum, 0), maximum)
	return optimum, maximum, true
}

// clock is a running search's time: when it began, its optimum and its
// hard end (the sooner of the maximum and Limits.Deadline).
type clock struct {
	on        bool // a time limit applies (else only nodes, depth and ctx)
	start     time.Time
	optimum   time.Duration
	maximum   time.Duration
	deadline  time.Time
	changes   float64 // the best move's changes, halved every iteration
	prevMove  gomoku.Point
	prevScore int
}

// startClock sets the search's clock from lim at now.
func (s *Searcher) startClock(lim Limits, now time.Time) {
	c := &s.clk
	*c = clock{start: now, prevMove: gomoku.NoPoint}
	if !lim.Clock.Start.IsZero() {
		c.start = lim.Clock.Start
	}
	var ok bool
	if c.optimum, c.maximum, ok = s.cfg.timeBudget(lim.Clock, s.root); ok {
		c.on, c.deadline = true, c.start.Add(c.maximum)
	}
	if !lim.Deadline.IsZero() && (!c.on || lim.Deadline.Before(c.deadline)) {
		if !c.on {
			c.optimum = lim.Deadline.Sub(c.start) // a deadline alone: search until it
		}
		c.on, c.deadline = true, lim.Deadline
		c.maximum = c.deadline.Sub(c.start)
	}
}

// enough reports, after an iteration that found best (with score), whether
// the time manager says to play now rather than start the next one.
func (s *Searcher) enough(best gomoku.Point, score int) bool {
	c := &s.clk
	if !c.on {
		return false
	}
	c.changes /= 2
	fall := 1.0
	if c.prevMove != gomoku.NoPoint {
		if best != c.prevMove {
			c.changes++
		}
		fall = min(1+float64(max(c.prevScore-score, 0))/float64(s.cfg.TimeFallScale), s.cfg.TimeFallMax)
	}
	c.prevMove, c.prevScore = best, score
	soft := time.Duration(float64(c.optimum) * (1 + s.cfg.TimeUnstable*c.changes) * fall)
	return time.Since(c.start) >= min(soft, c.maximum)
}
