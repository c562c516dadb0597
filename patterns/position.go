package patterns

import (
	"fmt"
	"math/bits"
	"slices"

	"ocvist/gomoku"
)

// Class names a set of empty cells kept by a Position for each side: the
// cells where a stone of that side would make the class's threat.
type Class uint8

// The classes. A cell may be in several.
const (
	MakesFive   Class = iota // a Five in some direction
	MakesWin                 // a StraightFour or DoubleFour, or Fours in two directions (two five-points, unstoppable)
	MakesFour                // a four of any kind in some direction
	MakesThree               // an open or broken three in some direction
	MakesDouble              // four-three or double three (a Four and a three, or threes, in different directions)
	numClasses
	// overClass is a flag kept beside the classes, not one of them: a
	// stone of the side would make an overline in some direction (under
	// Standard, and Black's under Renju, where it is a foul). It marks
	// the cells the forbidden test must look at.
	overClass = numClasses
	numFlags  = numClasses + 1
	classMask = 1<<numClasses - 1
)

var classNames = [numClasses]string{"five", "win", "four", "three", "double"}

// String names the class.
func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "class?"
}

// Position is a board together with, for every empty cell, direction and
// side, the Shape a stone there would make, kept up to date by Play, Put
// and Undo (only the empty cells on the four lines within
// gomoku.WindowRadius of the changed stone are looked up again). It also
// keeps, per side, the sets of cells of each Class and, under Renju,
// Black's forbidden points (Fouls), which are left out of Black's class
// sets: a class set holds the cells where the side may play.
//
// A Position is copied by Clone, which gives an independent position with
// an undo journal of its own; a copy by value is a go vet error (noCopy),
// since the copy would share the journal's arrays. It is not safe for
// concurrent mutation; independent positions may be used concurrently
// (the package has no mutable shared state).
type Position struct {
	state
	_ noCopy
}

// state is a Position's content, which Clone copies.
type state struct {
	b     gomoku.Board                 // holds the line words the shapes are read from (Board.LineWords)
	tab   [2]*table                    // per side-1: under Renju, Black's shapes are Standard's, White's Freestyle's
	reach uint32                       // window cells a stone changes the shapes of, for either side (table.reach)
	code  [gomoku.NumCells][4][2]Shape // shape per cell, direction, side-1; None on stones
	cnt   [gomoku.NumCells][2]uint16   // per cell, side-1: sum of shapeCount over the directions
	flags [gomoku.NumCells][2]uint8    // bit per Class (and overClass), per side-1, whatever the fouls
	sets  [2][numFlags]gomoku.Set      // the cells of each flag; Black's classes less its fouls
	// shapes counts, per side-1 and Shape, the (empty cell, direction)
	// pairs whose code is that Shape: the histogram behind ShapeCounts.
	shapes [2][NumShapes]int32

	// The undo journal: the shapes each Put replaced, oldest first, and
	// where each Put's part starts, so that Undo puts them back without
	// reading a window again. The stones put before the last Reset have no
	// frame: Undo looks their cells up again.
	journal []change
	frames  []int32

	puts uint64 // stones put (Puts)

	// Renju: Black's forbidden points, recomputed by every Put from the
	// cells whose shapes could make one (see refreshFouls), and the set
	// each Put replaced, for Undo (a journal beside frames).
	renju bool
	foul  gomoku.Set
	fouls []gomoku.Set
}

// change is a (cell, direction) and a pair of shapes, packed in bytes: the
// cell, the direction, black's shape, white's. Put and Undo list the
// shapes to set as changes and apply them in one loop; the journal holds
// the shapes a Put replaced. (One word built in a register: a struct of
// four bytes written one by one and read back whole stalls the store.)
type change uint32

func packChange(q gomoku.Point, d int, sh [2]Shape) change {
	return change(uint32(q) | uint32(d)<<8 | uint32(sh[0])<<16 | uint32(sh[1])<<24)
}

func (c change) unpack() (q gomoku.Point, d int, sb, sw Shape) {
	return gomoku.Point(c), int(c >> 8 & 3), Shape(c >> 16), Shape(c >> 24)
}

// lineStep is the point delta of one step along each direction.
var lineStep = [4]int{1, gomoku.Size, gomoku.Size + 1, 1 - gomoku.Size}

// NewPosition returns an empty position; it panics on invalid options, as
// gomoku.New does.
func NewPosition(opts gomoku.Options) *Position {
	p := &Position{}
	p.Reset(gomoku.New(opts))
	return p
}

