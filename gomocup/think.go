package gomocup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

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
	if n, ok := s.engine.(Noticer); ok && n.Notice() != "" {
		s.reply(ReplyMessage{oneLine(n.Notice())})
	}
	return true
}

// runMove is the deadline runner. It runs the engine's Move with the raw
// clock clk on a goroutine and waits for it, meanwhile taking YXSTOP and
// END from in and keeping other lines for later. If Move has not returned
// shortly before the move's limit (deadlines), it answers with the
// fallback move at once and goes on waiting: Move has always returned when
// runMove returns. Move's context is made before Move starts and cancelled
// by YXSTOP, END and the fallback: a stop is never lost, however early it
// comes.
func (s *Server) runMove(ctx context.Context, clk gomoku.Clock, in <-chan string) bool {
	start := clk.Start
	limit, _ := clk.Limit() // raw always has a turn limit
	engineEnd, fallback := deadlines(limit)
	mctx, cancel := context.WithDeadline(ctx, start.Add(engineEnd))
	defer cancel()
	view := *s.board
	done := make(chan result, 1)
	go func() {
		p, err := s.engine.Move(mctx, &view, clk)
		done <- result{p, err}
	}()
	late := time.NewTimer(time.Until(start.Add(fallback)))
	defer late.Stop()
	stop, answered := ctx.Done(), false
	for {
		select {
		case r := <-done:
			goOn := ctx.Err() == nil && !s.ended
			if goOn && !answered {
				s.answer(start, r.p, moveErr(mctx, r.err))
			}
			return goOn
		case line, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			s.whileThinking(line, cancel)
		case <-late.C:
			s.answer(start, gomoku.NoPoint, errLate)
			answered = true
			cancel()
		case <-stop:
			stop = nil
			cancel()
		}
	}
}

type result struct {
	p   gomoku.Point
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
			if b.MakesFive(p, c) {
				return p
			}
		}
	}
	best, bestD := gomoku.NoPoint, gomoku.Size
	for _, p := range cands {
		if d := p.Distance(b.Last()); d < bestD {
			best, bestD = p, d
		}
	}
	for p := gomoku.Point(0); best == gomoku.NoPoint && p < gomoku.NumCells; p++ {
		if b.At(p) == gomoku.Empty {
			best = p
		}
	}
	return best
}
