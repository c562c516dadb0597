package gomoku

import (
	"errors"
	"fmt"
	"math/bits"

	"ocvist/internal/splitmix"
)

// Errors of Play, Put and Undo, for errors.Is.
var (
	ErrOccupied = errors.New("cell is occupied")
	ErrOffBoard = errors.New("point is off the board")
	ErrGameOver = errors.New("game is already over")
	ErrNoMoves  = errors.New("no move to undo")
	ErrBadColor = errors.New("player must be black or white")
	// ErrForbidden: under Renju, Play refuses a point forbidden to Black
	// (Board.Forbidden); the error names the foul.
	ErrForbidden = errors.New("forbidden point")
)

// MaxRadius is the largest candidate radius a Board supports.
const MaxRadius = 4

// Options configure a Board. The zero value is freestyle, radius 2, no ply
// limit.
type Options struct {
	Rule   Rule
	Radius int // Chebyshev radius of Candidates, 1..MaxRadius; 0 means 2
	MaxPly int // the game is a draw once this many stones stand; 0 = no limit
}

// Validate checks the ranges of the options.
func (o Options) Validate() error {
	if !o.Rule.Valid() {
		return fmt.Errorf("unknown rule %d", o.Rule)
	}
	if o.Radius < 0 || o.Radius > MaxRadius {
		return fmt.Errorf("radius %d out of range 1..%d", o.Radius, MaxRadius)
	}
	if o.MaxPly < 0 {
		return fmt.Errorf("ply limit %d is negative", o.MaxPly)
	}
	return nil
}

// Board is a position with its derived views, all kept up to date by Play,
// Put and Undo. See the package documentation.
type Board struct {
	cells  [NumCells]Player
	lines  [2][4][maxLines]uint32 // per player (Black, White), direction, line
	stones Set                    // occupied cells
	hist   [NumCells]Point        // stones in the order they were placed
	n      int                    // stones on the board
	counts [3]int                 // stones per player
	hash   uint64
	opts   Options
	radius int

	winner  Player
	winFrom Point // first cell of the winning run
	winDir  Dir
	winLen  uint8
}

// New returns an empty board. It panics if the options are out of range
// (a caller bug: validate user input with Options.Validate first).
func New(opts Options) *Board {
	if err := opts.Validate(); err != nil {
		panic("gomoku: " + err.Error())
	}
	b := &Board{opts: opts, radius: opts.Radius}
	if b.radius == 0 {
		b.radius = 2
	}
	return b
}

// Options returns the options the board was made with.
func (b *Board) Options() Options { return b.opts }

// Rule is the board's rule.
func (b *Board) Rule() Rule { return b.opts.Rule }

// Radius is the Chebyshev radius of the candidate set.
func (b *Board) Radius() int { return b.radius }

// At returns the owner of cell p.
func (b *Board) At(p Point) Player { return b.cells[p] }

// Stones is the number of stones on the board.
func (b *Board) Stones() int { return b.n }

// Count is the number of stones of player c.
func (b *Board) Count(c Player) int { return b.counts[c] }

// Hash is a Zobrist hash of the stones (not of the side to move).
func (b *Board) Hash() uint64 { return b.hash }

// StoneKey is what a stone of c at p adds to Hash (by exclusive or): the
// hash of a position a few stones on, without playing them.
func StoneKey(c Player, p Point) uint64 { return zobrist[c-1][p] }

// ToMove is the side to move: Black when both have as many stones, else White.
func (b *Board) ToMove() Player {
	if b.counts[Black] > b.counts[White] {
		return White
	}
	return Black
}

// History returns the stones in placement order. The slice aliases the
// board: copy it to keep it past the next change.
func (b *Board) History() []Point { return b.hist[:b.n] }

// Last returns the last stone placed, or NoPoint on an empty board.
func (b *Board) Last() Point {
	if b.n == 0 {
		return NoPoint
	}
	return b.hist[b.n-1]
}

// Winner is the player who made a winning line, or Empty.
func (b *Board) Winner() Player { return b.winner }

// Full reports whether every cell is taken.
func (b *Board) Full() bool { return b.n == NumCells }

// Over reports whether the game has ended: a win, a full board or the ply limit.
func (b *Board) Over() bool {
	return b.winner != Empty || b.n == NumCells || (b.opts.MaxPly > 0 && b.n >= b.opts.MaxPly)
}

// WinLine returns the cells of the winning run, in order, or nil.
func (b *Board) WinLine() []Point {
	if b.winner == Empty {
		return nil
	}
	line, i := LineCells(b.winFrom, b.winDir)
	return append([]Point(nil), line[i:i+int(b.winLen)]...)
}

// Play places a stone for the side to move at p and records a win through
// it. It is the game's move: under Renju it refuses a point forbidden to
// Black with an error wrapping ErrForbidden that names the foul, and leaves
// the board as it was. Guarded by BenchmarkPlay.
func (b *Board) Play(p Point) error {
	if b.opts.Rule == Renju {
		return b.playRenju(p)
	}
	return b.Put(p, b.ToMove())
}

