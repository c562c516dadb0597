package patterns

import (
	"iter"

	"ocvist/gomoku"
)

// Level is the level of the hierarchy that produced a filter result.
type Level uint8

// The levels, in the order they are tried.
const (
	Opening    Level = iota // empty board: the centre
	Trivial                 // the seed's trivial: five-points
	Trivial2nd              // the seed's trivial2nd: two five-points at once, or the defence against them
	Force                   // the seed's force: double threats that survive mini-force, or the opponent's
	Radius                  // every empty cell within the board's radius of a stone
	numLevels
)

var levelNames = [numLevels]string{"opening", "trivial", "trivial2nd", "force", "radius"}

// String names the level as the seed does.
func (l Level) String() string {
	if l < numLevels {
		return levelNames[l]
	}
	return "level?"
}

// Config tunes the filter. The zero value is the default.
type Config struct {
	NoMiniForce bool // accept every double threat without looking for a refutation
	ForceNodes  int  // node budget of one mini-force search; 0 means 300
	ForceDepth  int  // opponent fours looked at in a row by mini-force; 0 means 10, at most 15
}

// Result is what Filter found. Its slices are reused by the next Filter
// call that is given this Result.
type Result struct {
	Moves  []gomoku.Point // the candidates, in increasing point order
	Level  Level
	Attack bool          // the candidates are the mover's threats (else defence)
	Side   gomoku.Player // whose shapes decided the level: the mover when Attack, else the opponent
	Nodes  int           // mini-force nodes spent
}

// Filter applies the seed's hierarchy for side, to move on pos (see the
// package documentation), and returns the candidates. Pass the previous
// Result to reuse its buffers: after warm-up a call allocates nothing. pos
// is used for look-ahead (mini-force, defence checks) and restored before
// return. If the game is over the result has no moves, and under Renju
// also when Black may play no empty point (every one is forbidden: its
// pass is not modelled). The threats behind
// a forcing level are not listed (self-play never reads them): ask
// pos.Threats(dst, res.Side) for them. Guarded by BenchmarkFilter.
func Filter(pos *Position, side gomoku.Player, cfg Config, res Result) Result {
	res = Result{Moves: res.Moves[:0], Side: side, Attack: true}
	b := &pos.b
	opp := side.Other()
	switch {
	case b.Over():
		return res
	case b.Stones() == 0:
		res.Level = Opening
		res.Moves = append(res.Moves, gomoku.Center)
		return res
	}
	own, their := &pos.sets[side-1], &pos.sets[opp-1]
	if !own[MakesFive].Empty() {
		return decided(res, Trivial, true, own[MakesFive])
	}
	if !their[MakesFive].Empty() {
		if blocks := pos.legal(side, their[MakesFive]); !blocks.Empty() {
			return decided(res, Trivial, false, blocks)
		} // else Black cannot block on a forbidden point: lost, the levels below choose
	}
	if wins := pos.winCells(side); !wins.Empty() {
		return decided(res, Trivial2nd, true, wins)
	}
	if !pos.winCells(opp).Empty() {
		if def := pos.Defences(side); !def.Empty() {
			return decided(res, Trivial2nd, false, def)
		}
	}
	if !own[MakesDouble].Empty() || !their[MakesDouble].Empty() {
		set, n := pos.forces(side, cfg)
		res.Nodes = n
		if !set.Empty() {
			return decided(res, Force, true, set)
		}
		set, n = pos.forces(opp, cfg)
		res.Nodes += n
		if set = pos.legal(side, set); !set.Empty() {
			return decided(res, Force, false, set)
		}
	}
	res.Level = Radius
	res.Moves = pos.candidates(side, res.Moves)
	return res
}

// candidates appends the Radius candidates side may play: under Renju,
// Black's less its forbidden points (and, if no candidate is left, every
// other empty cell Black may play).
func (p *Position) candidates(side gomoku.Player, dst []gomoku.Point) []gomoku.Point {
	if !p.renju || side != gomoku.Black {
		return p.b.Candidates(dst)
	}
	if set := p.b.CandidateSet().Minus(p.foul); !set.Empty() {
		return set.AppendTo(dst)
	}
	for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
		if p.b.At(q) == gomoku.Empty && !p.foul.Has(q) {
			dst = append(dst, q)
		}
	}
	return dst
}

