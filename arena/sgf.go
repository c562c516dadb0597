package arena

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"ocvist/gomoku"
)

// SGF: games are saved as an SGF FF[4] collection (GM[4] is gomoku), one
// game tree per game, one node per stone in play order:
//
//	(;FF[4]GM[4]SZ[15]CA[UTF-8]AP[Ocvist]RU[freestyle]PB[random]PW[random]
//	GN[game 1, opening 1, book 3]RE[B+]C[black wins: five]
//	;B[hh];W[ih];B[il]...)
//
// A point is two letters, column then row, 'a' = 0, counted from the
// top-left as in the Gomocup protocol (h8 is "hh"). RE is "B+" or "W+" for a
// win on the board, "B+T"/"W+T" for a time forfeit, "B+F"/"W+F" for any
// other forfeit and "0" for a draw. GN names the game's index and opening
// (1-based, 0 for the centre opening) and the number of book stones that
// begin the move list; C holds Game.Reason. ReadSGF reads these back.

// WriteSGF writes games as one SGF collection.
func WriteSGF(w io.Writer, rule gomoku.Rule, games []Game) error {
	bw := bufio.NewWriter(w)
	for i := range games {
		writeGame(bw, rule, &games[i])
	}
	return bw.Flush()
}

func writeGame(w *bufio.Writer, rule gomoku.Rule, g *Game) {
	fmt.Fprintf(w, "(;FF[4]GM[4]SZ[%d]CA[UTF-8]AP[Ocvist]RU[%s]PB[%s]PW[%s]\nGN[game %d, opening %d, book %d]RE[%s]C[%s]\n",
		gomoku.Size, rule, sgfText(g.Black), sgfText(g.White), g.Index+1, g.Opening+1, g.Book,
		sgfResult(g), sgfText(g.Reason))
	for i, p := range g.Moves {
		if i > 0 && i%16 == 0 {
			w.WriteByte('\n')
		}
		fmt.Fprintf(w, ";%c[%s]", "BW"[i%2], sgfPoint(p))
	}
	w.WriteString(")\n")
}

func sgfResult(g *Game) string {
	if g.Winner == gomoku.Empty {
		return "0"
	}
	s := string("?BW"[g.Winner]) + "+"
	switch {
	case g.Forfeit && strings.Contains(g.Reason, " time: "):
		s += "T"
	case g.Forfeit:
		s += "F"
	}
	return s
}

func sgfPoint(p gomoku.Point) string { return string([]byte{byte('a' + p.X()), byte('a' + p.Y())}) }

func sgfText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `]`, `\]`).Replace(s)
}

// ReadSGF reads a collection as written by WriteSGF: linear game trees of
// B/W move nodes. Properties it does not use are skipped; variations,
// setup stones and other board sizes are refused. Index, Opening, Book come
// from GN when present; WinLine, Times, Forced and Proved are not stored.
func ReadSGF(r io.Reader) ([]Game, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read sgf: %w", err)
	}
	p := &sgfParser{s: string(data)}
	var games []Game
	for p.skipSpace(); p.i < len(p.s); p.skipSpace() {
		g, err := p.game()
		if err != nil {
			return nil, fmt.Errorf("read sgf: game %d: %w", len(games)+1, err)
		}
		games = append(games, *g)
	}
	return games, nil
}

type sgfParser struct {
	s string
	i int
}

var errSGFEnd = errors.New("unexpected end of input")

func (p *sgfParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sgfParser) expect(c byte) error {
	p.skipSpace()
	if p.i >= len(p.s) {
		return errSGFEnd
	}
	if p.s[p.i] != c {
		return fmt.Errorf("offset %d: want %q, found %q", p.i, c, p.s[p.i])
	}
	p.i++
	return nil
}

func (p *sgfParser) game() (*Game, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	g := &Game{Opening: -1}
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, errSGFEnd
		}
		switch p.s[p.i] {
		case ')':
			p.i++
			return g, nil
		case ';':
			p.i++
			if err := p.node(g); err != nil {
				return nil, err
			}
		case '(':
			return nil, fmt.Errorf("offset %d: variations are not supported", p.i)
		default:
			return nil, fmt.Errorf("offset %d: unexpected %q", p.i, p.s[p.i])
		}
	}
}

func (p *sgfParser) node(g *Game) error {
	for {
		p.skipSpace()
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' {
			p.i++
		}
		id := p.s[start:p.i]
		if id == "" {
			return nil
		}
		var vals []string
		for p.skipSpace(); p.i < len(p.s) && p.s[p.i] == '['; p.skipSpace() {
			v, err := p.value()
			if err != nil {
				return err
			}
			vals = append(vals, v)
		}
		if len(vals) == 0 {
			return fmt.Errorf("offset %d: property %s without a value", start, id)
		}
		if err := g.setProperty(id, vals[0]); err != nil {
			return fmt.Errorf("offset %d: %s[%s]: %w", start, id, vals[0], err)
		}
	}
}

func (p *sgfParser) value() (string, error) {
	p.i++ // '['
	var sb strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\' && p.i < len(p.s):
			sb.WriteByte(p.s[p.i])
			p.i++
		case c == ']':
			return sb.String(), nil
		default:
			sb.WriteByte(c)
		}
	}
	return "", errSGFEnd
}

func (g *Game) setProperty(id, v string) error {
	switch id {
	case "GM":
		if v != "4" {
			return fmt.Errorf("not a gomoku game")
		}
	case "SZ":
		if v != fmt.Sprint(gomoku.Size) {
			return fmt.Errorf("board size must be %d", gomoku.Size)
		}
	case "AB", "AW", "AE":
		return fmt.Errorf("setup stones are not supported")
	case "PB":
		g.Black = v
	case "PW":
		g.White = v
	case "C":
		g.Reason = v
	case "GN":
		var idx, op, book int
		if _, err := fmt.Sscanf(v, "game %d, opening %d, book %d", &idx, &op, &book); err == nil {
			g.Index, g.Opening, g.Book, g.ABlack = idx-1, op-1, book, (idx-1)%2 == 0
		}
	case "RE":
		return g.setResult(v)
	case "B", "W":
		c := gomoku.Black
		if id == "W" {
			c = gomoku.White
		}
		if want := gomoku.Player(len(g.Moves)%2 + 1); c != want {
			return fmt.Errorf("move %d should be %v", len(g.Moves)+1, want)
		}
		if len(v) != 2 || gomoku.Pt(int(v[0])-'a', int(v[1])-'a') == gomoku.NoPoint {
			return fmt.Errorf("bad point")
		}
		g.Moves = append(g.Moves, gomoku.Pt(int(v[0])-'a', int(v[1])-'a'))
	}
	return nil
}

func (g *Game) setResult(v string) error {
	switch {
	case v == "0" || v == "Draw":
		g.Winner = gomoku.Empty
	case strings.HasPrefix(v, "B+"):
		g.Winner = gomoku.Black
	case strings.HasPrefix(v, "W+"):
		g.Winner = gomoku.White
	default:
		return fmt.Errorf("unknown result")
	}
	g.Forfeit = g.Winner != gomoku.Empty && len(v) > 2 && v[2:] != "R"
	return nil
}
