package gomocup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"ocvist/agent"
	"ocvist/gomoku"
)

// errLate reports an engine that had no move by its deadline.
var errLate = errors.New("no move before the deadline")

// think asks the engine for a move on the board, plays it and replies with
// it (or with the fallback move). start is when the command came: the
// turn's clock. It reports whether to go on: false after END or once ctx
// is done.
func (s *Server) think(ctx context.Context, start time.Time, in <-chan string) bool {
	if !s.prepare() {
		return true
	}
	return s.runMove(ctx, s.clock.raw(start), in)
}

// prepare tells the engine of a new game (and sends its notice) if it has
// not been told yet. If the engine refuses the game, prepare replies
// ERROR and reports false.
func (s *Server) prepare() bool {
	if !s.newGame {
		return true
	}
	if err := s.engine.NewGame(s.rule); err != nil {
		s.replyErr("engine: %s", oneLine(err.Error()))
		return false
	}
	s.newGame = false
	if n, ok := s.engine.(agent.Noticer); ok && n.Notice() != "" {
		s.reply(ReplyMessage{oneLine(n.Notice())})
	}
	return true
}

// runMove asks the engine for its move under the raw clock clk, plays it
// and replies with it (or with the fallback move: see run).
func (s *Server) runMove(ctx context.Context, clk gomoku.Clock, in <-chan string) bool {
	view := *s.board
	return s.run(ctx, clk, in, func(mctx context.Context) (any, error) {
		return s.engine.Move(mctx, &view, clk)
	}, func(v any, err error) {
		p, _ := v.(gomoku.Point)
		if v == nil {
			p = gomoku.NoPoint
		}
		s.answer(clk.Start, p, err)
	})
}

// run is the deadline runner. It runs work (the engine thinking) with
// the raw clock clk on a goroutine and waits for it, meanwhile taking
// YXSTOP and END from in and keeping other lines for later. finish
// answers, once: with work's result, or if work has not returned shortly
// before the move's limit (deadlines) at once with (nil, errLate), and
// run goes on waiting: work has always returned when run returns. work's
// context is made before it starts and cancelled by YXSTOP, END and the
// fallback: a stop is never lost, however early it comes. While work
// runs, the engine's reports (Reporter) are written as MESSAGE lines.
func (s *Server) run(ctx context.Context, clk gomoku.Clock, in <-chan string, work func(context.Context) (any, error), finish func(any, error)) bool {
	start := clk.Start
	limit, _ := clk.Limit() // raw always has a turn limit
	engineEnd, fallback := deadlines(limit)
	mctx, cancel := context.WithDeadline(ctx, start.Add(engineEnd))
	defer cancel()
	s.out.reporting(true)
	defer s.out.reporting(false)
	done := make(chan result, 1)
	go func() {
		v, err := work(mctx)
		done <- result{v, err}
	}()
	late := time.NewTimer(time.Until(start.Add(fallback)))
	defer late.Stop()
	stop, answered := ctx.Done(), false
	for {
		select {
		case r := <-done:
			goOn := ctx.Err() == nil && !s.ended
			if goOn && !answered {
				s.out.reporting(false)
				finish(r.v, moveErr(mctx, r.err))
			}
			return goOn
		case line, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			s.whileThinking(line, cancel)
		case <-late.C:
			s.out.reporting(false)
			finish(nil, errLate)
			answered = true
			cancel()
		case <-stop:
			stop = nil
			cancel()
		}
	}
}

type result struct {
	v   any
	err error
}

// whileThinking takes a line that came while the engine thought: YXSTOP
// asks the engine for its move now (its context is cancelled), END too,
// and ends the session; other lines wait for the move.
func (s *Server) whileThinking(line string, cancel context.CancelFunc) {
	word, _ := cutWord(line)
	switch strings.ToUpper(word) {
	case "YXSTOP":
		cancel()
	case "END":
		s.ended = true
		cancel()
	default:
		s.pending = append(s.pending, line)
	}
}

// moveErr names an engine's failure to move by its deadline.
func moveErr(mctx context.Context, err error) error {
	if err != nil && errors.Is(mctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded) {
		return errLate
	}
	return err
}

// answer plays the engine's move p and replies with it; if err is not nil
// or p is not a legal move, a MESSAGE says why and the fallback move is
// played instead.
func (s *Server) answer(start time.Time, p gomoku.Point, err error) {
	if err == nil && (!p.Valid() || s.board.At(p) != gomoku.Empty) {
		err = fmt.Errorf("illegal move %v", p)
	} else if err == nil && s.board.ToMove() == gomoku.Black && s.board.Forbidden(p) != gomoku.NoFoul {
		err = fmt.Errorf("forbidden move %v (%v)", p, s.board.Forbidden(p))
	}
	if err != nil {
		s.reply(ReplyMessage{"engine: " + oneLine(err.Error()) + "; playing a quick move"})
		p = quickMove(s.board)
	}
	s.board.Play(p)
	s.clock.used += time.Since(start)
	s.reply(ReplyMove{p})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// quickMove is the fallback: the centre on an empty board, else a five,
// else a block of the opponent's five, else the candidate nearest the last
// stone (the lowest such point), else any empty cell. It needs
// microseconds; the board must not be full.
func quickMove(b *gomoku.Board) gomoku.Point {
	if b.Stones() == 0 {
		return gomoku.Center
	}
	cands := b.Candidates(nil)
	me := b.ToMove()
	for _, c := range []gomoku.Player{me, me.Other()} {
		for _, p := range cands {
			if b.MakesFive(p, c) && (me == gomoku.White || c == me || b.Forbidden(p) == gomoku.NoFoul) {
				return p
			}
		}
	}
	legal := func(p gomoku.Point) bool {
		return b.At(p) == gomoku.Empty && (me == gomoku.White || b.Forbidden(p) == gomoku.NoFoul)
	}
	best, bestD := gomoku.NoPoint, gomoku.Size
	for _, p := range cands {
		if d := p.Distance(b.Last()); d < bestD && legal(p) {
			best, bestD = p, d
		}
	}
	for p := gomoku.Point(0); best == gomoku.NoPoint && p < gomoku.NumCells; p++ {
		if legal(p) {
			best = p
		}
	}
	return best
}
