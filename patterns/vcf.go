package patterns

import (
	"ocvist/gomoku"
)

// Limits bound a VCF search. The zero value means the defaults.
type Limits struct {
	MaxDepth int       // fours at most before the five (which is not counted); 0 means 20
	MaxNodes int       // nodes at most (see VCF); 0 means 100,000
	Table    *VCFTable // optional transposition table, owned by the caller
	Line     []gomoku.Point
	// Line, if it has room, receives the winning line (no allocation).
	// PlayFours plays every attacking four and its block rather than
	// settle plain fours from the table (see settled): the same answers,
	// more stones put; the slow twin of the settling (TestVCFSettledTwin).
	PlayFours bool
}

const (
	defaultVCFDepth = 20
	defaultVCFNodes = 100_000
	maxVCFDepth     = 60
)

// VCFTable remembers positions where a VCF search failed, keyed by the
// board's hash and the attacker. It belongs to one caller: it is not safe
// for concurrent use, and must not be shared between rules.
type VCFTable struct {
	// slots hold a key's upper 56 bits and, in the low byte, the depth
	// within which that position has no VCF (at most maxVCFDepth): 8
	// bytes a slot, half the cache lines of a key and a depth apart.
	slots []uint64
	mask  uint64
}

const vcfDepthBits = 0xff

// NewVCFTable returns a table of 2^bits slots (bits is clamped to 4..26).
func NewVCFTable(bits int) *VCFTable {
	bits = min(max(bits, 4), 26)
	return &VCFTable{slots: make([]uint64, 1<<bits), mask: 1<<bits - 1}
}

// Clear forgets every entry.
func (t *VCFTable) Clear() { clear(t.slots) }

var sideSalt = [3]uint64{0, 0x6a09e667f3bcc909, 0xbb67ae8584caa73b}

func (t *VCFTable) failed(k uint64, depth int) bool {
	e := t.slots[k&t.mask]
	return e&^vcfDepthBits == k&^vcfDepthBits && int(e&vcfDepthBits) >= depth
}

func (t *VCFTable) store(k uint64, depth int) {
	s := &t.slots[k&t.mask]
	if *s&^vcfDepthBits != k&^vcfDepthBits || int(*s&vcfDepthBits) < depth {
		*s = k&^vcfDepthBits | uint64(depth)
	}
}

// VCF searches for a victory by continuous fours for side, to move: every
// attacking move makes a four (or blocks the opponent's four while making
// one), every reply is the forced block, and the line ends in a five
// before the board's ply limit, if any, ends the game in a draw. It
// returns the line (attacking moves and replies alternating, ending with
// the five), whether one was found within the limits, and the nodes
// visited (at most MaxNodes; when the budget ran out ok=false proves
// nothing, and nodes == MaxNodes): the position searched and one for each
// attacking four and its block, played or settled from the table without
// playing them (settled). pos is used for the search and restored before
// return. Guarded by BenchmarkVCF.
func VCF(pos *Position, side gomoku.Player, lim Limits) (line []gomoku.Point, ok bool, nodes int) {
	s := vcfSearch{pos: pos, a: side, d: side.Other(), tt: lim.Table,
		maxNodes: lim.MaxNodes, line: lim.Line[:0], playFours: lim.PlayFours}
	if s.maxNodes <= 0 {
		s.maxNodes = defaultVCFNodes
	}
	depth := lim.MaxDepth
	if depth <= 0 {
		depth = defaultVCFDepth
	}
	depth = min(depth, maxVCFDepth)
	if pos.b.Over() {
		return s.line, false, 0
	}
	ok = s.search(depth)
	if !ok {
		s.line = s.line[:0]
	}
	return s.line, ok, s.nodes
}

type vcfSearch struct {
	pos       *Position
	a, d      gomoku.Player
	tt        *VCFTable
	nodes     int
	maxNodes  int
	cut       bool // the node budget ran out
	line      []gomoku.Point
	playFours bool // Limits.PlayFours
	moves     [maxVCFDepth + 1][64]gomoku.Point
}