// FromBoard returns a position holding a copy of b.
func FromBoard(b *gomoku.Board) *Position {
	p := &Position{}
	p.Reset(b)
	return p
}

// Reset makes p hold a copy of b, rebuilding every shape from scratch.
func (p *Position) Reset(b *gomoku.Board) {
	p.b = *b
	p.tab = sideTables(b.Rule())
	p.reach = p.tab[0].reach | p.tab[1].reach
	p.renju = b.Rule() == gomoku.Renju
	p.code = [gomoku.NumCells][4][2]Shape{}
	p.cnt = [gomoku.NumCells][2]uint16{}
	p.flags = [gomoku.NumCells][2]uint8{}
	p.sets = [2][numFlags]gomoku.Set{}
	p.shapes = [2][NumShapes]int32{}
	p.foul = gomoku.Set{}
	p.restartJournal()
	for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
		if p.b.At(q) == gomoku.Empty {
			for d := range gomoku.Dirs {
				p.lookup(q, d)
			}
		}
	}
	if p.renju {
		p.refreshFouls(gomoku.Set{})
	}
}

// Board is the position's board, for reading only: changing it other than
// through the Position breaks the Position.
func (p *Position) Board() *gomoku.Board { return &p.b }

// Rule is the board's rule.
func (p *Position) Rule() gomoku.Rule { return p.b.Rule() }

// Play places a stone for the side to move; see Put. It is the game's move:
// under Renju it refuses a point forbidden to Black, as gomoku.Board.Play
// does (an error wrapping gomoku.ErrForbidden), from the kept fouls.
func (p *Position) Play(q gomoku.Point) error {
	c := p.b.ToMove()
	if p.renju && c == gomoku.Black && p.foul.Has(q) && !p.b.Over() {
		return fmt.Errorf("%w: %v at %v", gomoku.ErrForbidden, p.Foul(q), q)
	}
	return p.Put(q, c)
}

// Put places a stone of c at q (errors as gomoku.Board.Put; a forbidden
// point is not refused) and updates the shapes, recording the ones it
// replaces for Undo, and under Renju Black's fouls. Guarded by
// BenchmarkPlayUndo.
func (p *Position) Put(q gomoku.Point, c gomoku.Player) error {
	if err := p.b.Put(q, c); err != nil {
		return err
	}
	p.puts++
	p.frames = append(p.frames, int32(len(p.journal)))
	var buf [4 + 4*gomoku.WindowBits]change
	chs := buf[:0]
	for d := range 4 {
		if p.code[q][d] != [2]Shape{} {
			chs = append(chs, packChange(q, d, [2]Shape{})) // a stone makes no shape
		}
	}
	p.apply(p.changed(q, chs), true)
	if p.renju {
		p.fouls = append(p.fouls, p.foul)
		p.refreshFouls(p.foul)
	}
	return nil
}

// PutUndo puts a stone of c at q (Put), calls fn, and takes the stone
// back (Undo): a look at the position after a move that leaves it as it
// was (but for Puts, which counts the stone). It returns Put's error (fn
// not called). fn must leave the position as it found it.
func (p *Position) PutUndo(q gomoku.Point, c gomoku.Player, fn func()) error {
	if err := p.Put(q, c); err != nil {
		return err
	}
	fn()
	if _, err := p.Undo(); err != nil {
		panic(err) // the stone just put is the last
	}
	return nil
}

// restartJournal empties the undo journal.
func (p *Position) restartJournal() {
	p.journal, p.frames, p.fouls = p.journal[:0], p.frames[:0], p.fouls[:0]
}

// Clone returns an independent copy of p: the same board, shapes and
// fouls, and a copy of its undo journal, so that the clone undoes p's
// stones as p would.
func (p *Position) Clone() *Position {
	c := &Position{state: p.state}
	c.journal = slices.Clone(p.journal)
	c.frames = slices.Clone(p.frames)
	c.fouls = slices.Clone(p.fouls)
	return c
}

// Undo removes the last stone and updates the shapes: it puts back the
// shapes the stone's Put replaced, or, for a stone put before the last
// Reset, looks up the cells around it again. Guarded by BenchmarkPlayUndo.
func (p *Position) Undo() (gomoku.Point, error) {
	q, err := p.b.Undo()
	if err != nil {
		return q, err
	}
	if k := len(p.frames) - 1; k >= 0 {
		start := int(p.frames[k])
		p.apply(p.journal[start:], false) // a Put changes a (cell, direction) once: any order
		p.journal, p.frames = p.journal[:start], p.frames[:k]
		if p.renju {
			cur := p.foul
			p.foul, p.fouls = p.fouls[k], p.fouls[:k]
			p.maskFouls(cur, p.foul)
		}
		return q, nil
	}
	var buf [4 * gomoku.WindowBits]change
	p.apply(p.changed(q, buf[:0]), false) // q is empty again, so it is looked up too
	if p.renju {
		p.refreshFouls(p.foul)
	}
	return q, nil
}

