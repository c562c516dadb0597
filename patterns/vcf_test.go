package patterns

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"ocvist/gomoku"
)

// boardFives lists side's five-points by gomoku's own win check (no
// tables): the independent referee of VCF lines.
func boardFives(b *gomoku.Board, side gomoku.Player) []gomoku.Point {
	var fp []gomoku.Point
	for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
		if b.At(q) == gomoku.Empty && b.MakesFive(q, side) {
			fp = append(fp, q)
		}
	}
	return fp
}

// refereeLine plays a VCF line on a copy of b, checking with gomoku alone
// that every attacking move leaves the defender no five-point to play and
// makes a five-point of its own, every reply is a five-point of the
// attacker, and the last move wins.
func refereeLine(t *testing.T, b0 *gomoku.Board, side gomoku.Player, line []gomoku.Point) {
	t.Helper()
	b := *b0
	for i, q := range line {
		if i%2 == 1 {
			if !b.MakesFive(q, side) {
				t.Fatalf("reply %d %v is not the attacker's five-point (line %v)", i, q, line)
			}
			must(t, b.Put(q, side.Other()))
			continue
		}
		last := i == len(line)-1
		if !last {
			if df := boardFives(&b, side.Other()); len(df) > 1 || len(df) == 1 && df[0] != q {
				t.Fatalf("move %d %v: the defender can make five at %v (line %v)", i, q, df, line)
			}
		}
		must(t, b.Put(q, side))
		if !last && len(boardFives(&b, side)) == 0 {
			t.Fatalf("move %d %v makes no four (line %v)", i, q, line)
		}
	}
	if b.Winner() != side {
		t.Fatalf("line %v does not end in a five\n%s", line, &b)
	}
}

// TestVCFLong: known wins of 8 to 11 fours (9 to
// 12 attacking moves with the five) from real games. The line is refereed
// move by move with gomoku's win check, and one four fewer is not enough.
func TestVCFLong(t *testing.T) {
	for i, tc := range longVCFs {
		pos := diagram(t, gomoku.Freestyle, tc.board)
		side := gomoku.Black
		if tc.side == "white" {
			side = gomoku.White
		}
		if tc.depth < 8 {
			t.Fatalf("position %d: depth %d < 8", i, tc.depth)
		}
		tt := NewVCFTable(16)
		line, ok, nodes := VCF(pos, side, Limits{MaxDepth: 30, Table: tt})
		if !ok {
			t.Errorf("position %d: no VCF found (%d nodes)", i, nodes)
			continue
		}
		if err := pos.Check(); err != nil {
			t.Fatal(err)
		}
		if fours := len(line) / 2; fours < tc.depth || len(line)%2 != 1 {
			t.Errorf("position %d: a line of %d moves (%d fours) beats the known minimum of %d fours", i, len(line), fours, tc.depth)
		}
		refereeLine(t, pos.Board(), side, line)
		if _, ok, _ := VCF(pos, side, Limits{MaxDepth: tc.depth - 1, MaxNodes: 1 << 22}); ok {
			t.Errorf("position %d: a win within %d moves", i, tc.depth-1)
		}
		if _, ok, _ := VCF(pos, side, Limits{MaxDepth: tc.depth, MaxNodes: 1 << 22}); !ok {
			t.Errorf("position %d: no win within %d moves", i, tc.depth)
		}
	}
}

// naiveVCF searches every four-making sequence with gomoku alone: the
// attacker, to move, plays any cell that leaves it a five-point (blocking
// the defender's five-point if it has one), the defender takes a
// five-point, to depth attacking moves. A board the ply limit has ended
// is a draw.
func naiveVCF(b *gomoku.Board, a gomoku.Player, depth int) bool {
	if b.Over() {
		return false
	}
	if len(boardFives(b, a)) > 0 {
		return true
	}
	df := boardFives(b, a.Other())
	if len(df) >= 2 || depth == 0 {
		return false
	}
	for m := gomoku.Point(0); m < gomoku.NumCells; m++ {
		if b.At(m) != gomoku.Empty || len(df) == 1 && m != df[0] {
			continue
		}
		b.Put(m, a)
		won := false
		if fp := boardFives(b, a); len(fp) > 0 && !b.Over() {
			b.Put(fp[0], a.Other())
			won = b.Winner() == gomoku.Empty && naiveVCF(b, a, depth-1)
			b.Undo()
		}
		b.Undo()
		if won {
			return true
		}
	}
	return false
}