// search reports whether the attacker, to move, wins by fours within depth
// attacking moves; on success the line is appended.
func (s *vcfSearch) search(depth int) bool {
	if s.nodes >= s.maxNodes {
		s.cut = true
		return false
	}
	s.nodes++
	p := s.pos
	if f := p.sets[s.a-1][MakesFive].First(); f != gomoku.NoPoint {
		s.line = append(s.line, f)
		return true
	}
	nd := p.sets[s.d-1][MakesFive].Len()
	if nd >= 2 || depth == 0 {
		return false
	}
	k := p.b.Hash() ^ sideSalt[s.a]
	if s.tt != nil && s.tt.failed(k, depth) {
		return false
	}
	moves := s.moves[depth][:0]
	if nd == 1 {
		if g := p.sets[s.d-1][MakesFive].First(); p.Has(g, MakesFour, s.a) {
			moves = append(moves, g)
		}
	} else {
		moves = s.order(moves)
	}
	for _, m := range moves {
		if s.try(m, depth) {
			return true
		}
	}
	if s.tt != nil && !s.cut {
		s.tt.store(k, depth)
	}
	return false
}

// order lists the attacker's four-making moves, those that win at once
// (two five-points) first.
func (s *vcfSearch) order(moves []gomoku.Point) []gomoku.Point {
	p := s.pos
	win := p.sets[s.a-1][MakesWin]
	four := p.sets[s.a-1][MakesFour]
	for w := range four {
		win[w] &= four[w]
		four[w] &^= win[w]
	}
	moves = win.AppendTo(moves)
	if len(moves) > 0 {
		return moves[:1]
	}
	for q := range four.All() {
		if len(moves) == cap(moves) { // stop at the buffer's capacity
			break
		}
		moves = append(moves, q)
	}
	return moves
}

// try plays attacking move m and the forced reply, and searches on.
func (s *vcfSearch) try(m gomoku.Point, depth int) bool {
	p := s.pos
	if s.settled(m, depth) {
		return false
	}
	if p.Put(m, s.a) != nil {
		return false
	}
	defer p.Undo()
	fives := &p.sets[s.a-1][MakesFive]
	n := fives.Len()
	if n == 0 {
		return false
	}
	f := fives.First()
	if p.renju && s.d == gomoku.Black {
		if won, ok := s.unblockable(m, *fives); ok {
			return won
		}
	}
	if n >= 2 && s.room(2) {
		rest := *fives
		rest.Remove(f)
		s.line = append(s.line, m, f, rest.First())
		return true
	}
	if p.Put(f, s.d) != nil {
		return false
	}
	defer p.Undo()
	if p.b.Over() { // the defender's five, or a draw by the ply limit
		return false
	}
	s.line = append(s.line, m, f)
	if s.search(depth - 1) {
		return true
	}
	s.line = s.line[:len(s.line)-2]
	return false
}

// unblockable decides, under Renju, White's four m (its five-points
// fives) when a five-point is forbidden to Black: with one five-point
// Black cannot block, with two it blocks one it may play, if any. Black
// replies there, else on its first legal point (any reply loses), and
// White makes five on another five-point: the line gets m, the reply and
// the five, if the ply limit leaves room (else no win). ok is false when
// every five-point is Black's to take, as under any rule.
func (s *vcfSearch) unblockable(m gomoku.Point, fives gomoku.Set) (won, ok bool) {
	p := s.pos
	legal := fives.Minus(p.foul)
	if legal == fives {
		return false, false
	}
	r := legal.First()
	if r == gomoku.NoPoint {
		r = p.legalReply(fives)
	}
	w := fives
	w.Remove(r)
	if r == gomoku.NoPoint || !s.room(2) {
		return false, true
	}
	s.line = append(s.line, m, r, w.First())
	return true, true
}

