package arena

import (
	"context"
	"fmt"
	"sync"
	"time"

	"ocvist/agent"
	"ocvist/gomoku"
	"ocvist/openings"
	"ocvist/patterns"
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
	Openings []openings.Opening
	// Turn is each move's time limit; 0 means none. A move or an error
	// returned after it loses the game on time.
	Turn time.Duration
	// Match is each side's time for all its moves of a game (a match
	// clock); 0 means none. Increment is added to a side's time left after
	// each of its moves. A side whose time left falls below zero loses
	// the game on time. The agents are given the raw clock (gomoku.Clock:
	// the turn limit, the match time, what is left of it) at every move.
	Match, Increment time.Duration
	// Progress, if set, is called after every game with the game and the
	// running totals, on the caller's goroutine, games in index order. It
	// must not keep r past the call's return.
	Progress func(g *Game, r *Result)
	// SPRT, if set, ends the match as soon as the test decides, checked
	// after every complete pair of games.
	SPRT *SPRT
	// Concurrency is how many games MatchFactories plays at once; 0 means 1.
	Concurrency int
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
	Forced  []bool          // per non-book move: whether it was forced (see Forced)
	// Proved is per non-book move whether its player had announced a
	// proved win with it (see agent.Prover).
	Proved []bool
}

// Announced reports whether side announced a proved win in g (Proved).
func (g *Game) Announced(side gomoku.Player) bool {
	for j, p := range g.Proved {
		if p && ((g.Book+j)%2 == 0) == (side == gomoku.Black) {
			return true
		}
	}
	return false
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
	Time           [2]MoveTimes // the move times of A and of B
	Proofs         [2]Proofs    // the wins A and B announced, and what became of them
	Games          []Game
	Decision       Decision // the SPRT's verdict (Undecided without one)
	LLR            float64  // the SPRT's log-likelihood ratio
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
	if g.ABlack {
		g.Black, g.White = r.A, r.B
	} else {
		g.Black, g.White = r.B, r.A
	}
	for j, d := range g.Times {
		black := (g.Book+j)%2 == 0
		k := 1
		if black == g.ABlack {
			k = 0
		}
		r.Time[k].add(d, j < len(g.Forced) && g.Forced[j], g.Index, g.Book+j+1)
	}
	r.addProofs(g)
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
// ctx is done, returning the games finished so far and ctx's error, or
// when cfg.SPRT decides. It fails before the first game if the
// configuration or an opening is invalid. It does not Close the agents.
// Games are played one at a time (cfg.Concurrency is for MatchFactories).
func Match(ctx context.Context, a, b agent.Agent, cfg Config) (*Result, error) {
	cfg.Concurrency = 1
	ka, kb := kept{a}, kept{b}
	return MatchFactories(ctx, func(int) (agent.Agent, error) { return ka, nil }, func(int) (agent.Agent, error) { return kb, nil }, cfg)
}

// kept is an agent that the match must not close (Match's caller owns it).
type kept struct{ agent.Agent }

func (kept) Close() error { return nil }

// ProvedWin passes the agent's agent.Prover on (false for an agent without).
func (k kept) ProvedWin() bool {
	p, ok := k.Agent.(agent.Prover)
	return ok && p.ProvedWin()
}

// Factory returns the agent that plays game i of a match. To make a
// parallel match's games independent of which worker plays them, give
// each game a fresh agent whose seed derives from i.
type Factory func(game int) (agent.Agent, error)

// MatchFactories is Match with agents made per game by newA and newB, up
// to cfg.Concurrency games at once; every agent made is closed after its
// game (the names come from the agents for game 0). Results are added, Progress called and
// the SPRT checked in game order, on the caller's goroutine; when the
// SPRT decides, the games already started are finished but not counted,
// so the result is the sequential match's whatever the concurrency.
// The workers are done when MatchFactories returns.
func MatchFactories(ctx context.Context, newA, newB Factory, cfg Config) (*Result, error) {
	if cfg.Games == 0 {
		cfg.Games = 2
	}
	if cfg.Games < 0 {
		return nil, fmt.Errorf("match: %d games", cfg.Games)
	}
	if cfg.SPRT != nil {
		if err := cfg.SPRT.Validate(); err != nil {
			return nil, fmt.Errorf("match: %w", err)
		}
	}
	for i, o := range cfg.Openings {
		if _, err := o.Board(cfg.options()); err != nil {
			return nil, fmt.Errorf("match: opening %d: %w", i+1, err)
		}
	}
	a0, err := newA(0)
	if err != nil {
		return nil, err
	}
	b0, err := newB(0)
	if err != nil {
		return nil, err
	}
	r := &Result{A: a0.Name(), B: b0.Name()}
	if r.A == r.B { // two builds of one engine: tell them apart everywhere
		r.A, r.B = r.A+" (A)", r.B+" (B)"
	}
	a0.Close()
	b0.Close()
	workers := min(max(cfg.Concurrency, 1), cfg.Games)
	if workers == 1 {
		return r, r.sequential(ctx, newA, newB, cfg)
	}
	return r, r.parallel(ctx, newA, newB, cfg, workers)
}

// sequential plays the games one after another on this goroutine.
func (r *Result) sequential(ctx context.Context, newA, newB Factory, cfg Config) error {
	for i := range cfg.Games {
		if err := ctx.Err(); err != nil {
			return err
		}
		g, err := playFresh(ctx, newA, newB, cfg, i)
		if err != nil {
			return err
		}
		if r.record(g, cfg) {
			break
		}
	}
	return nil
}

// record adds a finished game, reports it and runs the SPRT; it reports
// whether the test has decided.
func (r *Result) record(g *Game, cfg Config) bool {
	r.add(g)
	if cfg.Progress != nil {
		cfg.Progress(g, r)
	}
	if cfg.SPRT == nil || g.Index%2 == 0 {
		return false
	}
	r.Decision, r.LLR = cfg.SPRT.Decide(r.Pentanomial())
	return r.Decision != Undecided
}

type played struct {
	g   *Game
	err error
}

// parallel plays the games on workers goroutines, each game with fresh
// agents, and records them in index order.
func (r *Result) parallel(ctx context.Context, newA, newB Factory, cfg Config, workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	done := make(chan played)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				g, err := playFresh(ctx, newA, newB, cfg, i)
				done <- played{g, err}
			}
		}()
	}
	err := r.dispatch(cfg, next, done)
	close(next)
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// dispatch sends the game indices on next and records the games coming
// back on done in index order. It stops sending once the SPRT decides or
// a game fails, and returns when every game sent is back, with the first
// game's error.
func (r *Result) dispatch(cfg Config, next chan<- int, done <-chan played) error {
	pending := map[int]*Game{} // finished games waiting for an earlier one
	sent, recorded, running := 0, 0, 0
	var firstErr error
	stop := false
	for sent < cfg.Games && !stop || running > 0 {
		var send chan<- int // nil (never ready) once nothing more is to be sent
		if sent < cfg.Games && !stop && firstErr == nil {
			send = next
		}
		if send == nil && running == 0 {
			break
		}
		select {
		case send <- sent:
			sent++
			running++
		case pl := <-done:
			running--
			if pl.err != nil {
				if firstErr == nil {
					firstErr = pl.err
				}
				continue
			}
			pending[pl.g.Index] = pl.g
			for g, ok := pending[recorded]; ok; g, ok = pending[recorded] {
				delete(pending, recorded)
				recorded++
				if !stop { // after the verdict, games still finishing are not counted
					stop = r.record(g, cfg)
				}
			}
		}
	}
	return firstErr
}

