package search

import (
	"ocvist/gomoku"
	"ocvist/patterns"
)

// proofSearch proves wins by threats that need a quiet move, which the
// VCT cannot see: a depth-first proof-number search (df-pn) in which the
// attacker plays fours, threes and, outside Renju, quiet moves after
// which it would win by continuous fours (a VCF threat), and the
// defender tries every move that could refute the threat:
//
//   - against a four, its block;
//   - against a three (the attacker has a cell that makes two
//     five-points), patterns.Position.Defences: the cells that stop it
//     and every counter-four;
//   - against a VCF threat, vcfDefences: the cells of the VCF's line, the
//     cells where a defender stone could help make a five-point of the
//     defender's with the blocks the line makes it play, and every
//     counter-four. Any other stone leaves the line winning as it stands
//     (see vcfDefences): the defender's answers there are not searched,
//     and the win's length bound counts the line.
//
// The attacker's moves are heuristics (leaving one out can only lose a
// proof): a four only if its stone also makes a two or better in another
// direction, a three only if its stone makes another two or better
// besides the three, and a quiet move only where its stone makes a
// closed three or two twos. The quiet moves are generated when the
// search first chooses them (their VCF tests are the costly part), until
// then they stand as one move of proof number Config.ProofQuietPN.
//
// Positions are kept by the board's hash, their moves once generated,
// and their proof and disproof numbers. Starting numbers: a four's
// position 1 + Config.ProofForcedPN (a forced reply costs
// ProofForcedPN besides its child, so that long chains of fours are not
// followed before wider threats), a three's Config.ProofThreePN, a quiet
// move's 2 + the cells that could stop its VCF. A proven position keeps
// its winning move and the plies to the five against the longest
// defence in its proof, a bound on the win's length against every
// defence. Nodes counts the positions searched and the VCF nodes spent.
type proofSearch struct {
	pos      *patterns.Position
	a, d     gomoku.Player
	nodes    int
	maxNodes int
	stop     func() bool
	nextPoll int
	cut      bool
	quiet    bool // the attacker's quiet moves (not under Renju: see vcfDefences)
	vcf      *patterns.VCFTable

	vcfNodes, vcfDepth int    // each VCF's bounds (Config.ProofVCFNodes, ProofVCFDepth)
	threePN, quietPN   uint32 // starting proof numbers (Config.ProofThreePN, ProofQuietPN)
	forcedPN           uint32 // Config.ProofForcedPN

	tt      map[uint64]pnEntry
	kids    map[uint64]pnSpan   // a position's moves in kidBuf
	threat  map[uint64]pnThreat // defender positions under a VCF threat
	kidBuf  []pnKid
	lineBuf []gomoku.Point
	key     proofKey // what the tables hold
	vcfLine [2 * 64]gomoku.Point
}

// newProofSearch is a proof search tuned by cfg's Proof… fields.
func newProofSearch(cfg *Config) proofSearch {
	return proofSearch{vcfNodes: cfg.ProofVCFNodes, vcfDepth: cfg.ProofVCFDepth,
		threePN: uint32(cfg.ProofThreePN), quietPN: uint32(cfg.ProofQuietPN), forcedPN: uint32(cfg.ProofForcedPN)}
}

// maxProofPly bounds the proof's depth (a deeper position counts as not
// won: the search only loses proofs by it).
const maxProofPly = 100

// pnInf is an infinite proof or disproof number.
const pnInf = uint32(1) << 30

// quietMark stands, among the attacker's moves, for its quiet moves until
// they are generated.
const quietMark = gomoku.Point(253)

// pnEntry is a position's proof and disproof numbers. A proven position
// (pn 0) keeps plies, the win's length bound, and at the attacker's
// nodes move, its winning move (vcfMark: a VCF wins; the cell that makes
// two five-points for a win in three).
type pnEntry struct {
	pn, dn uint32
	plies  int32
	move   gomoku.Point
}

// pnKid is one of a position's moves and its proof and disproof numbers
// as last seen (its starting ones until it is searched).
type pnKid struct {
	move   gomoku.Point
	pn, dn uint32
}