// playRenju is Play under Renju, out of the other rules' way.
func (b *Board) playRenju(p Point) error {
	c := b.ToMove()
	if c == Black && p.Valid() && b.cells[p] == Empty && !b.Over() {
		if f := b.Forbidden(p); f != NoFoul {
			return fmt.Errorf("%w: %v at %v", ErrForbidden, f, p)
		}
	}
	return b.Put(p, c)
}

// Put places a stone of player c at p regardless of whose turn it is and
// records a win through it. It is the placing of a stone, for setting up
// positions and for searches whose moves are legal by construction: it
// does not ask whether the point is forbidden to Black (see Play).
func (b *Board) Put(p Point, c Player) error {
	switch {
	case !p.Valid():
		return ErrOffBoard
	case c != Black && c != White:
		return ErrBadColor
	case b.Over():
		return ErrGameOver
	case b.cells[p] != Empty:
		return ErrOccupied
	}
	b.set(p, c)
	b.checkWin(p, c)
	return nil
}

// Undo removes the last stone placed and returns it.
func (b *Board) Undo() (Point, error) {
	if b.n == 0 {
		return NoPoint, ErrNoMoves
	}
	p := b.hist[b.n-1]
	b.clear(p)
	b.winner = Empty
	return p, nil
}

// Candidates appends to dst the empty cells within the radius of any stone,
// in increasing point order, and returns it.
func (b *Board) Candidates(dst []Point) []Point { return b.CandidateSet().AppendTo(dst) }

// CandidateSet returns the candidate cells as a set: the stones grown by
// the radius (a few shifts of the bit set), less the stones. It is
// computed when asked for, so that Put and Undo, which a search calls far
// more often, do not keep it (BenchmarkPlay, BenchmarkCandidates).
func (b *Board) CandidateSet() Set { return b.stones.Grow(b.radius).Minus(b.stones) }

// NumCandidates is the size of the candidate set.
func (b *Board) NumCandidates() int { return b.CandidateSet().Len() }

// IsCandidate reports whether p is empty and within the radius of a stone.
func (b *Board) IsCandidate(p Point) bool {
	if !p.Valid() || b.cells[p] != Empty {
		return false
	}
	x, y := p.X(), p.Y()
	for yy := max(y-b.radius, 0); yy <= min(y+b.radius, Size-1); yy++ {
		for xx := max(x-b.radius, 0); xx <= min(x+b.radius, Size-1); xx++ {
			if b.cells[Pt(xx, yy)] != Empty {
				return true
			}
		}
	}
	return false
}

func (b *Board) set(p Point, c Player) {
	b.cells[p] = c
	for d := range Dirs {
		b.lines[c-1][d][lineOf[d][p]] |= 1 << (posOf[d][p] + WindowRadius)
	}
	b.hist[b.n] = p
	b.n++
	b.counts[c]++
	b.hash ^= zobrist[c-1][p]
	b.stones.Add(p)
}

func (b *Board) clear(p Point) {
	c := b.cells[p]
	b.cells[p] = Empty
	for d := range Dirs {
		b.lines[c-1][d][lineOf[d][p]] &^= 1 << (posOf[d][p] + WindowRadius)
	}
	b.n--
	b.counts[c]--
	b.hash ^= zobrist[c-1][p]
	b.stones.Remove(p)
}

// checkWin records a win for c if the stone at p completes one.
func (b *Board) checkWin(p Point, c Player) {
	for d := range Dirs {
		if from, n := b.runThrough(p, Dir(d), c); n >= 5 && (n == 5 || b.opts.Rule.Wins(n, c)) {
			b.winner, b.winFrom, b.winDir, b.winLen = c, from, Dir(d), uint8(n)
			return
		}
	}
}

// runThrough returns the first cell and the length of the unbroken run of
// c's stones through p along d.
func (b *Board) runThrough(p Point, d Dir, c Player) (Point, int) {
	line, i := LineCells(p, d)
	lo, hi := i, i
	for lo > 0 && b.cells[line[lo-1]] == c {
		lo--
	}
	for hi < len(line)-1 && b.cells[line[hi+1]] == c {
		hi++
	}
	return line[lo], hi - lo + 1
}

// MakesFive reports whether a stone of c at empty cell p would win under
// the board's rule.
func (b *Board) MakesFive(p Point, c Player) bool {
	for d := range Dirs {
		own, _ := b.Window(p, Dir(d), c)
		n := runLen(own | 1<<WindowRadius)
		if n == 5 || n > 5 && b.opts.Rule.Wins(n, c) {
			return true
		}
	}
	return false
}

// runLen is the length of the run of set bits through bit WindowRadius.
func runLen(w uint32) int {
	up := bits.TrailingZeros32(^(w >> WindowRadius))
	down := bits.LeadingZeros32(^(w << (32 - WindowRadius)))
	return up + down
}

var zobrist [2][NumCells]uint64

func init() {
	src := splitmix.Source(0x0c715700c715700c) // fixed: hashes are stable across runs
	for c := range zobrist {
		for p := range zobrist[c] {
			zobrist[c][p] = src.Next()
		}
	}
}
