package gomoku

import (
	"fmt"
	"strconv"
	"strings"
)

// DiagramError reports a bad board diagram, naming the input line (1-based).
type DiagramError struct {
	Line int
	Msg  string
}

func (e *DiagramError) Error() string { return fmt.Sprintf("diagram line %d: %s", e.Line, e.Msg) }

// String is the board diagram: Size lines of Size characters '.', 'x', 'o',
// row 15 (Gomocup y = 0) first, each ending in '\n'. ParseDiagram reads it
// back exactly.
func (b *Board) String() string {
	var sb strings.Builder
	sb.Grow(NumCells + Size)
	for y := range Size {
		for x := range Size {
			sb.WriteByte(b.cells[Pt(x, y)].Char())
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// ParseDiagram reads a board diagram as written by String. Cells may be
// separated by spaces, a row may carry its number (15 at the top down to 1)
// before and/or after it, and lines of column letters (a b c ...) may stand
// above and below; blank lines are ignored. Stones are placed in reading
// order, so Undo takes them off bottom-right first. A position in which
// both players have a winning line is refused.
func ParseDiagram(s string, opts Options) (*Board, error) {
	if err := opts.Validate(); err != nil {
		return nil, &DiagramError{Line: 0, Msg: err.Error()}
	}
	b := New(opts)
	y := 0
	for i, raw := range strings.Split(s, "\n") {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line == "" || isLetterMargin(line) {
			continue
		}
		if y == Size {
			return nil, &DiagramError{Line: i + 1, Msg: fmt.Sprintf("more than %d rows", Size)}
		}
		row, err := parseRow(line, Size-y)
		if err != nil {
			return nil, &DiagramError{Line: i + 1, Msg: err.Error()}
		}
		for x, c := range row {
			if c != Empty {
				b.set(Pt(x, y), c)
			}
		}
		y++
	}
	if y != Size {
		return nil, &DiagramError{Line: 0, Msg: fmt.Sprintf("%d rows, want %d", y, Size)}
	}
	if err := b.findWinner(); err != nil {
		return nil, &DiagramError{Line: 0, Msg: err.Error()}
	}
	return b, nil
}

// isLetterMargin reports whether line is a margin of column letters.
func isLetterMargin(line string) bool {
	f := strings.Fields(line)
	if len(f) != Size {
		return false
	}
	for i, w := range f {
		if len(w) != 1 || (w[0]|0x20) != byte('a'+i) {
			return false
		}
	}
	return true
}

// parseRow reads one row: optional row numbers around Size cells.
func parseRow(line string, want int) ([Size]Player, error) {
	var row [Size]Player
	f := strings.Fields(line)
	if len(f) > 0 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			if n != want {
				return row, fmt.Errorf("row number %d where row %d belongs", n, want)
			}
			f = f[1:]
		}
	}
	if len(f) > 0 {
		if n, err := strconv.Atoi(f[len(f)-1]); err == nil {
			if n != want {
				return row, fmt.Errorf("row number %d where row %d belongs", n, want)
			}
			f = f[:len(f)-1]
		}
	}
	cells := strings.Join(f, "")
	if len(cells) != Size {
		return row, fmt.Errorf("row %d has %d cells, want %d", want, len(cells), Size)
	}
	for x := range Size {
		switch cells[x] {
		case '.':
		case 'x', 'X':
			row[x] = Black
		case 'o', 'O':
			row[x] = White
		default:
			return row, fmt.Errorf("row %d: unexpected %q (want '.', 'x' or 'o')", want, cells[x])
		}
	}
	return row, nil
}

// findWinner records a winning line anywhere on the board, refusing a
// position where both players have one.
func (b *Board) findWinner() error {
	for p := Point(0); p < NumCells; p++ {
		if c := b.cells[p]; c != Empty {
			w := b.winner
			b.winner = Empty
			b.checkWin(p, c)
			if b.winner == Empty {
				b.winner = w
			} else if w != Empty && w != b.winner {
				return fmt.Errorf("both players have a winning line")
			}
		}
	}
	return nil
}