// pnSpan locates a position's moves in kidBuf.
type pnSpan struct{ off, n int32 }

// pnThreat is a defender position after a quiet move: the attacker's VCF
// (as if it moved again), in lineBuf, and the cells that could stop it.
type pnThreat struct {
	off, n int32
	def    gomoku.Set
}

var (
	pnWon  = pnEntry{pn: 0, dn: pnInf, move: gomoku.NoPoint}
	pnLost = pnEntry{pn: pnInf, dn: 0, move: gomoku.NoPoint}
)

// won is the entry of a position won in plies (by move, at the
// attacker's).
func won(plies int, move gomoku.Point) pnEntry {
	e := pnWon
	e.plies, e.move = int32(plies), move
	return e
}

// proofKey is what a table's entries hold for: the attacker and the
// board's options (a ply limit changes what wins).
type proofKey struct {
	a    gomoku.Player
	opts gomoku.Options
}

// forget makes the next run start from empty tables.
func (s *proofSearch) forget() { s.key = proofKey{} }

// run proves a win for side, to move on pos, within maxNodes; stop, if not
// nil, is polled. It returns the winning line (at each defender node the
// answer whose win the proof found longest; to the five), the bound in
// plies on the win's length against every defence (0: no win proved) and
// the nodes used. pos is restored. The tables start empty, unless they
// already prove pos won for side (a position of the last proof: the game
// went on along it), so that a win once announced is followed through
// whatever the budget.
func (s *proofSearch) run(pos *patterns.Position, side gomoku.Player, maxNodes int, vcf *patterns.VCFTable, stop func() bool) ([]gomoku.Point, int, int) {
	s.pos, s.a, s.d, s.vcf, s.stop = pos, side, side.Other(), vcf, stop
	s.nodes, s.maxNodes, s.nextPoll, s.cut = 0, maxNodes, 0, false
	s.quiet = pos.Rule() != gomoku.Renju
	if s.tt == nil {
		s.tt, s.kids, s.threat = map[uint64]pnEntry{}, map[uint64]pnSpan{}, map[uint64]pnThreat{}
	}
	key := proofKey{side, pos.Board().Options()}
	if e, ok := s.tt[pos.Board().Hash()]; !ok || e.pn != 0 || s.key != key {
		clear(s.tt)
		clear(s.kids)
		clear(s.threat)
		s.kidBuf, s.lineBuf = s.kidBuf[:0], s.lineBuf[:0]
	}
	s.key = key
	if pos.Board().Over() {
		return nil, 0, 0
	}
	if pn, _ := s.mid(0, pnInf, pnInf); pn != 0 {
		return nil, 0, s.nodes
	}
	line := s.line()
	if line == nil {
		return nil, 0, s.nodes // a bug: no win rather than a wrong one
	}
	return line, int(s.tt[pos.Board().Hash()].plies), s.nodes
}

// mid searches the position, ply plies from the root, until its proof
// number reaches thpn or its disproof number thdn, it is settled, or the
// budget runs out, and returns its numbers. Hot (every node of the
// proof search).
func (s *proofSearch) mid(ply int, thpn, thdn uint32) (uint32, uint32) {
	p := s.pos
	h := p.Board().Hash()
	e, seen := s.tt[h]
	if seen && (e.pn >= thpn || e.dn >= thdn || e.pn == 0 || e.dn == 0) {
		return e.pn, e.dn
	}
	if s.nodes >= s.maxNodes || s.nodes >= s.nextPoll && s.poll() {
		s.cut = true
		if seen {
			return e.pn, e.dn
		}
		return 1, 1
	}
	s.nodes++
	or := p.Board().ToMove() == s.a
	side := s.a
	if !or {
		side = s.d
	}
	sp, ok := s.kids[h]
	if !ok {
		if e, done := s.expand(ply, or); done {
			s.tt[h] = e
			return e.pn, e.dn
		}
		sp = s.kids[h]
	}
	for {
		pn, dn, best, second := s.gather(sp, or)
		if pn >= thpn || dn >= thdn || pn == 0 || dn == 0 || s.cut {
			e = pnEntry{pn: pn, dn: dn, move: gomoku.NoPoint}
			if pn == 0 {
				e = s.proven(sp, or, h, side)
			}
			s.tt[h] = e
			return pn, dn
		}
		k := &s.kidBuf[int(sp.off)+best]
		if k.move == quietMark {
			sp = s.addQuiet(h, sp, best)
			continue
		}
		var tpn, tdn uint32
		if or {
			tpn, tdn = min(thpn, sat(second+1)), sat(thdn-dn+k.dn)
		} else {
			tpn, tdn = sat(thpn-pn+k.pn), min(thdn, sat(second+1))
		}
		if !s.play(k.move, side) { // cannot happen (the moves are checked): count it against the attacker
			if !or {
				s.tt[h] = pnLost
				return pnInf, 0
			}
			k.pn, k.dn = pnInf, 0
			continue
		}
		cpn, cdn := s.mid(ply+1, tpn, tdn)
		p.Undo()
		k = &s.kidBuf[int(sp.off)+best] // kidBuf may have grown
		k.pn, k.dn = cpn, cdn
	}
}