// TestVCFAgainstExhaustive: acceptance 4, the other way. On positions of
// random play, VCF within 3 attacking moves exists exactly when the naive
// search of every four-making sequence finds one; "no VCF" answers are
// therefore proofs within that depth. A third of the boards have a ply
// limit a few stones on, which can end the game (a draw) before the five.
func TestVCFAgainstExhaustive(t *testing.T) {
	positions := 400
	if testing.Short() {
		positions = 100
	}
	rng := rand.New(rand.NewPCG(21, 3))
	var cand []gomoku.Point
	wins, none := 0, 0
	for n := 0; n < positions; {
		stones := 20 + rng.IntN(30)
		opts := gomoku.Options{Rule: gomoku.Rule(n % 2), Radius: 1}
		if n%3 == 2 {
			opts.MaxPly = stones + 1 + rng.IntN(6)
		}
		pos := NewPosition(opts)
		for k := 0; k < stones && !pos.Board().Over(); k++ {
			var q gomoku.Point
			q, cand = randomMove(rng, pos.Board(), cand)
			must(t, pos.Play(q))
		}
		if pos.Board().Over() {
			continue
		}
		n++
		side := pos.Board().ToMove()
		line, ok, _ := VCF(pos, side, Limits{MaxDepth: 3})
		b := *pos.Board()
		want := naiveVCF(&b, side, 3)
		if ok != want {
			t.Fatalf("VCF says %v, exhaustive search says %v, for %v\n%s", ok, want, side, pos.Board())
		}
		if ok {
			wins++
			refereeLine(t, pos.Board(), side, line)
		} else {
			none++
		}
	}
	t.Logf("%d positions with a VCF, %d proved without", wins, none)
	if wins < positions/20 || none < positions/20 {
		t.Errorf("unbalanced sample: %d wins, %d none", wins, none)
	}
}

// TestVCFNodeBound: the search stops at its node budget.
func TestVCFNodeBound(t *testing.T) {
	pos := diagram(t, gomoku.Freestyle, longVCFs[0].board)
	side := gomoku.White
	for _, max := range []int{1, 5, 20} {
		_, ok, nodes := VCF(pos, side, Limits{MaxNodes: max})
		if ok || nodes != max {
			t.Errorf("MaxNodes %d: ok=%v after %d nodes", max, ok, nodes)
		}
	}
	if err := pos.Check(); err != nil {
		t.Fatal(err)
	}
}

// playRandom plays up to n moves of randomMove on pos, stopping at the
// game's end, and reports whether the game goes on.
func playRandom(t *testing.T, rng *rand.Rand, pos *Position, n int) bool {
	var cand []gomoku.Point
	for k := 0; k < n && !pos.Board().Over(); k++ {
		var q gomoku.Point
		q, cand = randomMove(rng, pos.Board(), cand)
		must(t, pos.Play(q))
	}
	return !pos.Board().Over()
}

