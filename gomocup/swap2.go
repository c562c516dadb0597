package gomocup

import (
	"context"
	"time"

	"ocvist/gomoku"
)

// SwapMargin is the score (the engine's units, the side to move's view)
// within which SWAP2BOARD calls a position balanced: with 3 stones the
// brain then places two more rather than choose a colour.
const SwapMargin = 150

// swap2Opening is the first two stones the brain places with 0 stones
// (Black in the centre, White diagonally next to it); the third is the
// engine's choice.
var swap2Opening = [2]gomoku.Point{gomoku.Center, gomoku.Center + gomoku.Size + 1}

// swap2 answers SWAP2BOARD (the 2022 extension of the protocol) from the engine's analysis
// of the stones (Black, White, Black, … in order):
//   - 0 stones: three stones, "x,y x,y x,y": the centre, a diagonal White
//     stone and the Black stone whose position the engine finds closest
//     to balanced;
//   - 3 stones, the brain choosing: White to move scores above SwapMargin
//     for White: stay White and play the best move ("x,y"); below
//     −SwapMargin: "SWAP" (take Black); in between: place the 4th and 5th
//     stones, the engine's best White move and Black's best answer to it;
//   - 5 stones: play the 6th as White ("x,y") when White to move scores
//     at least 0 for White, else "SWAP".
//
// Late or failing, it answers the 0-stone opening's centre and diagonal
// stones with the first free cell next to them, or SWAP.
func (s *Server) swap2(ctx context.Context, start time.Time, stones []gomoku.Point, in <-chan string) bool {
	a, ok := s.engine.(Analyst)
	switch {
	case !ok:
		s.replyErr("SWAP2BOARD: this engine does not rank moves (use the search agent)")
		return true
	case len(stones) != 0 && len(stones) != 3 && len(stones) != 5:
		s.replyErr("SWAP2BOARD: %d stones; want 0, 3 or 5", len(stones))
		return true
	case !s.playable():
		return true
	}
	setup := make([]placed, len(stones))
	for i, p := range stones {
		setup[i].p, setup[i].c = p, gomoku.Black
		if i%2 == 1 {
			setup[i].c = gomoku.White
		}
	}
	if len(stones) == 0 {
		setup = append(setup, placed{swap2Opening[0], gomoku.Black}, placed{swap2Opening[1], gomoku.White})
	}
	if err := s.rebuild(setup); err != nil || s.board.Over() {
		s.reset()
		s.replyErr("SWAP2BOARD: not an opening position (%v)", err)
		return true
	}
	s.newGame = true
	if !s.prepare() {
		return true
	}
	n := len(stones)
	return s.analyse(ctx, start, in, a, func(b *gomoku.Board) Reply { return swap2Quick(b, n) },
		func(lines []Line) { s.reply(swap2Answer(lines, n)) })
}

// swap2Answer is the decision for n stones from the analysis of the
// position after them (lines: the side to move's moves, best first).
func swap2Answer(lines []Line, n int) Reply {
	best := lines[0]
	switch n {
	case 0: // Black to move: the third stone leaving the most balanced game
		pick := best
		for _, l := range lines {
			if l.Mate == 0 && abs(l.Score) < abs(pick.Score) || pick.Mate != 0 && l.Mate == 0 {
				pick = l
			}
		}
		return ReplyMoves{[]gomoku.Point{swap2Opening[0], swap2Opening[1], pick.Move}}
	case 3:
		switch {
		case best.Mate > 0 || best.Mate == 0 && best.Score > SwapMargin:
			return ReplyMove{best.Move}
		case best.Mate < 0 || best.Score < -SwapMargin || len(best.PV) < 2:
			return ReplySwap{}
		}
		return ReplyMoves{[]gomoku.Point{best.Move, best.PV[1]}}
	}
	if best.Mate > 0 || best.Mate == 0 && best.Score >= 0 {
		return ReplyMove{best.Move}
	}
	return ReplySwap{}
}

// swap2Quick is the answer of an engine that failed or was late: the
// opening's two stones and the first empty cell next to the centre for 0
// stones (b holds the two), else SWAP.
func swap2Quick(b *gomoku.Board, n int) Reply {
	if n != 0 {
		return ReplySwap{}
	}
	third := quickMove(b)
	return ReplyMoves{[]gomoku.Point{swap2Opening[0], swap2Opening[1], third}}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