// decided fills res with the cells of set.
func decided(res Result, l Level, attack bool, set gomoku.Set) Result {
	res.Level, res.Attack = l, attack
	if !attack {
		res.Side = res.Side.Other()
	}
	res.Moves = set.AppendTo(res.Moves)
	return res
}

// Defences returns side's answers to the opponent's two-five-point threats
// (its open threes and the like; under Renju also White's fours whose one
// five-point is forbidden to Black): the cells where side's stone leaves
// the opponent no such cell, plus side's four-making moves
// (counter-fours). When no single cell stops every threat, the cells that
// stop some are returned with the fours instead. Under Renju Black's
// forbidden points are none of them (the set may then be empty). pos is
// used for look-ahead and restored. It is the filter's Trivial2nd defence
// and the search's move set in such positions.
func (p *Position) Defences(side gomoku.Player) gomoku.Set {
	kill, any := p.killers(side.Other(), side)
	set := kill
	if set.Empty() {
		set = any
	}
	return p.legal(side, set.Union(p.sets[side-1][MakesFour]))
}

// Killers returns the cells where a stone of side leaves the opponent no
// cell that makes two five-points (under Renju, nor a White four whose
// five-point is forbidden to Black) nor a five-point, empty when no single
// cell does; never a point forbidden to side. pos is used for look-ahead
// and restored.
func (p *Position) Killers(side gomoku.Player) gomoku.Set {
	kill, _ := p.killers(side.Other(), side)
	return kill
}

// killers returns the cells where a stone of def leaves att no cell that
// wins (winCells: two five-points, or under Renju White's forcing fours)
// nor a five-point (kill), and the union of the cells that could stop
// some of them (any). Only the common stops of every such cell (see
// stopSets) can be killers; each one def may play is checked by playing
// it.
func (p *Position) killers(att, def gomoku.Player) (kill, any gomoku.Set) {
	wins := p.winCells(att)
	all, any := p.stopSets(wins.All(), att, allDirs)
	for q := range p.legal(def, all).All() {
		if p.Put(q, def) != nil {
			continue
		}
		p.puts-- // a look, not a position searched (Puts)
		if p.winCells(att).Empty() && p.sets[att-1][MakesFive].Empty() {
			kill.Add(q)
		}
		p.Undo()
	}
	return kill, any
}

// allDirs selects every direction in a stops mask.
const allDirs = 0xf

// stops returns the cells where an opponent stone keeps a stone of side at
// q from making, along the directions in the mask dirs (bit d for
// direction d), the fours it would make there: q itself and those fours'
// five-points. For a cell q that makes two five-points these are exactly
// the cells that stop it.
func (p *Position) stops(q gomoku.Point, side gomoku.Player, dirs uint8) gomoku.Set {
	var s gomoku.Set
	s.Add(q)
	var buf [8]gomoku.Point
	for _, d := range gomoku.Dirs {
		if dirs>>d&1 != 0 && p.code[q][d][side-1].IsFour() {
			for _, f := range p.Gain(buf[:0], q, d, side) {
				s.Add(f)
			}
		}
	}
	return s
}

// stopSets returns the cells that stop every one of points (all) and the
// cells that stop at least one (any), as stops defines them. It is the
// one computation behind the filter's defence (killers) and a three's
// defence cells (threeDefence).
func (p *Position) stopSets(points iter.Seq[gomoku.Point], side gomoku.Player, dirs uint8) (all, any gomoku.Set) {
	first := true
	for q := range points {
		s := p.stops(q, side, dirs)
		any = any.Union(s)
		if first {
			all, first = s, false
		} else {
			all = all.Intersect(s)
		}
	}
	return all, any
}

