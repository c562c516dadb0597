package search

import (
	"testing"
	"time"

	"ocvist/gomoku"
)

// TestTimeBudget: the time manager's optimum and maximum from the raw
// clock (time.go's formulas with DefaultConfig's numbers).
func TestTimeBudget(t *testing.T) {
	const ms = time.Millisecond
	c := DefaultConfig()
	share := func(f float64, d time.Duration) time.Duration { return time.Duration(f * float64(d)) }
	for _, tt := range []struct {
		name       string
		clk        gomoku.Clock
		stones     int
		opt, max   time.Duration
		noLimitsOK bool
	}{
		{"no clock", gomoku.Clock{}, 10, 0, 0, true},
		// 1000 − 30 − 8% = 890; 85% of it.
		{"turn 1 s", gomoku.Clock{Turn: time.Second}, 10, share(0.85, 890*ms), 890 * ms, false},
		{"turn 100 ms", gomoku.Clock{Turn: 100 * ms}, 10, share(0.85, 62*ms), 62 * ms, false},
		// 180 s / 7 − 30 ms; over max(15, (90 − 5 + 1)/2 = 43) moves, 30 ms each kept back.
		{"match 180 s", gomoku.Clock{Match: 180 * time.Second, Left: 180 * time.Second}, 5, (180*time.Second - 43*30*ms) / 43, 180*time.Second/7 - 30*ms, false},
		// late in the game: at least 15 moves.
		{"match, 1 s left", gomoku.Clock{Match: 180 * time.Second, Left: time.Second}, 80, (time.Second - 15*30*ms) / 15, time.Second/7 - 30*ms, false},
		{"match, out of time", gomoku.Clock{Match: 180 * time.Second, Left: -5 * ms}, 80, 0, 0, false},
		// the turn limit binds: the match's share is larger.
		{"turn and match", gomoku.Clock{Turn: time.Second, Match: 180 * time.Second, Left: 180 * time.Second}, 5, share(0.85, 890*ms), 890 * ms, false},
		// an increment of 1 s a move: (10 s + 14 s − 15 × 30 ms) / 15 is more than 85% of the maximum.
		{"increment", gomoku.Clock{Match: time.Minute, Left: 10 * time.Second, Increment: time.Second}, 80,
			share(0.85, 10*time.Second/7-30*ms), 10*time.Second/7 - 30*ms, false},
	} {
		opt, max, ok := c.timeBudget(tt.clk, tt.stones)
		if ok == tt.noLimitsOK || opt != tt.opt || max != tt.max {
			t.Errorf("%s: optimum %v maximum %v (limited %v), want %v %v", tt.name, opt, max, ok, tt.opt, tt.max)
		}
		if lim, ok := tt.clk.Limit(); ok && max > lim {
			t.Errorf("%s: maximum %v past the clock's limit %v", tt.name, max, lim)
		}
	}
}
