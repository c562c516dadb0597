package search

import (
	"ocvist/gomoku"
	"ocvist/patterns"
)

// vctSearch proves a victory by continuous threats: the attacker moves
// only fours and threes (or the forced block of a defender's four), the
// defender tries every answer that could matter — against a four the
// block, against a three every cell that stops all of the attacker's
// open-four points plus every counter-four (patterns.Position.Defences) —
// and the attacker must win against all of them. Proven attacker nodes
// remember their move, so a winning line can be read back afterwards.
// Depth counts the attacker's threat moves; forced blocks and counter-four
// answers are free (each uses up a stone, so chains end).
type vctSearch struct {
	pos      *patterns.Position
	a, d     gomoku.Player
	nodes    int
	maxNodes int
	stop     func() bool
	nextPoll int // nodes at which attack next polls stop
	cut      bool
	noVCF    bool // tests: threes and fours only, no VCF shortcut
	vcfNodes int  // bound of each VCF tried (Config.VCTVCFNodes; 0: none)
	vcfDepth int  // and of its attacking moves (Config.VCTVCFDepth)
	vcf      *patterns.VCFTable
	win      map[uint64]vctWin // attacker node → its winning move
	fail     map[uint64]int    // attacker node → depth known not to win
	key      proofKey          // the attacker and options win holds for
	bufs     [64][]gomoku.Point
	vcfLine  [128]gomoku.Point
}

// vctWin is a proven attacker node's winning move (vcfMark: a VCF wins)
// and the plies to the five against the longest answer in its proof.
type vctWin struct {
	move  gomoku.Point
	plies int
}

// vcfMark marks an attacker node won by a VCF (read back by running it).
const vcfMark = gomoku.Point(254)

// vcfReadNodes and maxVCFRead bound the VCF that reads a proven VCF back
// (it found the win before, within far less: not a tuning number).
const (
	vcfReadNodes = 1 << 20
	maxVCFRead   = 30
)

// run searches a VCT for side on pos within depth threat moves and
// maxNodes nodes; stop, if not nil, is polled. It returns the line
// (attacker and defender moves alternating, ending in a five; at each
// defender node the answer that holds out longest in the proof), its
// length in plies (0: no win found; a bound on the win's length against
// every defence) and the nodes used. The tables start empty, unless the
// last run's already prove pos won for side (the game went on along a
// proof): then the win is read back without a search, so that a win
// once announced is followed through whatever the budget (a fresh search
// of the position after the defender's answer may not find it again
// within a smaller one).
func (v *vctSearch) run(pos *patterns.Position, side gomoku.Player, depth, maxNodes int, vcf *patterns.VCFTable, stop func() bool) ([]gomoku.Point, int, int) {
	v.pos, v.a, v.d, v.vcf, v.stop = pos, side, side.Other(), vcf, stop
	v.nodes, v.maxNodes, v.nextPoll, v.cut = 0, maxNodes, 0, false
	if v.win == nil {
		v.win, v.fail = map[uint64]vctWin{}, map[uint64]int{}
	}
	if line, plies := v.kept(pos, side, vcf); plies > 0 {
		return line, plies, v.nodes
	}
	clear(v.win)
	clear(v.fail)
	v.key = proofKey{side, pos.Board().Options()}
	if pos.Board().Over() {
		return nil, 0, v.nodes
	}
	plies := v.attack(min(depth, len(v.bufs)-1))
	if plies == 0 {
		return nil, 0, v.nodes
	}
	line := v.line()
	if line == nil {
		return nil, 0, v.nodes // a table collision or a bug: no win rather than a wrong one
	}
	return line, plies, v.nodes
}

// kept reads a win of side on pos back from the last run's tables, when
// they prove pos won for side under pos's options (the game went on along
// a proof): the line and its length in plies, or nil and 0. pos is
// restored.
func (v *vctSearch) kept(pos *patterns.Position, side gomoku.Player, vcf *patterns.VCFTable) ([]gomoku.Point, int) {
	w, ok := v.win[pos.Board().Hash()]
	if !ok || v.key != (proofKey{side, pos.Board().Options()}) || pos.Board().Over() {
		return nil, 0
	}
	v.pos, v.a, v.d, v.vcf = pos, side, side.Other(), vcf
	if line := v.line(); line != nil {
		return line, w.plies
	}
	return nil, 0
}

// forget makes the next run start from empty tables (a new game).
func (v *vctSearch) forget() { v.key = proofKey{} }