// play puts side's stone at q and reports whether the game goes on (if it
// does not, the stone is taken back).
func (s *proofSearch) play(q gomoku.Point, side gomoku.Player) bool {
	p := s.pos
	if p.Put(q, side) != nil {
		return false
	}
	if p.Board().Over() {
		p.Undo()
		return false
	}
	return true
}

// poll sets the next poll 256 nodes on and reports whether stop says to
// stop.
func (s *proofSearch) poll() bool {
	s.nextPoll = s.nodes + 256
	return s.stop != nil && s.stop()
}

// sat keeps a number within pnInf.
func sat(v uint32) uint32 { return min(v, pnInf) }

// gather combines the numbers of the moves in sp: at the attacker's nodes
// the least proof number and the sum of the disproof numbers, at the
// defender's the sum of the proof numbers (plus Config.ProofForcedPN for
// a forced reply) and the least disproof number. best is the move to
// search (the first of the least), second the next least.
func (s *proofSearch) gather(sp pnSpan, or bool) (pn, dn uint32, best int, second uint32) {
	kids := s.kidBuf[sp.off : sp.off+sp.n]
	second = pnInf
	if or {
		pn = pnInf
		for i, k := range kids {
			dn = sat(dn + k.dn)
			if k.pn < pn {
				second, pn, best = pn, k.pn, i
			} else if k.pn < second {
				second = k.pn
			}
		}
		return pn, dn, best, second
	}
	dn = pnInf
	for i, k := range kids {
		pn = sat(pn + k.pn)
		if k.dn < dn {
			second, dn, best = dn, k.dn, i
		} else if k.dn < second {
			second = k.dn
		}
	}
	if len(kids) == 1 && pn > 0 {
		pn = sat(pn + s.forcedPN)
	}
	return pn, dn, best, second
}

// proven is the entry of a node just proven through its moves: at the
// attacker's node the proven move of the shortest win, at the defender's
// the longest win among its moves and, under a VCF threat, the threat's
// own (a stone elsewhere, then the VCF).
func (s *proofSearch) proven(sp pnSpan, or bool, h uint64, side gomoku.Player) pnEntry {
	e := pnWon
	if or {
		e.plies = 1 << 30
	} else if t, ok := s.threat[h]; ok {
		e.plies = t.n
	}
	for _, k := range s.kidBuf[sp.off : sp.off+sp.n] {
		if k.pn != 0 {
			continue
		}
		c := s.tt[h^gomoku.StoneKey(side, k.move)]
		if or && c.plies < e.plies {
			e.plies, e.move = c.plies, k.move
		} else if !or {
			e.plies = max(e.plies, c.plies)
		}
	}
	e.plies++
	return e
}

