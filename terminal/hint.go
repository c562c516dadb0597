package terminal

import (
	"fmt"
	"strings"

	"ocvist/agent"
	"ocvist/gomoku"
)

// hint shows the agent's best moves, or its candidates if it cannot rank.
func (s *session) hint() {
	if s.board.Over() {
		s.printf("The game is over.\n")
		return
	}
	name := s.agent.Name()
	if r, ok := s.agent.(agent.Ranker); ok {
		ranked := r.Rank(s.board)
		if len(ranked) > 1 && allEqual(ranked) {
			s.printf("%s sees %d equal moves (%s): %s\n", name, len(ranked), ranked[0].Level, listPoints(ranked, 12))
			return
		}
		var h []string
		for _, m := range ranked[:min(5, len(ranked))] {
			t := fmt.Sprintf("%v %.2f", m.Point, m.Score)
			if m.Level != "" {
				t += " (" + m.Level + ")"
			}
			h = append(h, t)
		}
		s.printf("%s suggests: %s\n", name, strings.Join(h, ", "))
		return
	}
	if s.board.Stones() == 0 {
		s.printf("%s cannot rank moves; it would open at %v.\n", name, gomoku.Center)
		return
	}
	cands := s.board.Candidates(nil)
	var c []string
	for _, p := range cands[:min(12, len(cands))] {
		c = append(c, p.String())
	}
	if len(cands) > 12 {
		c = append(c, "...")
	}
	s.printf("%s cannot rank moves; it picks among %d candidates: %s\n", name, len(cands), strings.Join(c, " "))
}

func allEqual(s []agent.Scored) bool {
	for _, m := range s {
		if m.Score != s[0].Score || m.Level != s[0].Level {
			return false
		}
	}
	return true
}

// listPoints names the first n moves, with "..." for the rest.
func listPoints(s []agent.Scored, n int) string {
	var out []string
	for _, m := range s[:min(n, len(s))] {
		out = append(out, m.Point.String())
	}
	if len(s) > n {
		out = append(out, "...")
	}
	return strings.Join(out, " ")
}

// Render draws the board with a-o above and below, 15-1 left and right,
// the last stone in brackets, a winning line in capitals and, under renju
// with Black to move, Black's forbidden points as #.
func Render(b *gomoku.Board) string {
	var sb strings.Builder
	const letters = "    a b c d e f g h i j k l m n o\n"
	win := map[gomoku.Point]bool{}
	for _, p := range b.WinLine() {
		win[p] = true
	}
	last := b.Last()
	forbid := b.Rule() == gomoku.Renju && b.ToMove() == gomoku.Black && !b.Over()
	sb.WriteString(letters)
	for y := range gomoku.Size {
		fmt.Fprintf(&sb, "%2d ", gomoku.Size-y)
		for x := range gomoku.Size {
			p := gomoku.Pt(x, y)
			switch {
			case p == last:
				sb.WriteByte('[')
			case x > 0 && gomoku.Pt(x-1, y) == last:
				sb.WriteByte(']')
			default:
				sb.WriteByte(' ')
			}
			c := b.At(p).Char()
			if win[p] {
				c -= 'a' - 'A'
			}
			if c == '.' && forbid && b.Forbidden(p) != gomoku.NoFoul {
				c = '#' // forbidden to Black (renju)
			}
			sb.WriteByte(c)
		}
		if gomoku.Pt(gomoku.Size-1, y) == last {
			sb.WriteByte(']')
		} else {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%2d\n", gomoku.Size-y)
	}
	sb.WriteString(letters)
	return sb.String()
}