// playFresh plays game i with agents made for it and closes them.
func playFresh(ctx context.Context, newA, newB Factory, cfg Config, i int) (*Game, error) {
	a, err := newA(i)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	b, err := newB(i)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return playGame(ctx, a, b, cfg, i)
}

// playGame plays game i. It returns an error only when ctx is done.
func playGame(ctx context.Context, a, b agent.Agent, cfg Config, i int) (*Game, error) {
	g, board := startGame(cfg, i)
	black, white := a, b
	if !g.ABlack {
		black, white = b, a
	}
	g.Black, g.White = black.Name(), white.Name()
	seat := func(c gomoku.Player) agent.Agent {
		if c == gomoku.Black {
			return black
		}
		return white
	}
	for _, c := range [2]gomoku.Player{gomoku.Black, gomoku.White} {
		if err := seat(c).NewGame(cfg.Rule); err != nil {
			return forfeit(g, c, "error: new game: "+err.Error()), nil
		}
	}
	left := [3]time.Duration{gomoku.Black: cfg.Match, gomoku.White: cfg.Match}
	for !board.Over() {
		c := board.ToMove()
		clock := gomoku.Clock{Turn: cfg.Turn, Match: cfg.Match, Left: left[c], Increment: cfg.Increment}
		lost, err := playTurn(ctx, g, board, seat(c), clock)
		if err != nil {
			return nil, err
		}
		if lost {
			return g, nil
		}
		left[c] += cfg.Increment - g.Times[len(g.Times)-1]
	}
	g.end(board)
	return g, nil
}