// poll sets the next poll 256 nodes on and reports whether stop, if
// any, says to stop. attack calls it once nodes reach nextPoll.
func (v *vctSearch) poll() bool {
	v.nextPoll = v.nodes + 256
	return v.stop != nil && v.stop()
}

// attack: the attacker to move; does it win by threats within depth? It
// returns the plies to the five against the defender's longest answer in
// the proof it found (0: no win found), an upper bound on the win's
// length. Hot (every VCT node) and kept in one piece: the node's hash and
// the win/fail tables are written on every exit. Guarded by
// BenchmarkKnownWins.
func (v *vctSearch) attack(depth int) int {
	if v.nodes >= v.maxNodes || v.nodes >= v.nextPoll && v.poll() {
		v.cut = true
		return 0
	}
	v.nodes++
	p := v.pos
	if p.Board().Over() { // a draw by the ply limit (the defender's five is caught by defend)
		return 0
	}
	h := p.Board().Hash()
	if f := p.Set(patterns.MakesFive, v.a).First(); f != gomoku.NoPoint {
		v.win[h] = vctWin{f, 1}
		return 1
	}
	switch n := p.Count(patterns.MakesFive, v.d); {
	case n >= 2:
		return 0
	case n == 1: // the block is forced; the threats must still stand after it
		g := p.Set(patterns.MakesFive, v.d).First()
		if v.a == gomoku.Black && p.Forbidden(g) || p.Put(g, v.a) != nil {
			return 0
		}
		plies := 1
		if p.Board().Winner() != v.a {
			plies = v.defend(depth)
			if plies > 0 {
				plies++
			}
		}
		p.Undo()
		if plies > 0 {
			v.win[h] = vctWin{g, plies}
		}
		return plies
	}
	if w := p.Set(patterns.MakesWin, v.a).First(); w != gomoku.NoPoint && v.room(3) {
		v.win[h] = vctWin{w, 3}
		return 3
	}
	if depth == 0 {
		return 0
	}
	if d, ok := v.fail[h]; ok && d >= depth {
		return 0
	}
	if !v.noVCF && v.vcfNodes > 0 && !p.Set(patterns.MakesFour, v.a).Empty() {
		line, ok, n := patterns.VCF(p, v.a, patterns.Limits{MaxNodes: v.vcfNodes, MaxDepth: v.vcfDepth, Table: v.vcf, Line: v.vcfLine[:0]})
		v.nodes += n
		if ok {
			v.win[h] = vctWin{vcfMark, len(line)}
			return len(line)
		}
	}
	for _, m := range v.threats(depth) {
		if p.Put(m, v.a) != nil {
			continue
		}
		plies := v.defend(depth - 1)
		p.Undo()
		if plies > 0 {
			v.win[h] = vctWin{m, plies + 1}
			return plies + 1
		}
		if v.cut {
			return 0
		}
	}
	v.fail[h] = depth
	return 0
}

// room reports whether the board's ply limit leaves room for n more
// stones (a win that needs more is a draw).
func (v *vctSearch) room(n int) bool {
	mp := v.pos.Board().Options().MaxPly
	return mp == 0 || v.pos.Board().Stones()+n <= mp
}

// threats lists the attacker's threat moves: double threats first, then
// fours, then threes.
func (v *vctSearch) threats(depth int) []gomoku.Point {
	p := v.pos
	four, three := p.Set(patterns.MakesFour, v.a), p.Set(patterns.MakesThree, v.a)
	double := p.Set(patterns.MakesDouble, v.a)
	buf := double.AppendTo(v.bufs[depth][:0])
	buf = four.Minus(double).AppendTo(buf)
	buf = three.Minus(double).Minus(four).AppendTo(buf)
	v.bufs[depth] = buf
	return buf
}

