package agent

import (
	"context"
	"errors"
	"math/rand/v2"

	"ocvist/gomoku"
)

// Agent is a player. A match or a protocol front end calls NewGame before
// each game and Move once per turn; calls are never concurrent.
type Agent interface {
	// Name identifies the agent in results and saved games.
	Name() string
	// NewGame resets the agent for a game under rule.
	NewGame(rule gomoku.Rule) error
	// Move returns a move for b.ToMove() in the position b, which holds the
	// whole game so far (b.History()). clock is the game's time control at
	// this move as the match or the manager states it (the raw limits: an
	// agent that thinks decides how much of them to use); ctx's deadline,
	// if any, is the clock's limit, the referee's. The agent must not keep
	// or modify b after returning. It should return promptly once ctx is
	// done (its best move so far, or ctx.Err()).
	Move(ctx context.Context, b *gomoku.Board, clock gomoku.Clock) (gomoku.Point, error)
	// Close releases the agent's resources (an external process, a model).
	Close() error
}

// Noticer is implemented by agents that may have something to tell the
// user about a game NewGame accepted (Search's AnyRule): Notice returns it,
// or "".
type Noticer interface {
	Notice() string
}

// Prover is implemented by agents that prove wins (Search): ProvedWin
// reports whether the agent's last move was played on a win it had proved
// (announced) — a win against every defence, which a match then expects it
// to convert.
type Prover interface {
	ProvedWin() bool
}

// Scored is one move ranked by an agent: Score is agent-specific (higher is
// better) and Level names the reason behind it (for example the pattern
// filter level), empty when there is none.
type Scored struct {
	Point gomoku.Point
	Score float64
	Level string
}

// Ranker is implemented by agents that can rank the moves of a position,
// best first. Rank must not keep or modify b.
type Ranker interface {
	Rank(b *gomoku.Board) []Scored
}

// ErrNoMove reports a position without any legal move (a full board).
var ErrNoMove = errors.New("no legal move")

// Random plays uniformly among the board's candidates: the empty cells
// within the board's radius of a stone, and the centre on an empty board.
// Its moves depend only on the seed and the sequence of positions it is
// asked about, so two Randoms with the same seed asked the same positions
// play the same moves.
type Random struct {
	rng  *rand.Rand
	buf  []gomoku.Point
	name string
}

// NewRandom returns a Random agent drawing from a PCG source seeded by seed.
func NewRandom(seed uint64) *Random {
	return &Random{rng: rand.New(rand.NewPCG(seed, 0x0c715700c715700c)), name: "random"}
}

// Name is "random".
func (r *Random) Name() string { return r.name }

// NewGame does nothing: the random stream continues across games.
func (r *Random) NewGame(gomoku.Rule) error { return nil }

// Move draws one candidate uniformly. It consumes exactly one random number
// per call on a non-empty board.
func (r *Random) Move(_ context.Context, b *gomoku.Board, _ gomoku.Clock) (gomoku.Point, error) {
	if b.Stones() == 0 {
		return gomoku.Center, nil
	}
	r.buf = b.Candidates(r.buf[:0])
	if len(r.buf) == 0 {
		return gomoku.NoPoint, ErrNoMove
	}
	return r.buf[r.rng.IntN(len(r.buf))], nil
}

// Close does nothing.
func (r *Random) Close() error { return nil }