// expand generates the moves of a position not seen before, into kidBuf
// and kids; a position settled at once instead gives its entry and done.
func (s *proofSearch) expand(ply int, or bool) (pnEntry, bool) {
	off := len(s.kidBuf)
	var e pnEntry
	var done bool
	if or {
		e, done = s.attackMoves(ply)
	} else {
		e, done = s.defenceMoves(ply)
	}
	if done {
		s.kidBuf = s.kidBuf[:off]
		return e, true
	}
	if len(s.kidBuf) == off {
		return pnLost, true // no move
	}
	s.kids[s.pos.Board().Hash()] = pnSpan{int32(off), int32(len(s.kidBuf) - off)}
	return pnEntry{}, false
}

// attackMoves: the attacker to move. A five wins; two five-points of the
// defender lose; one must be blocked; a cell that makes two five-points
// wins in three, a VCF in its length; otherwise its fours, threes and
// quiet moves (see proofSearch) are appended to kidBuf.
func (s *proofSearch) attackMoves(ply int) (pnEntry, bool) {
	p := s.pos
	if p.Board().Over() || ply >= maxProofPly-2 {
		return pnLost, true
	}
	if f := p.Set(patterns.MakesFive, s.a).First(); f != gomoku.NoPoint {
		return won(1, f), true
	}
	switch n := p.Count(patterns.MakesFive, s.d); {
	case n >= 2:
		return pnLost, true
	case n == 1:
		g := p.Set(patterns.MakesFive, s.d).First()
		if s.a == gomoku.Black && p.Forbidden(g) || s.endsGame() {
			return pnLost, true
		}
		s.kidBuf = append(s.kidBuf, pnKid{g, 1, 1})
		return pnEntry{}, false
	}
	if w := p.Set(patterns.MakesWin, s.a).First(); w != gomoku.NoPoint && s.room(3) {
		return won(3, w), true
	}
	four := p.Set(patterns.MakesFour, s.a)
	if !four.Empty() {
		line, ok, n := patterns.VCF(p, s.a, patterns.Limits{MaxNodes: s.vcfNodes, MaxDepth: s.vcfDepth, Table: s.vcf, Line: s.vcfLine[:0]})
		s.nodes += n
		if ok {
			return won(len(line), vcfMark), true
		}
	}
	if s.endsGame() {
		return pnLost, true
	}
	for m := range four.All() {
		if s.shapes(m, 1) {
			s.kidBuf = append(s.kidBuf, pnKid{m, 1 + s.forcedPN, 1})
		}
	}
	for m := range p.Set(patterns.MakesThree, s.a).Minus(four).All() {
		if s.shapes(m, 2) {
			s.kidBuf = append(s.kidBuf, pnKid{m, s.threePN, 1})
		}
	}
	if s.quiet {
		s.kidBuf = append(s.kidBuf, pnKid{quietMark, s.quietPN, 1})
	}
	return pnEntry{}, false
}

// shapes reports whether the attacker's stone at q makes at least n
// shapes (a two or better, overlines aside) besides a four: a four that
// makes nothing else only spends a stone.
func (s *proofSearch) shapes(q gomoku.Point, n int) bool {
	codes := s.pos.Codes(q)
	for d := range codes {
		if sh := codes[d][s.a-1]; sh != patterns.None && sh != patterns.Overline && !sh.IsFour() {
			n--
		}
	}
	return n <= 0
}

// endsGame reports whether one more stone ends the game (a draw by the
// ply limit, or a full board).
func (s *proofSearch) endsGame() bool {
	b := s.pos.Board()
	mp := b.Options().MaxPly
	return mp > 0 && b.Stones()+1 >= mp || b.Stones()+1 >= gomoku.NumCells
}

// room reports whether the board's ply limit leaves room for n more
// stones.
func (s *proofSearch) room(n int) bool {
	mp := s.pos.Board().Options().MaxPly
	return mp == 0 || s.pos.Board().Stones()+n <= mp
}

