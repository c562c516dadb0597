package gomoku

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Size is the side of the board; NumCells is the number of cells.
const (
	Size     = 15
	NumCells = Size * Size
)

// Point is a cell of the board: Y()*Size + X(). NoPoint marks "no cell".
type Point uint8

// NoPoint is the zero-information point (not on the board).
const NoPoint Point = 255

// Center is the centre cell, h8 (Gomocup 7,7).
const Center = Point(Size/2*Size + Size/2)

// ErrBadPoint reports a coordinate that is malformed or off the board.
var ErrBadPoint = errors.New("bad point")

// Pt returns the point at column x and Gomocup row y (0 = top). It returns
// NoPoint when (x, y) is off the board.
func Pt(x, y int) Point {
	if !OnBoard(x, y) {
		return NoPoint
	}
	return Point(y*Size + x)
}

// OnBoard reports whether column x and row y are on the board.
func OnBoard(x, y int) bool { return uint(x) < Size && uint(y) < Size }

// X is the column, 0 (a) to 14 (o).
func (p Point) X() int { return int(p) % Size }

// Y is the Gomocup row, 0 at the top (human row 15) to 14 at the bottom (row 1).
func (p Point) Y() int { return int(p) / Size }

// Valid reports whether p is a cell of the board.
func (p Point) Valid() bool { return p < NumCells }

// String gives the human form, e.g. "h8"; NoPoint prints as "-".
func (p Point) String() string {
	if !p.Valid() {
		return "-"
	}
	return fmt.Sprintf("%c%d", 'a'+p.X(), Size-p.Y())
}

// Gomocup gives the protocol form "x,y".
func (p Point) Gomocup() string { return fmt.Sprintf("%d,%d", p.X(), p.Y()) }

// ParsePoint reads the human form: a column letter a-o (either case) and a
// row number 1-15, e.g. "h8" or "H8".
func ParsePoint(s string) (Point, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if len(t) < 2 || t[0] < 'a' || t[0] >= 'a'+Size {
		return NoPoint, fmt.Errorf("%w: %q (want a column a-o and a row 1-15, like h8)", ErrBadPoint, s)
	}
	row, err := strconv.Atoi(t[1:])
	if err != nil || row < 1 || row > Size {
		return NoPoint, fmt.Errorf("%w: %q (want a column a-o and a row 1-15, like h8)", ErrBadPoint, s)
	}
	return Pt(int(t[0]-'a'), Size-row), nil
}

// ParseGomocup reads the protocol form "x,y" (zero-based, from the top-left).
func ParseGomocup(s string) (Point, error) {
	xs, ys, ok := strings.Cut(strings.TrimSpace(s), ",")
	if !ok {
		return NoPoint, fmt.Errorf("%w: %q (want x,y)", ErrBadPoint, s)
	}
	x, err1 := strconv.Atoi(strings.TrimSpace(xs))
	y, err2 := strconv.Atoi(strings.TrimSpace(ys))
	if err1 != nil || err2 != nil {
		return NoPoint, fmt.Errorf("%w: %q (want x,y)", ErrBadPoint, s)
	}
	if !OnBoard(x, y) {
		return NoPoint, fmt.Errorf("%w: %q is off the %dx%d board", ErrBadPoint, s, Size, Size)
	}
	return Pt(x, y), nil
}

// Player is the owner of a cell: Empty, Black (x, moves first) or White (o).
type Player uint8

// The players. Empty doubles as "nobody" (no winner).
const (
	Empty Player = iota
	Black
	White
)

// Other returns the opponent: Black for White and White for Black.
func (c Player) Other() Player { return c ^ 3 }

// Char is the diagram character: '.', 'x' or 'o'.
func (c Player) Char() byte { return ".xo"[c] }

// String names the player.
func (c Player) String() string {
	switch c {
	case Black:
		return "black"
	case White:
		return "white"
	}
	return "empty"
}

// Rule decides what wins and, under Renju, what Black may play.
type Rule uint8

// The rules: Freestyle (five or more in a row wins), Standard (exactly
// five wins; an overline does not) and Renju (RIF: White wins with five or
// more, Black only with exactly five, and Black may not play a forbidden
// point: see Board.Forbidden).
const (
	Freestyle Rule = iota
	Standard
	Renju
	// NumRules is the number of rules (for tables indexed by Rule).
	NumRules
)

var ruleNames = [NumRules]string{"freestyle", "standard", "renju"}

// String is the rule's name as used in flags and stored data.
func (r Rule) String() string {
	if r < NumRules {
		return ruleNames[r]
	}
	return fmt.Sprintf("rule(%d)", uint8(r))
}

// Valid reports whether r is one of the rules.
func (r Rule) Valid() bool { return r < NumRules }

// MarshalText gives the rule's name (JSON, flags), refusing a rule that is
// not one.
func (r Rule) MarshalText() ([]byte, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("unknown %v", r)
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads a rule's name as ParseRule does.
func (r *Rule) UnmarshalText(b []byte) error {
	v, err := ParseRule(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ParseRule reads "freestyle", "standard" or "renju" (any case).
func ParseRule(s string) (Rule, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for r, name := range ruleNames {
		if t == name {
			return Rule(r), nil
		}
	}
	return Freestyle, fmt.Errorf("unknown rule %q (want freestyle, standard or renju)", s)
}

// Wins reports whether a run of n stones of c wins under r: five under
// every rule, more than five under Freestyle and, under Renju, for White.
func (r Rule) Wins(n int, c Player) bool {
	return n == 5 || n > 5 && (r == Freestyle || r == Renju && c == White)
}
