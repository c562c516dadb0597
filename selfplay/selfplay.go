package selfplay

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/patterns"
	"ocvist/store"
)

// Config describes the games a Player plays.
type Config struct {
	Rule     gomoku.Rule
	Radius   int              // candidate radius (1..gomoku.MaxRadius; 0 = 2)
	MaxPly   int              // a game with this many stones is a draw; 0 = full board
	Openings [][]gomoku.Point // games start from one of these, drawn at random; none = centre
}

// Validate checks the configuration, including that every opening is a
// legal sequence of stones that does not already end the game.
func (c Config) Validate() error {
	opts := c.boardOptions()
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	for i, op := range c.Openings {
		b := gomoku.New(opts)
		for _, p := range op {
			if err := b.Play(p); err != nil {
				return fmt.Errorf("selfplay: opening %d: stone %v: %w", i+1, p, err)
			}
		}
		if b.Over() {
			return fmt.Errorf("selfplay: opening %d ends the game", i+1)
		}
	}
	return nil
}

func (c Config) boardOptions() gomoku.Options {
	return gomoku.Options{Rule: c.Rule, Radius: c.Radius, MaxPly: c.MaxPly}
}

// Turn is what a Policy sees when it chooses a move.
type Turn struct {
	Pos    *patterns.Position // the position, side to move = Pos.Board().ToMove()
	Canon  canon.Position     // its canonical key and frame
	Filter *patterns.Result   // the filter's verdict: level, side and threats
	Moves  []gomoku.Point     // the candidates left after the blacklist, never empty
}

// Policy chooses one of t.Moves. Implementations must draw randomness only
// from rng.
type Policy interface {
	Choose(t *Turn, rng *rand.Rand) gomoku.Point
}

// Uniform is the generation-0 policy: every candidate equally likely.
type Uniform struct{}

// Choose draws one of t.Moves uniformly.
func (Uniform) Choose(t *Turn, rng *rand.Rand) gomoku.Point {
	return t.Moves[rng.IntN(len(t.Moves))]
}

// Player plays self-play games. It reuses its buffers between games, so a
// returned Game is valid only until the next call to Play. A Player is used
// by one goroutine; the blacklist is only read.
type Player struct {
	cfg       Config
	policy    Policy
	blacklist store.Blacklist
	empty     *gomoku.Board
	pos       *patterns.Position
	filter    patterns.Result
	allowed   []gomoku.Point
	records   []store.Record
	movers    []gomoku.Player
}

// New returns a Player. cfg must be valid (see Config.Validate); an empty
// blacklist blacklists nothing.
func New(cfg Config, policy Policy, blacklist store.Blacklist) *Player {
	return &Player{
		cfg: cfg, policy: policy, blacklist: blacklist,
		empty: gomoku.New(cfg.boardOptions()),
		pos:   patterns.NewPosition(cfg.boardOptions()),
	}
}

// Moves returns the stones of the last game in the order they were placed,
// opening included. The slice is valid until the next call to Play.
func (pl *Player) Moves() []gomoku.Point { return pl.pos.Board().History() }

// Play plays one game and returns its record. A game ends when the board
// says so, or under Renju when Black, to move, may play no empty point
// (every one forbidden): a draw, as the game's passes are not played.
// Guarded by BenchmarkPlay.
func (pl *Player) Play(rng *rand.Rand) store.Game {
	pl.pos.Reset(pl.empty)
	if len(pl.cfg.Openings) == 0 {
		pl.pos.Play(gomoku.Center)
	} else {
		for _, p := range pl.cfg.Openings[rng.IntN(len(pl.cfg.Openings))] {
			pl.pos.Play(p)
		}
	}
	pl.records, pl.movers = pl.records[:0], pl.movers[:0]
	b := pl.pos.Board()
	for !b.Over() {
		pl.filter = patterns.Filter(pl.pos, b.ToMove(), patterns.Config{}, pl.filter)
		if len(pl.filter.Moves) == 0 {
			break // Renju: Black may play no empty point; a draw (a pass is not played)
		}
		t := Turn{Pos: pl.pos, Canon: canon.Of(b), Filter: &pl.filter}
		t.Moves = pl.allow(t.Canon, pl.filter.Moves)
		p := pl.policy.Choose(&t, rng)
		m := t.Canon.ToCanon(p)
		mover := b.ToMove()
		pl.records = append(pl.records, store.Record{Key: t.Canon.Key, Move: m})
		pl.movers = append(pl.movers, mover)
		if err := pl.pos.Play(p); err != nil {
			panic(fmt.Sprintf("selfplay: policy chose %v: %v", p, err)) // a bug in the filter or policy
		}
	}
	g := store.Game{Records: pl.records}
	if w := b.Winner(); w != gomoku.Empty {
		g.Result = 1
		if w == gomoku.White {
			g.Result = -1
		}
		for i, mv := range pl.movers {
			if mv == w {
				pl.records[i].Weight = 1
			} else {
				pl.records[i].Weight = -1
			}
		}
		// The loser's last move: the one before the winning move.
		if n := len(pl.records); n >= 2 && pl.movers[n-2] != w {
			g.Blacklist = []store.KeyMove{{Key: pl.records[n-2].Key, Move: pl.records[n-2].Move}}
		}
	}
	return g
}

// allow removes blacklisted moves from cands unless that would leave none.
func (pl *Player) allow(c canon.Position, cands []gomoku.Point) []gomoku.Point {
	if pl.blacklist.Len() == 0 {
		return cands
	}
	banned := pl.blacklist.Moves(canon.ID(c.Key))
	if len(banned) == 0 {
		return cands
	}
	pl.allowed = pl.allowed[:0]
	for _, p := range cands {
		m := c.ToCanon(p)
		if !slices.ContainsFunc(banned, func(e store.BlacklistEntry) bool { return e.Move == m }) {
			pl.allowed = append(pl.allowed, p)
		}
	}
	if len(pl.allowed) == 0 {
		return cands
	}
	return pl.allowed
}