// addQuiet replaces the quiet mark (at index mark of sp) with the
// attacker's quiet moves, and returns the position's new span.
func (s *proofSearch) addQuiet(h uint64, sp pnSpan, mark int) pnSpan {
	off := len(s.kidBuf)
	for i := range int(sp.n) {
		if i != mark {
			s.kidBuf = append(s.kidBuf, s.kidBuf[int(sp.off)+i])
		}
	}
	p := s.pos
	threats := p.Set(patterns.MakesFour, s.a).Union(p.Set(patterns.MakesThree, s.a))
	for c := range p.Board().CandidateSet().Minus(threats).All() {
		if s.nodes >= s.maxNodes || s.nodes >= s.nextPoll && s.poll() { // the search stops (a move left out only loses proofs)
			s.cut = true
			break
		}
		if k, ok := s.quietMove(c); ok {
			s.kidBuf = append(s.kidBuf, k)
		}
	}
	sp = pnSpan{int32(off), int32(len(s.kidBuf) - off)}
	if sp.n == 0 {
		s.kidBuf = append(s.kidBuf, pnKid{gomoku.NoPoint, pnInf, 0}) // no move: lost
		sp.n = 1
	}
	s.kids[h] = sp
	return sp
}

// quietMove tries the attacker's quiet stone at c: it must make a closed
// three or two twos, and leave a VCF (as if the attacker moved again;
// remembered as the threat of the position after it) or a cell that
// makes two five-points.
func (s *proofSearch) quietMove(c gomoku.Point) (pnKid, bool) {
	p := s.pos
	if !s.promising(c) {
		return pnKid{}, false
	}
	p.Put(c, s.a)
	defer p.Undo()
	if !p.Set(patterns.MakesWin, s.a).Empty() { // two fours at once: a threat like a three's
		return pnKid{c, s.threePN, 1}, true
	}
	h := p.Board().Hash()
	t, ok := s.threat[h]
	if !ok {
		if t, ok = s.vcfThreat(); !ok {
			return pnKid{}, false
		}
		s.threat[h] = t
	}
	return pnKid{c, uint32(2 + t.def.Len()), 1}, true
}

// promising reports whether a quiet stone of the attacker at c could
// start a VCF: it makes a closed three, or twos in two directions.
func (s *proofSearch) promising(c gomoku.Point) bool {
	codes := s.pos.Codes(c)
	twos := 0
	for d := range codes {
		switch codes[d][s.a-1] {
		case patterns.ClosedThree:
			return true
		case patterns.Two:
			twos++
		}
	}
	return twos >= 2
}

// vcfThreat looks, the defender to move, for the attacker's VCF as if it
// moved again, and if there is one (with room for it after the
// defender's move) returns it with the cells that could stop it.
func (s *proofSearch) vcfThreat() (pnThreat, bool) {
	p := s.pos
	if p.Set(patterns.MakesFour, s.a).Empty() || !p.Set(patterns.MakesFive, s.d).Empty() || !p.Set(patterns.MakesFive, s.a).Empty() {
		return pnThreat{}, false
	}
	line, ok, n := patterns.VCF(p, s.a, patterns.Limits{MaxNodes: s.vcfNodes, MaxDepth: s.vcfDepth, Table: s.vcf, Line: s.vcfLine[:0]})
	s.nodes += n
	if !ok || !s.room(len(line)+1) {
		return pnThreat{}, false
	}
	def, ok := s.vcfDefences(line)
	if !ok {
		return pnThreat{}, false
	}
	t := pnThreat{off: int32(len(s.lineBuf)), n: int32(len(line)), def: def}
	s.lineBuf = append(s.lineBuf, line...)
	return t, true
}

// threatLine is t's VCF.
func (s *proofSearch) threatLine(t pnThreat) []gomoku.Point { return s.lineBuf[t.off : t.off+t.n] }