// forces returns side's double-threat cells that mini-force does not
// refute, and the nodes spent.
func (p *Position) forces(side gomoku.Player, cfg Config) (gomoku.Set, int) {
	set := p.sets[side-1][MakesDouble]
	if cfg.NoMiniForce {
		return set, 0
	}
	mf := miniForce{pos: p, a: side, d: side.Other(), maxNodes: cfg.ForceNodes, depth: cfg.ForceDepth}
	if mf.maxNodes <= 0 {
		mf.maxNodes = 300
	}
	if mf.depth <= 0 {
		mf.depth = 10
	}
	var out gomoku.Set
	for m := range set.All() {
		if !mf.refuted(m) {
			out.Add(m)
		}
	}
	return out, mf.nodes
}

// miniForce is the seed's mini-force: after attacker a plays a double
// threat, can the defender d get away, by blocking every threat with one
// stone or by a sequence of fours (its own VCF, or fours that end in a
// block)? The search budget is per double-threat move; when it runs out
// the force is accepted.
type miniForce struct {
	pos      *Position
	a, d     gomoku.Player
	nodes    int
	budget   int
	maxNodes int
	depth    int
	buf      [16][32]gomoku.Point
}

// refuted plays m for the attacker and reports whether the defender
// survives.
func (mf *miniForce) refuted(m gomoku.Point) bool {
	if mf.pos.Put(m, mf.a) != nil {
		return true
	}
	mf.budget = mf.maxNodes
	ok := mf.survives(min(mf.depth, len(mf.buf)-1))
	mf.pos.Undo()
	return ok
}

// survives: the defender to move; does it escape the attacker's threats?
// Hot (the self-play filter's forcing check) and kept in one piece.
// Guarded by BenchmarkFilter.
func (mf *miniForce) survives(depth int) bool {
	if mf.budget--; mf.budget < 0 {
		return false
	}
	mf.nodes++
	p, a, d := mf.pos, mf.a, mf.d
	if p.sets[d-1][MakesFive].Len() > 0 {
		return true // the defender wins first
	}
	switch n := p.sets[a-1][MakesFive].Len(); {
	case n >= 2:
		return false
	case n == 1:
		return mf.blockFour(p.sets[a-1][MakesFive].First(), depth)
	}
	if !p.winCells(d).Empty() || p.winCells(a).Empty() {
		return true // the defender's straight four comes first, or no threat is left
	}
	if kill, _ := p.killers(a, d); kill.Len() > 0 {
		return true
	}
	if depth == 0 {
		return false
	}
	fours := p.sets[d-1][MakesFour].AppendTo(mf.buf[depth][:0])
	for _, f := range fours {
		if p.Put(f, d) != nil {
			continue
		}
		ok := false
		switch n := p.sets[d-1][MakesFive].Len(); {
		case n >= 2:
			ok = true
		case n == 1:
			g := p.sets[d-1][MakesFive].First()
			if !p.mayPlay(a, g) {
				ok = true // Renju: Black cannot block on a forbidden point
			} else if p.Put(g, a) == nil {
				ok = p.b.Winner() != a && mf.survives(depth-1)
				p.Undo()
			}
		}
		p.Undo()
		if ok {
			return true
		}
	}
	return false
}

// blockFour: the defender must take f, the attacker's five-point; then the
// attacker, to move, answers a four if the block made one and otherwise
// wins if it still has two five-points to make.
func (mf *miniForce) blockFour(f gomoku.Point, depth int) bool {
	p, a, d := mf.pos, mf.a, mf.d
	if !p.mayPlay(d, f) {
		return false // Renju: Black cannot block on a forbidden point
	}
	if p.Put(f, d) != nil {
		return true
	}
	defer p.Undo()
	switch n := p.sets[d-1][MakesFive].Len(); {
	case n >= 2:
		return true
	case n == 1:
		g := p.sets[d-1][MakesFive].First()
		if !p.mayPlay(a, g) || p.Put(g, a) != nil {
			return true
		}
		defer p.Undo()
		if p.b.Winner() == a {
			return false
		}
		return depth > 0 && mf.survives(depth-1)
	}
	return p.winCells(a).Empty() && p.sets[a-1][MakesFive].Empty()
}
