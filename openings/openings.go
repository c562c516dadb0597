package openings

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"ocvist/gomoku"
)

// Opening is a start position: stones placed alternately from Black.
type Opening struct {
	Moves []gomoku.Point
	Line  int // 1-based line of the opening file, 0 when not from a file
}

// String gives the moves in human form, e.g. "h8 i8 i11".
func (o Opening) String() string {
	s := make([]string, len(o.Moves))
	for i, p := range o.Moves {
		s[i] = p.String()
	}
	return strings.Join(s, " ")
}

// Format is ops as an opening file in the Gomocup offset format, one
// opening a line (each stone's dx,dy from the centre), after a comment
// line of header unless it is empty: Parse reads the openings back.
func Format(header string, ops []Opening) []byte {
	var b strings.Builder
	if header != "" {
		fmt.Fprintf(&b, "# %s\n", header)
	}
	for _, o := range ops {
		for i, p := range o.Moves {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d,%d", p.X()-gomoku.Size/2, p.Y()-gomoku.Size/2)
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// Board returns a board with the opening played under opts. It fails if a
// stone is off the board, on an occupied cell, or ends the game.
func (o Opening) Board(opts gomoku.Options) (*gomoku.Board, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	b := gomoku.New(opts)
	for i, p := range o.Moves {
		if err := b.Play(p); err != nil {
			return nil, fmt.Errorf("stone %d (%v): %w", i+1, p, err)
		}
	}
	if b.Over() {
		return nil, fmt.Errorf("the game is over after the opening")
	}
	return b, nil
}

// LineError reports a bad line of an opening file.
type LineError struct {
	Line int // 1-based
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("openings line %d: %s", e.Line, e.Msg) }

// ReadFile reads an opening file; see Parse.
func ReadFile(path string) ([]Opening, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read openings: %w", err)
	}
	defer f.Close()
	ops, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("read openings %q: %w", path, err)
	}
	return ops, nil
}

// Parse reads one opening per line in either format of the
// Gomocup managers, chosen per line:
//
//   - offset: "dx,dy, dx,dy, ..." — offsets from the centre (7,7) in
//     protocol coordinates (y grows downwards), whitespace ignored;
//   - pos: "h8i9j7" — a letter (column, a = 0) and a number (protocol row
//   - 1, counted from the top) per stone, no separators.
//
// Stones alternate starting with Black. Blank lines and lines starting with
// '#' are skipped. Each opening is checked by playing it on an empty
// freestyle board. At least one opening is required.
func Parse(r io.Reader) ([]Opening, error) {
	var out []Opening
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		var moves []gomoku.Point
		var err error
		if strings.Contains(line, ",") {
			moves, err = parseOffsets(line)
		} else {
			moves, err = parsePos(line)
		}
		if err != nil {
			return nil, &LineError{Line: n, Msg: err.Error()}
		}
		o := Opening{Moves: moves, Line: n}
		if _, err := o.Board(gomoku.Options{}); err != nil {
			return nil, &LineError{Line: n, Msg: err.Error()}
		}
		out = append(out, o)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no openings")
	}
	return out, nil
}

func parseOffsets(line string) ([]gomoku.Point, error) {
	f := strings.Split(strings.Join(strings.Fields(line), ""), ",")
	if f[len(f)-1] == "" { // a trailing comma
		f = f[:len(f)-1]
	}
	if len(f)%2 != 0 {
		return nil, fmt.Errorf("odd number of offsets (%d): want dx,dy pairs", len(f))
	}
	moves := make([]gomoku.Point, 0, len(f)/2)
	for i := 0; i < len(f); i += 2 {
		dx, err1 := strconv.Atoi(f[i])
		dy, err2 := strconv.Atoi(f[i+1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("stone %d: %q,%q is not a pair of integers", i/2+1, f[i], f[i+1])
		}
		p := gomoku.Pt(gomoku.Size/2+dx, gomoku.Size/2+dy)
		if p == gomoku.NoPoint {
			return nil, fmt.Errorf("stone %d: offset %d,%d is off the board", i/2+1, dx, dy)
		}
		moves = append(moves, p)
	}
	return moves, nil
}

func parsePos(line string) ([]gomoku.Point, error) {
	var moves []gomoku.Point
	s := strings.ToLower(strings.Join(strings.Fields(line), ""))
	for len(s) > 0 {
		c := s[0]
		j := 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		row, err := strconv.Atoi(s[1:j])
		if c < 'a' || c > 'z' || err != nil {
			return nil, fmt.Errorf("stone %d: %q is not a letter and a number like h8", len(moves)+1, s[:j])
		}
		p := gomoku.Pt(int(c-'a'), row-1)
		if p == gomoku.NoPoint {
			return nil, fmt.Errorf("stone %d: %q is off the board", len(moves)+1, s[:j])
		}
		moves = append(moves, p)
		s = s[j:]
	}
	return moves, nil
}