// vcfDefences returns the defender's moves, the defender to move and the
// attacker threatening the VCF line (as if it moved again), that could
// keep line from winning: every other move leaves it winning. Take a
// defender stone r elsewhere. A five-point is an empty cell that makes a
// five with the attacker's stones; r changes neither those stones nor,
// off the line's five-points, that a cell is empty: so after each of the
// line's attacking moves the attacker has the same five-points, the four
// the same one block and the last move its two or more, and every move
// and block of the line is free. The defender escapes only with a
// five-point of its own at some point of the line that it did not have
// without r: a window of five cells holding r, no attacker stone, and
// besides r three of the defender's stones or of the cells the line makes
// it take (its blocks; and either of the last move's five-points). Such a
// window either holds one of those cells, or its three stones are on the
// board now and r makes a four at once (patterns.MakesFour). So the set
// is: the line's cells and the attacker's five-points along it, the empty
// cells of every window of five through one of the defender's cells of
// the line that holds no attacker stone and three of its stones or
// cells, and the defender's four-making moves. ok is false if the line
// does not replay to a five. Freestyle and Standard only: under Renju a
// stone far off can change which cells are forbidden to Black.
func (s *proofSearch) vcfDefences(line []gomoku.Point) (gomoku.Set, bool) {
	p := s.pos
	b := p.Board()
	var cells, taken gomoku.Set // the line's cells; the cells the defender may be made to take
	played := 0
	side := s.a
	for _, m := range line {
		cells.Add(m)
		if side == s.d {
			taken.Add(m)
		}
		if p.Put(m, side) != nil {
			break
		}
		played++
		if side == s.a {
			taken = taken.Union(p.Set(patterns.MakesFive, s.a))
		}
		side = side.Other()
	}
	winner := b.Winner()
	for range played {
		p.Undo()
	}
	if played != len(line) || winner != s.a {
		return gomoku.Set{}, false
	}
	def := cells.Union(taken)
	for f := range taken.All() {
		for _, d := range gomoku.Dirs {
			def = def.Union(s.fourWindows(f, d, taken))
		}
	}
	def = def.Union(p.Set(patterns.MakesFour, s.d))
	for q := range def.All() {
		if b.At(q) != gomoku.Empty {
			def.Remove(q)
		}
	}
	return def, true
}

// fourWindows returns the empty cells of every window of five cells along
// d through f that holds no attacker stone and at least three cells that
// are the defender's stones or in taken.
func (s *proofSearch) fourWindows(f gomoku.Point, d gomoku.Dir, taken gomoku.Set) gomoku.Set {
	b := s.pos.Board()
	dx, dy := d.Step()
	var out gomoku.Set
	for start := -4; start <= 0; start++ {
		x0, y0 := f.X()+start*dx, f.Y()+start*dy
		if !gomoku.OnBoard(x0, y0) || !gomoku.OnBoard(x0+4*dx, y0+4*dy) {
			continue
		}
		var empty gomoku.Set
		own, clean := 0, true
		for i := range 5 {
			q := gomoku.Pt(x0+i*dx, y0+i*dy)
			switch c := b.At(q); {
			case c == s.a:
				clean = false
			case c == s.d || taken.Has(q):
				own++
			default:
				empty.Add(q)
			}
		}
		if clean && own >= 3 {
			out = out.Union(empty)
		}
	}
	return out
}

// defenceMoves: the defender to move. Its five-point refutes; two of the
// attacker's win; one must be blocked; against a cell that makes two
// five-points, Defences; against a VCF threat, vcfDefences; with no
// threat the defender is free. The moves are appended to kidBuf.
func (s *proofSearch) defenceMoves(ply int) (pnEntry, bool) {
	p := s.pos
	if !p.Set(patterns.MakesFive, s.d).Empty() || p.Board().Over() || ply >= maxProofPly-2 {
		return pnLost, true
	}
	var replies gomoku.Set
	n := p.Count(patterns.MakesFive, s.a)
	switch {
	case n >= 2:
		if !s.room(2) {
			return pnLost, true
		}
		return won(2, gomoku.NoPoint), true
	case n == 1:
		replies.Add(p.Set(patterns.MakesFive, s.a).First())
	case !p.Set(patterns.MakesWin, s.a).Empty():
		replies = p.Defences(s.d)
	case s.quiet:
		h := p.Board().Hash()
		t, ok := s.threat[h]
		if !ok {
			if t, ok = s.vcfThreat(); !ok {
				return pnLost, true
			}
			s.threat[h] = t
		}
		replies = t.def
	default:
		return pnLost, true
	}
	if s.d == gomoku.Black {
		replies = replies.Minus(p.Fouls())
	}
	switch {
	case !replies.Empty() && s.endsGame():
		return pnLost, true // a draw by the ply limit
	case replies.Empty() && n == 1 && s.room(2): // under Renju: every answer is forbidden to Black
		return won(2, gomoku.NoPoint), true
	case replies.Empty() && n == 0 && s.room(4):
		return won(4, gomoku.NoPoint), true
	case replies.Empty():
		return pnLost, true
	}
	for r := range replies.All() {
		s.kidBuf = append(s.kidBuf, pnKid{r, 1, 1})
	}
	return pnEntry{}, false
}