// defend: the defender to move; does the attacker win whatever it does?
// It returns the plies to the five against the longest answer (0: the
// defender holds).
func (v *vctSearch) defend(depth int) int {
	v.nodes++
	p := v.pos
	if !p.Set(patterns.MakesFive, v.d).Empty() || p.Board().Over() {
		return 0
	}
	var replies gomoku.Set
	n := p.Count(patterns.MakesFive, v.a)
	switch {
	case n >= 2:
		if !v.room(2) {
			return 0
		}
		return 2
	case n == 1:
		replies.Add(p.Set(patterns.MakesFive, v.a).First())
	case !p.Set(patterns.MakesWin, v.a).Empty():
		replies = p.Defences(v.d)
	default:
		return 0 // no threat: the defender is free
	}
	if replies = v.legal(replies); replies.Empty() { // under Renju: every answer is forbidden to Black
		switch {
		case n == 1 && v.room(2):
			return 2 // any move, then the five
		case n == 0 && v.room(4):
			return 4 // any move, the winning threat, a block, the five
		}
		return 0
	}
	longest := 0
	for r := range replies.All() {
		if p.Put(r, v.d) != nil {
			continue
		}
		plies := v.attack(depth)
		p.Undo()
		if plies == 0 {
			return 0
		}
		longest = max(longest, plies+1)
	}
	return longest
}

// line reads the proven line back from the win table, choosing at each
// defender node the answer that holds out longest (reply).
func (v *vctSearch) line() []gomoku.Point {
	return readLine(v.pos, v.a, func(b *gomoku.Board) []gomoku.Point {
		if b.ToMove() == v.d {
			return []gomoku.Point{v.reply()}
		}
		p := v.pos
		m := p.Set(patterns.MakesFive, v.a).First()
		if m == gomoku.NoPoint {
			w, ok := v.win[b.Hash()]
			if !ok && p.Set(patterns.MakesFive, v.d).Empty() {
				// After a Renju reply that defend did not search (every
				// defence forbidden to Black): the winning threat.
				w, ok = vctWin{p.Set(patterns.MakesWin, v.a).First(), 3}, p.Set(patterns.MakesWin, v.a).Len() > 0
			}
			if !ok {
				return nil // a table collision or a bug: no line rather than a wrong one
			}
			m = w.move
		}
		if m == vcfMark {
			vl, ok, _ := patterns.VCF(p, v.a, patterns.Limits{MaxNodes: vcfReadNodes, MaxDepth: maxVCFRead, Table: v.vcf})
			if !ok {
				return nil
			}
			return vl // the rest of the line, to the five
		}
		return []gomoku.Point{m}
	})
}

// readLine plays a proven line out on p from the position where attacker
// a is to move: step gives the next moves of the line at each position
// reached (one, or the rest of a line that a VCF settles, the two sides
// alternating), until a has five. It undoes every move it played, and
// returns nil when a step gives no move or an illegal one, or the game
// ends otherwise: no line rather than a wrong one.
func readLine(p *patterns.Position, a gomoku.Player, step func(b *gomoku.Board) []gomoku.Point) []gomoku.Point {
	var line []gomoku.Point
	defer func() {
		for range line {
			p.Undo()
		}
	}()
	for len(line) < 2*gomoku.NumCells {
		b := p.Board()
		if b.Winner() == a {
			return line
		}
		if b.Over() {
			return nil
		}
		moves := step(b)
		if len(moves) == 0 || moves[0] == gomoku.NoPoint {
			return nil
		}
		for _, q := range moves {
			if p.Put(q, b.ToMove()) != nil {
				return nil
			}
			line = append(line, q)
		}
	}
	return nil
}

// reply picks the defender's move when reading a line back: block a
// five-point, else, of the answers defend tried (Defences), the one the
// attacker's proof takes longest to beat.
func (v *vctSearch) reply() gomoku.Point {
	p := v.pos
	if fives := p.Set(patterns.MakesFive, v.a); !fives.Empty() {
		if f := v.legal(fives).First(); f != gomoku.NoPoint {
			return f
		}
		return v.legal(p.Board().CandidateSet()).First() // Renju: Black cannot block
	}
	if p.Set(patterns.MakesWin, v.a).Empty() {
		return gomoku.NoPoint
	}
	best, longest := gomoku.NoPoint, -1
	for r := range v.legal(p.Defences(v.d)).All() {
		if p.Put(r, v.d) != nil {
			continue
		}
		k := 1
		if p.Set(patterns.MakesFive, v.a).Empty() {
			k = v.win[p.Board().Hash()].plies
		}
		p.Undo()
		if k > longest {
			best, longest = r, k
		}
	}
	if best == gomoku.NoPoint { // Renju: every defence is forbidden to Black
		return v.legal(p.Board().CandidateSet()).First()
	}
	return best
}

// legal is set without the defender's forbidden points (Renju, Black).
func (v *vctSearch) legal(set gomoku.Set) gomoku.Set {
	if v.d == gomoku.Black {
		return set.Minus(v.pos.Fouls())
	}
	return set
}
