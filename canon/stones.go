package canon

import (
	"errors"
	"fmt"
	"slices"

	"ocvist/gomoku"
)

// ErrBadKey is wrapped by every error about a malformed key or stone list;
// test for it with errors.Is.
var ErrBadKey = errors.New("canon: bad key")

// Stone is a stone at column X, row Y of some frame (a key's frame after
// Decode) owned by P, which is gomoku.Black or gomoku.White.
type Stone struct {
	X, Y int
	P    gomoku.Player
}

// tokenLen is the length of one key token, CCRRs.
const tokenLen = 5

// Decode reads the stones of a token string in its own frame: column CC,
// row RR. w and h are one more than the largest column and row (0, 0 for
// ""). Any well-formed token list is accepted — tokens out of order and
// boxes not starting at 0 included (Validate checks those) — so Decode
// also reads the non-canonical images of a position. Columns and rows must
// be below gomoku.Size and no cell may appear twice. Errors wrap
// ErrBadKey; Decode never panics.
func Decode(key string) (stones []Stone, w, h int, err error) {
	if len(key)%tokenLen != 0 {
		return nil, 0, 0, fmt.Errorf("%w: length %d is not a multiple of %d", ErrBadKey, len(key), tokenLen)
	}
	var seen [gomoku.Size]uint16
	stones = make([]Stone, 0, len(key)/tokenLen)
	for i := 0; i < len(key); i += tokenLen {
		s, err := decodeToken(key[i : i+tokenLen])
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%w: token %d %q: %v", ErrBadKey, i/tokenLen+1, key[i:i+tokenLen], err)
		}
		if seen[s.Y]&(1<<s.X) != 0 {
			return nil, 0, 0, fmt.Errorf("%w: token %d %q: cell already has a stone", ErrBadKey, i/tokenLen+1, key[i:i+tokenLen])
		}
		seen[s.Y] |= 1 << s.X
		w, h = max(w, s.X+1), max(h, s.Y+1)
		stones = append(stones, s)
	}
	return stones, w, h, nil
}

func decodeToken(t string) (Stone, error) {
	var s Stone
	for k, d := range []*int{&s.X, &s.Y} {
		a, b := t[2*k], t[2*k+1]
		if a < '0' || a > '9' || b < '0' || b > '9' {
			return s, fmt.Errorf("%s is not two digits", [2]string{"column", "row"}[k])
		}
		if *d = int(a-'0')*10 + int(b-'0'); *d >= gomoku.Size {
			return s, fmt.Errorf("%s %d is off the %dx%d board", [2]string{"column", "row"}[k], *d, gomoku.Size, gomoku.Size)
		}
	}
	switch t[4] {
	case 'x':
		s.P = gomoku.Black
	case 'o':
		s.P = gomoku.White
	default:
		return s, fmt.Errorf("stone %q is not x or o", t[4])
	}
	return s, nil
}

// Encode writes stones as a token string without choosing a symmetry: the
// stones are moved to their box's corner and sorted by row, then column.
// It is the identity image; Key gives the canonical one. The stones' box
// must fit on the board, each stone must be Black or White, and no cell
// may hold two stones; errors wrap ErrBadKey.
func Encode(stones []Stone) (string, error) {
	g, err := gridOf(stones)
	if err != nil || g.n == 0 {
		return "", err
	}
	codes := make([]uint16, g.n)
	g.scan(Identity, codes, nil)
	return keyString(codes), nil
}

// Key returns the canonical key of stones given in any frame (any
// translation; the box must fit on the board). Errors are those of Encode.
func Key(stones []Stone) (string, error) {
	g, err := gridOf(stones)
	if err != nil || g.n == 0 {
		return "", err
	}
	key, _, _ := g.canonical()
	return key, nil
}

// gridOf checks stones and loads them into a trimmed grid.
func gridOf(stones []Stone) (grid, error) {
	var g grid
	if len(stones) == 0 {
		return g, nil
	}
	x0, y0, x1, y1 := stones[0].X, stones[0].Y, stones[0].X, stones[0].Y
	for _, s := range stones {
		x0, y0, x1, y1 = min(x0, s.X), min(y0, s.Y), max(x1, s.X), max(y1, s.Y)
	}
	if x1-x0 >= gomoku.Size || y1-y0 >= gomoku.Size || x1-x0 < 0 || y1-y0 < 0 {
		return g, fmt.Errorf("%w: stones span more than %dx%d", ErrBadKey, gomoku.Size, gomoku.Size)
	}
	for _, s := range stones {
		x, y := s.X-x0, s.Y-y0
		switch {
		case s.P != gomoku.Black && s.P != gomoku.White:
			return g, fmt.Errorf("%w: stone at %d,%d has no colour", ErrBadKey, s.X, s.Y)
		case g.rows[y]&(1<<x) != 0:
			return g, fmt.Errorf("%w: two stones at %d,%d", ErrBadKey, s.X, s.Y)
		}
		g.add(x, y, s.P == gomoku.Black)
	}
	g.trim()
	return g, nil
}

// Validate reports whether key is a canonical key of format Version: it
// decodes, its tokens are strictly sorted by row then column, its box
// starts at column 0 and row 0, and it is the smallest of its 8 images.
// Errors wrap ErrBadKey.
func Validate(key string) error {
	stones, _, _, err := Decode(key)
	if err != nil || len(stones) == 0 {
		return err
	}
	sorted := slices.IsSortedFunc(stones, func(a, b Stone) int {
		if a.Y != b.Y {
			return a.Y - b.Y
		}
		return a.X - b.X
	})
	if !sorted {
		return fmt.Errorf("%w: tokens not sorted by row, then column", ErrBadKey)
	}
	minX, minY := stones[0].X, stones[0].Y // stones[0] is in the top row
	for _, s := range stones {
		minX = min(minX, s.X)
	}
	if minX != 0 || minY != 0 {
		return fmt.Errorf("%w: box starts at column %d, row %d, not 0, 0", ErrBadKey, minX, minY)
	}
	if canon, _ := Key(stones); canon != key {
		return fmt.Errorf("%w: not the smallest image of its position (that is %q)", ErrBadKey, canon)
	}
	return nil
}