// TestFivePoint: a plain four (MakesFour, not MakesWin) makes exactly one
// five-point, the one fivePoint names from the Four's direction, on
// positions of random play under both rules: what VCF's settled assumes.
func TestFivePoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	checked := 0
	for n := 0; n < 600; n++ {
		pos := NewPosition(gomoku.Options{Rule: gomoku.Rule(n % 2), Radius: 1})
		if !playRandom(t, rng, pos, 10+rng.IntN(50)) {
			continue
		}
		for _, side := range []gomoku.Player{gomoku.Black, gomoku.White} {
			if pos.Count(MakesFive, side) > 0 {
				continue // VCF wins at once there; settled is never asked
			}
			plain := pos.Set(MakesFour, side).Minus(pos.Set(MakesWin, side))
			for m := range plain.All() {
				d, fours := 0, 0
				for k := range 4 {
					if pos.Shape(m, gomoku.Dir(k), side) == Four {
						d, fours = k, fours+1
					}
				}
				f := pos.fivePoint(m, d, side)
				must(t, pos.Put(m, side))
				fives := pos.Points(nil, MakesFive, side)
				if fours != 1 || len(fives) != 1 || fives[0] != f || !pos.Board().MakesFive(f, side) {
					t.Fatalf("%v at %v: %d Fours, five-points after it %v, fivePoint %v\n%s", side, m, fours, fives, f, pos.Board())
				}
				_, err := pos.Undo()
				must(t, err)
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d plain fours checked", checked)
	}
}

// TestVCFSettledTwin: VCF settling plain fours without playing them
// (settled) finds the same lines, answers and node counts as playing them,
// over sequences of searches sharing one table (as the alpha-beta's probes
// do), with budgets that run out and ones that do not, and boards whose ply
// limit comes within the line; it puts fewer stones.
func TestVCFSettledTwin(t *testing.T) {
	type answer struct {
		line  string
		ok    bool
		nodes int
	}
	run := func(settle bool) (out []answer, puts uint64) {
		rng := rand.New(rand.NewPCG(29, 7))
		tab := NewVCFTable(12)
		for n := 0; n < 300; n++ {
			stones := 20 + rng.IntN(40)
			opts := gomoku.Options{Rule: gomoku.Rule(n % 2), Radius: 1}
			if n%3 == 2 { // a ply limit a few stones on
				opts.MaxPly = stones + 1 + rng.IntN(4)
			}
			pos := NewPosition(opts)
			if !playRandom(t, rng, pos, stones) {
				continue
			}
			before := pos.Puts()
			for _, lim := range []Limits{{MaxDepth: 1}, {MaxDepth: 2}, {MaxNodes: 30, MaxDepth: 16}, {MaxNodes: 300, MaxDepth: 16}, {MaxDepth: 12}} {
				for _, side := range []gomoku.Player{gomoku.Black, gomoku.White} {
					lim.Table, lim.PlayFours = tab, !settle
					line, ok, nodes := VCF(pos, side, lim)
					out = append(out, answer{fmt.Sprint(line), ok, nodes})
				}
			}
			puts += pos.Puts() - before
		}
		return out, puts
	}
	got, gotPuts := run(true)
	want, wantPuts := run(false)
	if len(got) != len(want) {
		t.Fatalf("%d searches, twin %d", len(got), len(want))
	}
	wins := 0
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("search %d: %+v, playing every four: %+v", i, got[i], want[i])
		}
		if got[i].ok {
			wins++
		}
	}
	t.Logf("%d searches, %d wins; %d stones put, %d playing every four", len(got), wins, gotPuts, wantPuts)
	if wins < len(got)/20 || gotPuts >= wantPuts*9/10 {
		t.Errorf("a weak check: %d wins of %d; %d stones put against %d", wins, len(got), gotPuts, wantPuts)
	}
}

// TestVCFHolds: a VCF line holds on its own position; after a defender's
// stone it holds only where the defender missed it: then VCF finds a win
// too, and a stone on the line's first four never leaves it. Random play
// under freestyle and standard; the position is restored.
func TestVCFHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	lines, held, broken := 0, 0, 0
	for n := 0; lines < 60 && n < 4000; n++ {
		pos := NewPosition(gomoku.Options{Rule: gomoku.Rule(n % 2), Radius: 1})
		if !playRandom(t, rng, pos, 20+rng.IntN(30)) {
			continue
		}
		side := pos.Board().ToMove()
		line, ok, _ := VCF(pos, side, Limits{})
		if !ok || len(line) < 3 {
			continue
		}
		lines++
		before := pos.Board().String()
		if !VCFHolds(pos, side, line) {
			t.Fatalf("the line %v does not hold on its own position\n%s", line, pos.Board())
		}
		for q := range gomoku.Point(gomoku.Size * gomoku.Size) {
			if pos.Board().At(q) != gomoku.Empty || pos.Board().MakesFive(q, side.Other()) {
				continue
			}
			must(t, pos.Put(q, side.Other()))
			holds := VCFHolds(pos, side, line)
			_, found, _ := VCF(pos, side, Limits{})
			switch {
			case holds && !found:
				t.Fatalf("after %v the line %v holds but VCF finds no win\n%s", q, line, pos.Board())
			case holds:
				held++
			default:
				broken++
			}
			if q == line[0] && holds {
				t.Fatalf("a stone on the first four %v leaves the line %v", q, line)
			}
			if _, err := pos.Undo(); err != nil {
				t.Fatal(err)
			}
		}
		if pos.Board().String() != before {
			t.Fatalf("the position changed\n%s", pos.Board())
		}
		if err := pos.Check(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d lines; after a defender's stone %d held, %d did not", lines, held, broken)
	if lines < 60 || held == 0 || broken == 0 {
		t.Errorf("%d lines (want 60), %d held, %d broken: the sample proves little", lines, held, broken)
	}
}