// changed appends to dst the empty cells on the lines through q within
// the window radius (q included when empty) whose shapes can depend on q
// (see table.reach) and now differ, with their new shapes: a stone
// changes, on each of its lines, only the windows along that line (and a
// cell is on one line through q only). Both sides' keys come from the
// board's same three line words. Hot: guarded by BenchmarkPlayUndo.
func (p *Position) changed(q gomoku.Point, dst []change) []change {
	for d := range 4 {
		bl, wh, wall, s := p.b.LineWords(gomoku.Dir(d), q)
		empty := ^(bl | wh | wall) >> s & p.reach
		for ; empty != 0; empty &= empty - 1 {
			e := uint32(bits.TrailingZeros32(empty))
			r := gomoku.Point(int(q) + (int(e)-radius)*lineStep[d])
			sh := s + e - radius
			var sb, sw Shape
			if near := p.tab[0].near; near != nil { // Freestyle: the small table (both sides)
				tb, tw, tx := ternNear[bl>>(sh+1)&nearMask], ternNear[wh>>(sh+1)&nearMask], ternNear[wall>>(sh+1)&nearMask]
				sb, sw = near[tb+2*(tw+tx)], near[tw+2*(tb+tx)]
			} else {
				tb, tw, tx := tern[bl>>sh&windowMask], tern[wh>>sh&windowMask], tern[wall>>sh&windowMask]
				sb, sw = p.tab[0].shape[tb+2*(tw+tx)], p.tab[1].shape[tw+2*(tb+tx)]
			}
			if p.code[r][d] != [2]Shape{sb, sw} { // most cells away from q keep theirs
				dst = append(dst, packChange(r, d, [2]Shape{sb, sw}))
			}
		}
	}
	return dst
}

const windowMask = 1<<gomoku.WindowBits - 1

// lookup sets the shapes of empty cell q in direction d from the line words.
func (p *Position) lookup(q gomoku.Point, d int) {
	bl, wh, wall, s := p.b.LineWords(gomoku.Dir(d), q)
	p.set(q, d, bl>>s&windowMask, wh>>s&windowMask, wall>>s&windowMask)
}

// set sets the shapes of empty cell q in direction d from its window
// (black, white and wall bits).
func (p *Position) set(q gomoku.Point, d int, bl, wh, wall uint32) {
	tb, tw, tx := tern[bl], tern[wh], tern[wall]
	if sb, sw := p.tab[0].shape[tb+2*(tw+tx)], p.tab[1].shape[tw+2*(tb+tx)]; p.code[q][d] != [2]Shape{sb, sw} {
		p.apply([]change{packChange(q, d, [2]Shape{sb, sw})}, false)
	}
}

// apply sets the shapes of each change, (cell, direction) pairs that
// differ, and updates the cells' counts, flags and sets and the
// histograms; with record it first appends the shapes it replaces to the
// journal. One loop for a whole Put or Undo: a call a cell would cost 7%
// of BenchmarkPlayUndo.
func (p *Position) apply(chs []change, record bool) {
	for _, ch := range chs {
		q, d, sb, sw := ch.unpack()
		code := &p.code[q][d]
		ob, ow := code[0], code[1]
		if record { // the same cell and direction, the old shapes
			p.journal = append(p.journal, ch&0xffff|change(ob)<<16|change(ow)<<24)
		}
		// The two sides written out: a loop over them measured 10% slower
		// (BenchmarkPlayUndo).
		if sb != ob {
			code[0] = sb
			p.shapes[0][ob]--
			p.shapes[0][sb]++
			c := &p.cnt[q][0]
			*c += shapeCount[sb] - shapeCount[ob]
			if f := classOf[*c]; f != p.flags[q][0] {
				p.setFlags(q, 0, f)
			}
		}
		if sw != ow {
			code[1] = sw
			p.shapes[1][ow]--
			p.shapes[1][sw]++
			c := &p.cnt[q][1]
			*c += shapeCount[sw] - shapeCount[ow]
			if f := classOf[*c]; f != p.flags[q][1] {
				p.setFlags(q, 1, f)
			}
		}
	}
}