// startGame sets up game i: its colours (A is Black in even games), its
// opening (each opening serves a pair of games) and the board after it.
func startGame(cfg Config, i int) (*Game, *gomoku.Board) {
	g := &Game{Index: i, Opening: -1, ABlack: i%2 == 0}
	opening := openings.Opening{Moves: []gomoku.Point{gomoku.Center}}
	if len(cfg.Openings) > 0 {
		g.Opening = (i / 2) % len(cfg.Openings)
		opening = cfg.Openings[g.Opening]
	}
	board, _ := opening.Board(cfg.options()) // checked by Match
	g.Moves = append(g.Moves, board.History()...)
	g.Book = len(g.Moves)
	return g, board
}

// playTurn asks ag, the side to move, for a move under clock and plays
// it. It reports whether ag lost the game by forfeit (late, an error or
// an illegal move; g then says so), and returns an error only when ctx is
// done.
func playTurn(ctx context.Context, g *Game, board *gomoku.Board, ag agent.Agent, clock gomoku.Clock) (lost bool, err error) {
	side := board.ToMove()
	g.Forced = append(g.Forced, Forced(board))
	p, d, err := timedMove(ctx, ag, board, clock)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	g.Times = append(g.Times, d)
	pr, ok := ag.(agent.Prover)
	g.Proved = append(g.Proved, ok && err == nil && pr.ProvedWin())
	switch { // time first: a late agent's error is its deadline's
	case clock.Turn > 0 && d > clock.Turn:
		forfeit(g, side, fmt.Sprintf("time: %v over the %v turn limit", d-clock.Turn, clock.Turn))
		return true, nil
	case clock.Match > 0 && d > clock.Left:
		forfeit(g, side, fmt.Sprintf("time: %v over the match clock (%v left of %v)", d-clock.Left, clock.Left, clock.Match))
		return true, nil
	case err != nil:
		forfeit(g, side, "error: "+err.Error())
		return true, nil
	}
	if err := board.Play(p); err != nil {
		forfeit(g, side, fmt.Sprintf("illegal move %v: %v", p, err))
		return true, nil
	}
	g.Moves = append(g.Moves, p)
	return false, nil
}

// end records how a game played to its end finished on the board.
func (g *Game) end(board *gomoku.Board) {
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
}

// timedMove asks ag for a move on a copy of board, so that a misbehaving
// agent cannot change the match's position, with the clock started now
// and, as the context's deadline, the clock's limit.
func timedMove(ctx context.Context, ag agent.Agent, board *gomoku.Board, clock gomoku.Clock) (gomoku.Point, time.Duration, error) {
	clock.Start = time.Now()
	if limit, ok := clock.Limit(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, clock.Start.Add(limit))
		defer cancel()
	}
	view := *board
	p, err := ag.Move(ctx, &view, clock)
	return p, time.Since(clock.Start), err
}