// line reads the proven line back from the table (see attackStep and
// defenceStep). It returns nil if the table does not hold the proof (a
// bug: no line rather than a wrong one).
func (s *proofSearch) line() []gomoku.Point {
	return readLine(s.pos, s.a, func(b *gomoku.Board) []gomoku.Point {
		if b.ToMove() == s.a {
			return s.attackStep()
		}
		return s.defenceStep()
	})
}

// attackStep is the attacker's move at a node of the proof (and the rest
// of the line when a VCF settled it): a five, the table's winning move, a
// cell that makes two five-points (after a Renju reply the proof
// settled by rule).
func (s *proofSearch) attackStep() []gomoku.Point {
	p := s.pos
	if f := p.Set(patterns.MakesFive, s.a).First(); f != gomoku.NoPoint {
		return []gomoku.Point{f}
	}
	e, ok := s.tt[p.Board().Hash()]
	switch {
	case ok && e.pn == 0 && e.move == vcfMark:
		vl, ok, _ := patterns.VCF(p, s.a, patterns.Limits{MaxNodes: vcfReadNodes, MaxDepth: s.vcfDepth, Table: s.vcf})
		if !ok || len(vl) != int(e.plies) {
			return nil
		}
		return vl
	case ok && e.pn == 0:
		return []gomoku.Point{e.move}
	case p.Set(patterns.MakesFive, s.d).Empty():
		return []gomoku.Point{p.Set(patterns.MakesWin, s.a).First()}
	}
	return nil
}

// defenceStep is the defender's move at a node of the proof: the block of
// a five-point (any legal move if it may not), else, of the answers the
// proof searched, the one whose win is longest, or a stone off the
// threat's cells and the threat's VCF if that is longer.
func (s *proofSearch) defenceStep() []gomoku.Point {
	p := s.pos
	b := p.Board()
	var fouls gomoku.Set
	if s.d == gomoku.Black {
		fouls = p.Fouls()
	}
	if fives := p.Set(patterns.MakesFive, s.a); !fives.Empty() {
		if f := fives.Minus(fouls).First(); f != gomoku.NoPoint {
			return []gomoku.Point{f}
		}
		return []gomoku.Point{s.offCell(fouls)}
	}
	h := b.Hash()
	sp, ok := s.kids[h]
	if !ok { // settled by a rule: every answer forbidden to Black
		return []gomoku.Point{s.offCell(fouls)}
	}
	best, longest := gomoku.NoPoint, int32(-1)
	for _, k := range s.kidBuf[sp.off : sp.off+sp.n] {
		c, ok := s.tt[h^gomoku.StoneKey(s.d, k.move)]
		if !ok || c.pn != 0 {
			return nil // not proven: no line
		}
		if c.plies > longest {
			best, longest = k.move, c.plies
		}
	}
	if t, ok := s.threat[h]; ok && t.n > longest {
		if off := s.offCell(t.def.Union(fouls)); off != gomoku.NoPoint {
			return append([]gomoku.Point{off}, s.threatLine(t)...)
		}
	}
	return []gomoku.Point{best}
}

// offCell is an empty cell outside not: the first candidate, else the
// first empty cell; NoPoint if there is none.
func (s *proofSearch) offCell(not gomoku.Set) gomoku.Point {
	b := s.pos.Board()
	if q := b.CandidateSet().Minus(not).First(); q != gomoku.NoPoint {
		return q
	}
	for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
		if b.At(q) == gomoku.Empty && !not.Has(q) {
			return q
		}
	}
	return gomoku.NoPoint
}