// setFlags sets the class flags of q for side i+1 to f, which differs
// from the old ones, and its class sets.
func (p *Position) setFlags(q gomoku.Point, i int, f uint8) {
	old := p.flags[q][i]
	p.flags[q][i] = f
	for ch := f ^ old; ch != 0; ch &= ch - 1 {
		c := bits.TrailingZeros8(ch)
		if f>>c&1 != 0 {
			p.sets[i][c].Add(q)
		} else {
			p.sets[i][c].Remove(q)
		}
	}
}

// A cell's Class bits for one side come from its four shapes: the shapes'
// counts (shapeCount) are summed in packed 3-bit fields, kept per cell in
// Position.cnt as the shapes change, and the sum is looked up in classOf.

// Packed counts: fives, fours, threes, two-five-point lines and
// overlines, 3 bits each. classOf covers every uint16, so that its index
// needs no bounds check; the entries a position reads are few (under
// Freestyle, where no shape is an Overline, the first 4,096 only).
const (
	cntFive  = 1 << 0
	cntFour  = 1 << 3
	cntThree = 1 << 6
	cntWin   = 1 << 9
	cntOver  = 1 << 12
)

var (
	shapeCount [NumShapes]uint16
	classOf    [1 << 16]uint8
)

func init() {
	for s := range NumShapes {
		switch sh := Shape(s); {
		case sh == Five:
			shapeCount[s] = cntFive
		case sh == Four:
			shapeCount[s] = cntFour
		case sh.IsFour():
			shapeCount[s] = cntFour + cntWin
		case sh.IsThree():
			shapeCount[s] = cntThree
		case sh == Overline:
			shapeCount[s] = cntOver
		}
	}
	for n := range classOf {
		fives, fours, threes, wins, overs := n&7, n>>3&7, n>>6&7, n>>9&7, n>>12&7
		var f uint8
		if overs > 0 {
			f |= 1 << overClass
		}
		if fives > 0 {
			f |= 1 << MakesFive
		}
		if wins > 0 || fours >= 2 {
			f |= 1 << MakesWin
		}
		if fours > 0 {
			f |= 1 << MakesFour
		}
		if threes > 0 {
			f |= 1 << MakesThree
		}
		if fours >= 1 && threes >= 1 || threes >= 2 {
			f |= 1 << MakesDouble
		}
		classOf[n] = f
	}
}

// Shape is the shape a stone of side at empty cell q would make along d
// (None if q is occupied).
func (p *Position) Shape(q gomoku.Point, d gomoku.Dir, side gomoku.Player) Shape {
	return p.code[q][d][side-1]
}

// Has reports whether empty cell q is in class c for side (under Renju,
// never a point forbidden to Black).
func (p *Position) Has(q gomoku.Point, c Class, side gomoku.Player) bool {
	return p.sets[side-1][c].Has(q)
}

// Count is the number of cells in class c for side.
func (p *Position) Count(c Class, side gomoku.Player) int { return p.sets[side-1][c].Len() }

// ShapeCounts returns, for side, how many (empty cell, direction) pairs
// have each Shape: index s counts the directions in which a stone of side
// would make Shape s. Counts of None are offset (stones' cells count as
// None until placed) and carry no meaning. Kept incrementally by Put and
// Undo; the search's evaluation is a weighted sum of them.
func (p *Position) ShapeCounts(side gomoku.Player) *[NumShapes]int32 { return &p.shapes[side-1] }

// Codes returns the shapes a stone would make at empty cell q, per
// direction and side-1 (all None on a stone).
func (p *Position) Codes(q gomoku.Point) [4][2]Shape { return p.code[q] }

// Flags returns the Class bits of empty cell q for side: bit c is set when
// a stone of side there would make class c's threat (under Renju, also at
// a point forbidden to Black: see Has).
func (p *Position) Flags(q gomoku.Point, side gomoku.Player) uint8 {
	return p.flags[q][side-1] & classMask
}

// Puts counts the stones put on p (and on the Position it was copied
// from, before the copy), less the trial stones Defences puts and takes
// back: a search's work in positions searched, every ply of a threat
// search included.
func (p *Position) Puts() uint64 { return p.puts }

// Set returns the cells of class c for side (under Renju, Black's less its
// forbidden points).
func (p *Position) Set(c Class, side gomoku.Player) gomoku.Set { return p.sets[side-1][c] }

