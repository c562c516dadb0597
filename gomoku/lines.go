package gomoku

// Dir is one of the four line directions.
type Dir uint8

// The four directions, each with its step (DX, DY) in board coordinates
// (Y grows downwards, as in Gomocup).
const (
	Horizontal   Dir = iota // (1, 0)
	Vertical                // (0, 1)
	Diagonal                // (1, 1)
	AntiDiagonal            // (1, -1)
)

// Dirs lists the four directions in order.
var Dirs = [4]Dir{Horizontal, Vertical, Diagonal, AntiDiagonal}

// Step returns the direction's unit step (dx, dy).
func (d Dir) Step() (dx, dy int) {
	return dirStep[d][0], dirStep[d][1]
}

var dirStep = [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}

// Lines: every direction has at most 2*Size-1 lines. A line is kept per
// player as a bit word: the cell at position i along the line is bit
// i+WindowRadius, so a window of WindowRadius cells each side of any cell is
// a plain shift. Bits outside the line are "wall" (see lineWall).
const (
	maxLines = 2*Size - 1
	// WindowRadius is how many cells each side of a cell Window reports.
	WindowRadius = 5
	// WindowBits is the width of a window: 2*WindowRadius+1 cells, the
	// considered cell at bit WindowRadius.
	WindowBits = 2*WindowRadius + 1
	windowMask = 1<<WindowBits - 1
)

var (
	lineOf   [4][NumCells]uint8   // line index of a cell in each direction
	posOf    [4][NumCells]uint8   // position of a cell along that line
	lineWall [4][maxLines]uint32  // bits of the word that are not cells
	lineCell [4][maxLines][]Point // the cells of each line, in order
)

func init() {
	for p := Point(0); p < NumCells; p++ {
		x, y := p.X(), p.Y()
		lineOf[Horizontal][p], posOf[Horizontal][p] = uint8(y), uint8(x)
		lineOf[Vertical][p], posOf[Vertical][p] = uint8(x), uint8(y)
		lineOf[Diagonal][p], posOf[Diagonal][p] = uint8(x-y+Size-1), uint8(min(x, y))
		s := x + y
		lineOf[AntiDiagonal][p], posOf[AntiDiagonal][p] = uint8(s), uint8(x-max(0, s-(Size-1)))
	}
	for d := range Dirs {
		var n [maxLines]int
		for p := Point(0); p < NumCells; p++ {
			n[lineOf[d][p]]++
		}
		for l := range maxLines {
			lineCell[d][l] = make([]Point, n[l])
			lineWall[d][l] = ^uint32(((1 << n[l]) - 1) << WindowRadius)
		}
		for p := Point(0); p < NumCells; p++ {
			lineCell[d][lineOf[d][p]][posOf[d][p]] = p
		}
	}
}

// Window returns the cells around p along direction d as two bit masks of
// WindowBits bits: own has a bit for each stone of player c, blocked a bit
// for each opponent stone or off-board cell. Bit WindowRadius is p itself;
// lower bits lie in the direction's negative step. Guarded by
// BenchmarkWindow.
func (b *Board) Window(p Point, d Dir, c Player) (own, blocked uint32) {
	l, s := lineOf[d][p], posOf[d][p]
	own = b.lines[c-1][d][l] >> s & windowMask
	blocked = (b.lines[2-c][d][l] | lineWall[d][l]) >> s & windowMask
	return own, blocked
}

// LineWords returns the line through p in direction d as the board keeps
// it: a bit word of Black's stones, one of White's and one of the bits that
// are not cells of the line (the wall), where the cell at index i along the
// line (LineCells order) is bit i+WindowRadius; shift is p's index, so the
// window around p is word>>shift. Package patterns reads its shapes from
// these words: the board holds the one copy. Inlined in hot loops.
func (b *Board) LineWords(d Dir, p Point) (black, white, wall uint32, shift uint32) {
	l := lineOf[d][p]
	return b.lines[0][d][l], b.lines[1][d][l], lineWall[d][l], uint32(posOf[d][p])
}

// LineCells returns the cells of the line through p in direction d, in order
// of the direction's step, and p's index among them. The slice is shared:
// do not modify it.
func LineCells(p Point, d Dir) ([]Point, int) {
	return lineCell[d][lineOf[d][p]], int(posOf[d][p])
}
