package arena

import (
	"context"
	"fmt"
	"time"

	"ocvist/gomoku"
)

// Config configures a match. The zero value plays 2 games from the centre
// opening, freestyle, radius 2, no ply limit and no turn deadline.
type Config struct {
	Rule   gomoku.Rule
	Radius int // candidate radius of the board handed to agents; 0 means 2
	MaxPly int // a game is a draw once this many stones stand; 0 = full board
	Games  int // number of games; 0 means 2. An odd number leaves the last opening unpaired.
	// Openings are the start positions, used in order and cycled. Empty
	// means every game starts from Black's stone in the centre.
	Openings []Opening
	// Turn is each move's deadline; 0 means none. A move or an error
	// returned after it loses the game on time.
	Turn time.Duration
	// Progress, if set, is called after every game with the game and the
	// running totals. It must not keep r past the call's return.
	Progress func(g *Game, r *Result)
}

func (c Config) options() gomoku.Options {
	return gomoku.Options{Rule: c.Rule, Radius: c.Radius, MaxPly: c.MaxPly}
}

// Game is the record of one game.
type Game struct {
	Index   int    // 0-based position in the match
	Opening int    // index into Config.Openings, -1 for the centre opening
	Black   string // agent names
	White   string
	ABlack  bool           // A played Black
	Moves   []gomoku.Point // every stone, the opening's first
	Book    int            // how many of Moves came from the opening
	Winner  gomoku.Player  // Empty for a draw
	WinLine []gomoku.Point // the five (or more) when won on the board
	// Reason says how the game ended: "five", "full board", "ply limit",
	// or for a forfeit the loser's colour and "illegal move …", "error: …"
	// or "time: …", e.g. "white illegal move h8: cell is occupied".
	Reason  string
	Forfeit bool            // the loser broke a rule rather than lost on the board
	Times   []time.Duration // time per non-book move, parallel to Moves[Book:]
}

// AResult is the game's result from A's point of view: 1 win, 0.5 draw, 0 loss.
func (g *Game) AResult() float64 {
	switch {
	case g.Winner == gomoku.Empty:
		return 0.5
	case (g.Winner == gomoku.Black) == g.ABlack:
		return 1
	}
	return 0
}

// Tally counts games from A's point of view.
type Tally struct {
	AWins int `json:"a_wins"`
	BWins int `json:"b_wins"`
	Draws int `json:"draws"`
}

// Games is the number of games counted.
func (t Tally) Games() int { return t.AWins + t.BWins + t.Draws }

func (t *Tally) add(g *Game) {
	switch g.AResult() {
	case 1:
		t.AWins++
	case 0:
		t.BWins++
	default:
		t.Draws++
	}
}

// Result is a match's outcome. Total is split into the games where A played
// Black (ABlack) and White (AWhite).
type Result struct {
	A, B           string // agent names
	Total          Tally
	ABlack, AWhite Tally
	MaxTime        [2]time.Duration // the longest move of A and of B
	Games          []Game
}

// Score is A's score in [0, 1]: (wins + draws/2) / games; NaN with no games.
func (r *Result) Score() float64 {
	t := r.Total
	return (float64(t.AWins) + float64(t.Draws)/2) / float64(t.Games())
}

// Elo is A's Elo difference over B with its 95% interval; see Elo.
func (r *Result) Elo() (elo, low, high float64) {
	return Elo(r.Total.AWins, r.Total.Draws, r.Total.BWins)
}

func (r *Result) add(g *Game) {
	r.Total.add(g)
	if g.ABlack {
		r.ABlack.add(g)
	} else {
		r.AWhite.add(g)
	}
	r.Games = append(r.Games, *g)
}

// Match plays cfg.Games games between a and b (see the package
// documentation for pairing) and returns the result. It stops early when
// ctx is done, returning the games finished so far and ctx's error. It
// fails before the first game if the configuration or an opening is
// invalid. It does not Close the agents.
func Match(ctx context.Context, a, b Agent, cfg Config) (*Result, error) {
	if cfg.Games == 0 {
		cfg.Games = 2
	}
	if cfg.Games < 0 {
		return nil, fmt.Errorf("match: %d games", cfg.Games)
	}
	for i, o := range cfg.Openings {
		if _, err := o.Board(cfg.options()); err != nil {
			return nil, fmt.Errorf("match: opening %d: %w", i+1, err)
		}
	}
	r := &Result{A: a.Name(), B: b.Name()}
	for i := range cfg.Games {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		g, err := playGame(ctx, a, b, cfg, i, r)
		if err != nil {
			return r, err
		}
		r.add(g)
		if cfg.Progress != nil {
			cfg.Progress(g, r)
		}
	}
	return r, nil
}

// playGame plays game i. It returns an error only when ctx is done.
func playGame(ctx context.Context, a, b Agent, cfg Config, i int, r *Result) (*Game, error) {
	g := &Game{Index: i, Opening: -1, ABlack: i%2 == 0}
	opening := Opening{Moves: []gomoku.Point{gomoku.Center}}
	if len(cfg.Openings) > 0 {
		g.Opening = (i / 2) % len(cfg.Openings)
		opening = cfg.Openings[g.Opening]
	}
	board, _ := opening.Board(cfg.options()) // checked by Match
	g.Moves = append(g.Moves, board.History()...)
	g.Book = len(g.Moves)
	black, white := a, b
	if !g.ABlack {
		black, white = b, a
	}
	g.Black, g.White = black.Name(), white.Name()
	agentOf := func(c gomoku.Player) (Agent, int) {
		if (c == gomoku.Black) == g.ABlack {
			return a, 0
		}
		return b, 1
	}
	for _, c := range [2]gomoku.Player{gomoku.Black, gomoku.White} {
		ag, _ := agentOf(c)
		if err := ag.NewGame(cfg.Rule); err != nil {
			return forfeit(g, c, "error: new game: "+err.Error()), nil
		}
	}
	for !board.Over() {
		side := board.ToMove()
		ag, k := agentOf(side)
		p, d, err := timedMove(ctx, ag, board, cfg.Turn)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		g.Times = append(g.Times, d)
		r.MaxTime[k] = max(r.MaxTime[k], d)
		switch {
		case cfg.Turn > 0 && d > cfg.Turn: // before err: a late agent's error is its deadline's
			return forfeit(g, side, fmt.Sprintf("time: %v over the %v turn limit", d-cfg.Turn, cfg.Turn)), nil
		case err != nil:
			return forfeit(g, side, "error: "+err.Error()), nil
		}
		if err := board.Play(p); err != nil {
			return forfeit(g, side, fmt.Sprintf("illegal move %v: %v", p, err)), nil
		}
		g.Moves = append(g.Moves, p)
	}
	g.Winner = board.Winner()
	g.WinLine = board.WinLine()
	switch {
	case g.Winner != gomoku.Empty:
		g.Reason = "five"
	case board.Full():
		g.Reason = "full board"
	default:
		g.Reason = "ply limit"
	}
	return g, nil
}

// timedMove asks ag for a move on a copy of board, so that a misbehaving
// agent cannot change the match's position.
func timedMove(ctx context.Context, ag Agent, board *gomoku.Board, turn time.Duration) (gomoku.Point, time.Duration, error) {
	if turn > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, turn)
		defer cancel()
	}
	view := *board
	start := time.Now()
	p, err := ag.Move(ctx, &view)
	return p, time.Since(start), err
}

func forfeit(g *Game, loser gomoku.Player, reason string) *Game {
	g.Winner = loser.Other()
	g.Reason = fmt.Sprintf("%v %s", loser, reason)
	g.Forfeit = true
	return g
}