func forfeit(g *Game, loser gomoku.Player, reason string) *Game {
	g.Winner = loser.Other()
	g.Reason = fmt.Sprintf("%v %s", loser, reason)
	g.Forfeit = true
	return g
}

// Proofs count one agent's announced wins over a match: the games in
// which it announced one (agent.Prover) and, of them, those it did not win (see
// Game.Announced): a sound engine throws none away. A game it lost by
// forfeit (late, an error, an illegal move) after announcing is thrown
// too, and listed again in Forfeited: its proof was not refuted on the
// board, its clock or its process failed it.
type Proofs struct {
	Games     int   // games with an announced win
	Thrown    []int // indices of those games it did not win
	Forfeited []int // of Thrown, the games it lost by forfeit
}

func (r *Result) addProofs(g *Game) {
	a, b := gomoku.White, gomoku.Black
	if g.ABlack {
		a, b = b, a
	}
	for k, side := range [2]gomoku.Player{a, b} {
		if !g.Announced(side) {
			continue
		}
		r.Proofs[k].Games++
		if g.Winner != side {
			r.Proofs[k].Thrown = append(r.Proofs[k].Thrown, g.Index)
			if g.Forfeit { // side did not win: side is the loser
				r.Proofs[k].Forfeited = append(r.Proofs[k].Forfeited, g.Index)
			}
		}
	}
}

// MoveTimes are one agent's move times over a match. A forced move (see
// Forced) takes an engine little time by design; the mean leaves them out,
// so that it measures how much of its clock an agent uses where it has a
// choice. The longest move counts them all, and is located (MaxGame,
// MaxMove) so that its position can be searched again.
type MoveTimes struct {
	Moves    int           // moves timed
	Forced   int           // of them forced
	Unforced time.Duration // the total time of the moves not forced
	Max      time.Duration // the longest move
	MaxGame  int           // the longest move's game (Game.Index)
	MaxMove  int           // and its number in the game, the opening's stones counted (1: the first stone)
}

// add counts a move of d, played as move number move of game game.
func (m *MoveTimes) add(d time.Duration, forced bool, game, move int) {
	m.Moves++
	if d > m.Max {
		m.Max, m.MaxGame, m.MaxMove = d, game, move
	}
	if forced {
		m.Forced++
	} else {
		m.Unforced += d
	}
}

// Over counts the moves of agent k (0: A, 1: B) in r's games that took
// longer than limit.
func (r *Result) Over(k int, limit time.Duration) int {
	n := 0
	for _, g := range r.Games {
		for j, d := range g.Times {
			if black := (g.Book+j)%2 == 0; (black == g.ABlack) == (k == 0) && d > limit {
				n++
			}
		}
	}
	return n
}

// Mean is the mean time of the moves that were not forced (0 with none).
func (m MoveTimes) Mean() time.Duration {
	if n := m.Moves - m.Forced; n > 0 {
		return m.Unforced / time.Duration(n)
	}
	return 0
}

// forcedVCFNodes bounds the VCF that Forced tries.
const forcedVCFNodes = 10_000

// Forced reports whether the side to move on b has a forced move by the
// rules and the shapes alone, whatever the engine: a five to make, a
// five-point of the opponent's to block (the only move that does not
// lose), an open four to make, or a win by continuous fours that
// patterns.VCF finds within 10,000 nodes. An engine plays these at once;
// the arena leaves them out of an agent's mean move time. (Wins by
// threes, which a search may also find at once, are not told apart: they
// count as choices.)
func Forced(b *gomoku.Board) bool {
	if b.Over() || b.Stones() == 0 {
		return false
	}
	pos := patterns.FromBoard(b)
	me := b.ToMove()
	if !pos.Set(patterns.MakesFive, me).Empty() || !pos.Set(patterns.MakesFive, me.Other()).Empty() || !pos.Set(patterns.MakesWin, me).Empty() {
		return true
	}
	if pos.Set(patterns.MakesFour, me).Empty() {
		return false
	}
	_, ok, _ := patterns.VCF(pos, me, patterns.Limits{MaxNodes: forcedVCFNodes, MaxDepth: 30})
	return ok
}