// room reports whether the board's ply limit leaves room for n more
// stones: a five the limit comes before is a draw.
func (s *vcfSearch) room(n int) bool {
	mp := s.pos.b.Options().MaxPly
	return mp == 0 || s.pos.b.Stones()+n <= mp
}

// block is the five-point of the one Four the attacker's move m makes:
// the defender's forced reply.
func (s *vcfSearch) block(m gomoku.Point) gomoku.Point {
	d := 0
	for s.pos.code[m][d][s.a-1] != Four {
		d++
	}
	return s.pos.fivePoint(m, d, s.a)
}

// settled reports, without playing them, whether the attacking four m and
// its block lead to a position the search would give up on its arrival:
// at depth 1 (a four that is not a win leaves no attacking move), or one
// the table knows fails. It counts that position's node as search would
// (or notes the spent budget), so that the search, its line and its
// nodes are what they would have been, at a fraction of the cost: a
// third of the fours in a middle-game search reach a known failure
// (BenchmarkSearch in package search). Only for a plain four (MakesFour,
// not MakesWin; no five-point before it, as search checked), whose one
// Four names the block's cell, and with room for both stones and a move
// after them under the board's ply limit (a limit reached by the block
// ends the line, a draw, before search counts a node); the two stones are
// played otherwise.
func (s *vcfSearch) settled(m gomoku.Point, depth int) bool {
	p := s.pos
	if s.playFours || p.flags[m][s.a-1]&(1<<MakesFour|1<<MakesWin) != 1<<MakesFour {
		return false
	}
	if mp := p.b.Options().MaxPly; mp > 0 && p.b.Stones()+2 >= mp {
		return false // a ply limit would end the game by the block: try finds out
	}
	if p.renju && s.d == gomoku.Black && p.suspect(s.block(m)) {
		return false // the block may be forbidden: try finds out
	}
	if depth > 1 {
		if s.tt == nil {
			return false
		}
		f := s.block(m)
		k := p.b.Hash() ^ gomoku.StoneKey(s.a, m) ^ gomoku.StoneKey(s.d, f) ^ sideSalt[s.a]
		if !s.tt.failed(k, depth-1) {
			return false
		}
	}
	if s.nodes >= s.maxNodes {
		s.cut = true
	} else {
		s.nodes++
	}
	return true
}

// VCFHolds reports whether line, a VCF of side's that VCF found on an
// earlier position (side's fours and the blocks alternating, ending with
// the five), still wins on pos with side to move, as VCF's search would
// play it: each four of the line is still a four whose one block is the
// line's next stone (or a double five-point, which wins), the defender
// never has a five-point the four does not take, and the line ends in a
// five. It plays the line and takes it back (pos is restored). It looks
// for no other line: false proves nothing. Under Renju it is always false
// (whether Black may block is VCF's to judge).
func VCFHolds(pos *Position, side gomoku.Player, line []gomoku.Point) bool {
	if pos.renju || pos.b.Over() || len(line) == 0 {
		return false
	}
	s := vcfSearch{pos: pos, a: side, d: side.Other()}
	puts := 0
	defer func() {
		for ; puts > 0; puts-- {
			pos.Undo()
		}
	}()
	own, their := &pos.sets[side-1][MakesFive], &pos.sets[s.d-1][MakesFive]
	for i := 0; ; i += 2 {
		if !own.Empty() {
			return true
		}
		if i+1 >= len(line) {
			return false
		}
		m := line[i]
		if n := their.Len(); n >= 2 || n == 1 && !their.Has(m) || !pos.Has(m, MakesFour, side) {
			return false
		}
		if pos.Put(m, side) != nil {
			return false
		}
		puts++
		switch n := own.Len(); {
		case n == 0:
			return false
		case n >= 2:
			return s.room(2)
		case !own.Has(line[i+1]):
			return false
		}
		if pos.Put(line[i+1], s.d) != nil {
			return false
		}
		puts++
		if pos.b.Over() {
			return false
		}
	}
}
