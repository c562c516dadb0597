package search

import (
	"context"
	"strings"
	"testing"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// slowVCT is the slow twin of vctSearch with noVCF: the same depth
// accounting (threat moves cost one, forced blocks are free) and the same
// attacker moves (fours and threes), but no tables, no move order and an
// exhaustive defender: against any threat it tries every empty cell near
// the stones, not just the defences patterns computes. budget bounds its
// nodes; it reports false, false when they run out.
type slowVCT struct {
	pos    *patterns.Position
	a, d   gomoku.Player
	budget int
}

func (v *slowVCT) attack(depth int) (win, ok bool) {
	if v.budget--; v.budget < 0 {
		return false, false
	}
	p := v.pos
	if !p.Set(patterns.MakesFive, v.a).Empty() {
		return true, true
	}
	switch n := p.Count(patterns.MakesFive, v.d); {
	case n >= 2:
		return false, true
	case n == 1:
		p.Put(p.Set(patterns.MakesFive, v.d).First(), v.a)
		defer p.Undo()
		if p.Board().Winner() == v.a {
			return true, true
		}
		return v.defend(depth)
	}
	if !p.Set(patterns.MakesWin, v.a).Empty() {
		return true, true
	}
	if depth == 0 {
		return false, true
	}
	threats := p.Set(patterns.MakesFour, v.a).Union(p.Set(patterns.MakesThree, v.a))
	for m := range threats.All() {
		p.Put(m, v.a)
		win, ok := v.defend(depth - 1)
		p.Undo()
		if !ok || win {
			return win, ok
		}
	}
	return false, true
}

// defend: does the attacker win whatever the defender plays? With no
// threat on the board the defender is free (the attacker has not won).
func (v *slowVCT) defend(depth int) (win, ok bool) {
	p := v.pos
	if !p.Set(patterns.MakesFive, v.d).Empty() {
		return false, true
	}
	if p.Set(patterns.MakesFive, v.a).Empty() && p.Set(patterns.MakesWin, v.a).Empty() {
		return false, true
	}
	for r := range p.Board().CandidateSet().All() {
		p.Put(r, v.d)
		win, ok := v.attack(depth)
		p.Undo()
		if !ok || !win {
			return win, ok
		}
	}
	return true, true
}

// refereeLine replays line on a copy of b with gomoku's rules: every move
// legal, colours alternating from the side to move, and the last move
// makes five for the side to move. It returns the reason it fails.
func refereeLine(b *gomoku.Board, line []gomoku.Point) string {
	r := *b
	me := r.ToMove()
	for _, m := range line {
		if r.Over() {
			return "the game ended before move " + m.String()
		}
		if err := r.Play(m); err != nil {
			return "move " + m.String() + ": " + err.Error()
		}
	}
	if r.Winner() != me {
		return "the line does not end in a five for the side to move"
	}
	return ""
}

// TestVCTMatchesExhaustive: on seeded positions under both rules the VCT
// (tables, defences from patterns, no VCF shortcut) proves exactly the
// wins that the exhaustive twin finds within the same number of threat
// moves, and every line it returns wins when replayed by gomoku.
func TestVCTMatchesExhaustive(t *testing.T) {
	runRules(t, []ruleCase{{gomoku.Freestyle, 11, 400, 250, 150, 80}, {gomoku.Standard, 13, 200, 120, 80, 40}},
		8, 30, vctMatchesExhaustive)
}

func vctMatchesExhaustive(t *testing.T, positions []*patterns.Position, want int) {
	var v vctSearch
	v.noVCF = true
	vcf := patterns.NewVCFTable(10)
	compared, wins := 0, 0
	for i, pos := range positions {
		me := pos.Board().ToMove()
		depth := 1 + i%3
		twin := slowVCT{pos: pos, a: me, d: me.Other(), budget: 100_000}
		want, ok := twin.attack(depth)
		if !ok {
			continue // too big for the twin
		}
		before := pos.Board().String()
		line, plies, _ := v.run(pos, me, depth, 1<<30, vcf, nil)
		got := plies > 0
		if pos.Board().String() != before {
			t.Fatalf("position %d: VCT did not restore the board", i)
		}
		if got != want {
			t.Fatalf("position %d, %v to move, depth %d:\n%s\nVCT %v, exhaustive %v", i, me, depth, pos.Board(), got, want)
		}
		if got {
			if why := refereeLine(pos.Board(), line); why != "" {
				t.Fatalf("position %d: line %v: %s\n%s", i, line, why, pos.Board())
			}
			if len(line) != plies {
				t.Fatalf("position %d: a win in %d plies, line %v", i, plies, line)
			}
			wins++
		}
		compared++
	}
	t.Logf("%d positions compared, %d wins", compared, wins)
	if compared < want || wins < compared/10 || wins > compared*9/10 {
		t.Fatalf("%d positions compared (want %d), %d wins: the set is too small or one-sided", compared, want, wins)
	}
}

// TestSearchLinesRefereed: every winning line Search returns (by rule,
// VCF, VCT, the proof search or the alpha-beta, whose principal variation
// mateLine carries on to the five) is replayed and judged by gomoku,
// under both rules; the lines are as long as the wins they announce.
// Every other position is searched without the proof search, which
// would take over most of the alpha-beta's wins; each of the two
// announces some.
func TestSearchLinesRefereed(t *testing.T) {
	t.Run("freestyle", func(t *testing.T) { searchLinesRefereed(t, randomPositions(12, 160, 8, 40), 30, 10) })
	t.Run("standard", func(t *testing.T) { searchLinesRefereed(t, rulePositions(gomoku.Standard, 14, 100, 8, 40), 15, 5) })
}

func searchLinesRefereed(t *testing.T, positions []*patterns.Position, want, wantSearch int) {
	noProof := DefaultConfig()
	noProof.RootProof = 0
	engines := [2]*Searcher{New(DefaultConfig()), New(noProof)}
	checked, bySearch, byProof := 0, 0, 0
	for i, pos := range positions {
		s := engines[i%2] // the proof search takes over some of the alpha-beta's wins: without it on every other
		res, err := s.Search(context.Background(), pos, Limits{Nodes: 20000})
		if err != nil {
			t.Fatal(err)
		}
		if MatePlies(res.Score) <= 0 {
			continue
		}
		if why := refereeLine(pos.Board(), res.PV); why != "" {
			t.Fatalf("position %d (%s): line %v: %s\n%s", i, res.Reason, res.PV, why, pos.Board())
		}
		checked++
		switch claimSource(res) {
		case "search":
			bySearch++
		case "proof":
			byProof++
		}
		if len(res.PV) != MatePlies(res.Score) {
			t.Fatalf("position %d (%s): score says a win in %d, line has %d plies", i, res.Reason, MatePlies(res.Score), len(res.PV))
		}
	}
	t.Logf("%d won positions, %d by the alpha-beta, %d by the proof search", checked, bySearch, byProof)
	if checked < want || bySearch < wantSearch || byProof < wantSearch {
		t.Fatalf("only %d won positions (%d by the alpha-beta, %d by the proof search), want %d (%d each)", checked, bySearch, byProof, want, wantSearch)
	}
}

// TestVCTPollsStop: the VCT polls its stop function at least every 256
// nodes plus one node's VCF, though the VCFs it runs add their nodes in
// lumps (a poll on node counts that are multiples of 256 missed most of
// them), and stops at the first true.
func TestVCTPollsStop(t *testing.T) {
	v := vctSearch{vcfNodes: DefaultConfig().VCTVCFNodes, vcfDepth: DefaultConfig().VCTVCFDepth}
	vcf := patterns.NewVCFTable(12)
	long := 0
	for i, pos := range randomPositions(21, 40, 10, 30) {
		var polls []int
		_, _, n := v.run(pos, pos.Board().ToMove(), 10, 20000, vcf, func() bool {
			polls = append(polls, v.nodes)
			return false
		})
		if n < 1000 {
			continue
		}
		long++
		last := 0
		for _, p := range append(polls, n) {
			if p-last > 256+v.vcfNodes+1 {
				t.Fatalf("position %d: %d nodes between polls (at %d of %d)", i, p-last, last, n)
			}
			last = p
		}
		calls := 0
		_, plies, n2 := v.run(pos, pos.Board().ToMove(), 10, 20000, vcf, func() bool { calls++; return calls == 3 })
		if plies > 0 || calls != 3 || n2 >= n {
			t.Errorf("position %d: stopped at the third poll: win in %d, %d polls, %d of %d nodes", i, plies, calls, n2, n)
		}
	}
	if long < 3 {
		t.Errorf("only %d of 40 VCTs ran 1,000 nodes", long)
	}
}

// TestVCTWinFollowedThrough: a win by threats, once announced, is played
// out to the five at the same small budget, whatever the defender answers.
// The position is from a match at 10,000 nodes a move (gen-seed 1331,
// game 2317): White announced a VCT win in 25 plies and then in 23, 21 and
// 19, but after Black's answer a6 — the one the line expected — a fresh
// VCT of the 2,500 nodes such a search gives it found nothing, and White
// lost the game. Now the VCT's tables are kept when they prove the new
// root won (as the proof search's are), so the win is read back: every
// move of the attacker, a block of a counter-four too, announces a win no
// longer than the last one less the two plies played, and White makes
// five.
// Black answers as the line says (after a forced block, which has no line,
// with the first of its defences), or with the last of its defences.
func TestVCTWinFollowedThrough(t *testing.T) {
	const game = "g7 e8 h6 i5 i9 g5 f6 h8 f5 e6 g8 f7 e9 g9 f10 j6 k5 d8 g6 b8 c8 e4 e10 d10 d9 f11 i8 h7 c9 f9 i10 i11 h10 g10 h11 k7 h4 c6 d7 b7 b9 a9 d5 e12 d13"
	for _, other := range []bool{false, true} {
		pos := patterns.NewPosition(gomoku.Options{})
		for _, m := range strings.Fields(game) {
			q, err := gomoku.ParsePoint(m)
			must(t, err)
			must(t, pos.Play(q))
		}
		s := New(DefaultConfig())
		claims, blocks, last := 0, 0, 0
		for !pos.Board().Over() {
			b := pos.Board()
			res, err := s.Search(context.Background(), pos, Limits{Nodes: 10_000})
			must(t, err)
			n := MatePlies(res.Score)
			if n <= 0 || last > 0 && n > last-2 {
				t.Fatalf("other answers %v, move %d: %s (%q), after a win announced in %d\n%s", other, b.Stones()+1, res.Move, res.Reason, last, history(pos))
			}
			if pos.Count(patterns.MakesFive, gomoku.Black) == 1 {
				blocks++
			}
			claims++
			last = n
			must(t, pos.Play(res.Move))
			if b.Over() {
				break
			}
			reply := gomoku.NoPoint
			switch {
			case pos.Count(patterns.MakesFive, gomoku.White) > 0:
				reply = pos.Set(patterns.MakesFive, gomoku.White).First()
			case !other && len(res.PV) > 1:
				reply = res.PV[1]
			default: // the first or the last of the defences the VCT refuted
				for q := range pos.Defences(gomoku.Black).All() {
					if reply == gomoku.NoPoint || other {
						reply = q
					}
				}
			}
			if reply == gomoku.NoPoint {
				t.Fatalf("other answers %v, move %d: no answer to %s\n%s", other, b.Stones()+1, res.Move, history(pos))
			}
			must(t, pos.Play(reply))
		}
		if w := pos.Board().Winner(); w != gomoku.White || claims < 5 || !other && blocks < 1 {
			t.Errorf("other answers %v: winner %v after %d claims (%d blocking a counter-four), want White after at least 5 (along the line, one a block)\n%s", other, w, claims, blocks, history(pos))
		}
	}
}