// Points appends the cells of class c for side, in increasing order.
func (p *Position) Points(dst []gomoku.Point, c Class, side gomoku.Player) []gomoku.Point {
	return p.sets[side-1][c].AppendTo(dst)
}

// Gain appends the cells where, after a stone of side at q, a second stone
// would raise the shape along d: the five-points of a four, the
// straight-four or double-four points of a three, the four points of a
// closed three, the three points of a two.
func (p *Position) Gain(dst []gomoku.Point, q gomoku.Point, d gomoku.Dir, side gomoku.Player) []gomoku.Point {
	own, blocked := p.b.Window(q, d, side)
	return appendWindow(dst, q, d, p.tab[side-1].gain[key(own, blocked)])
}

// Defence appends the cells where an opponent stone lowers the shape a
// stone of side at q would make along d (for a three: the cells that keep
// it from becoming a straight four; for a four: its five-point).
func (p *Position) Defence(dst []gomoku.Point, q gomoku.Point, d gomoku.Dir, side gomoku.Player) []gomoku.Point {
	own, blocked := p.b.Window(q, d, side)
	return appendWindow(dst, q, d, p.tab[side-1].def[key(own, blocked)])
}

// fivePoint is the five-point of the Four a stone of side at empty cell q
// makes along direction d (its one defence cell).
func (p *Position) fivePoint(q gomoku.Point, d int, side gomoku.Player) gomoku.Point {
	own, blocked := p.b.Window(q, gomoku.Dir(d), side)
	k := bits.TrailingZeros16(p.tab[side-1].def[key(own, blocked)]) - radius
	return gomoku.Point(int(q) + k*lineStep[d])
}

// appendWindow appends the cells of the window mask m around q along d.
func appendWindow(dst []gomoku.Point, q gomoku.Point, d gomoku.Dir, m uint16) []gomoku.Point {
	dx, dy := d.Step()
	for ; m != 0; m &= m - 1 {
		k := bits.TrailingZeros16(m) - radius
		dst = append(dst, gomoku.Pt(q.X()+k*dx, q.Y()+k*dy))
	}
	return dst
}

// Summary describes what a stone of one side at one cell would make.
type Summary struct {
	Shapes [4]Shape // per direction, in gomoku.Dirs order
	Fives  int      // directions with a Five
	Fours  int      // directions with a four of any kind
	Threes int      // directions with an open or broken three
	Best   Shape    // strongest shape over the directions (Overline ranks lowest)
}

// Summary describes a stone of side at empty cell q.
func (p *Position) Summary(q gomoku.Point, side gomoku.Player) Summary {
	var s Summary
	for d := range 4 {
		sh := p.code[q][d][side-1]
		s.Shapes[d] = sh
		switch {
		case sh == Five:
			s.Fives++
		case sh.IsFour():
			s.Fours++
		case sh.IsThree():
			s.Threes++
		}
		if sh != Overline && sh > s.Best {
			s.Best = sh
		}
	}
	return s
}

// Check rebuilds every shape and class set from the board and reports the
// first difference from the incremental state. It is slow; for tests.
func (p *Position) Check() error {
	var r Position
	r.Reset(&p.b)
	for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
		if r.code[q] != p.code[q] {
			return fmt.Errorf("patterns: shapes of %v are %v, rebuilt %v", q, p.code[q], r.code[q])
		}
		if r.cnt[q] != p.cnt[q] {
			return fmt.Errorf("patterns: shape counts of %v are %v, rebuilt %v", q, p.cnt[q], r.cnt[q])
		}
		if r.flags[q] != p.flags[q] {
			return fmt.Errorf("patterns: classes of %v are %v, rebuilt %v", q, p.flags[q], r.flags[q])
		}
	}
	if r.sets != p.sets {
		return fmt.Errorf("patterns: class sets differ from rebuilt")
	}
	if r.foul != p.foul {
		return fmt.Errorf("patterns: fouls %v, rebuilt %v", p.foul.AppendTo(nil), r.foul.AppendTo(nil))
	}
	for i := range p.shapes {
		for sh := Two; sh < NumShapes; sh++ {
			if r.shapes[i][sh] != p.shapes[i][sh] {
				return fmt.Errorf("patterns: side %d has %d %v codes, rebuilt %d", i+1, p.shapes[i][sh], sh, r.shapes[i][sh])
			}
		}
	}
	return p.b.Verify()
}

// noCopy makes go vet's copylocks check report a Position copied by value
// (Clone copies it).
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
