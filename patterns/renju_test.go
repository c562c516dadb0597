package patterns

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ocvist/gomoku"
)

// renjuTally counts what the twin saw over the positions checked.
type renjuTally struct {
	positions, cells                                    int // positions; cells the twin judged (the others have too few stones)
	doubleThree, doubleFour, overline, falseThree, none int // positions with at least one
	points                                              [4]int
	deepest                                             int
}

// check compares, on every empty cell of pos, the twin's verdict with the
// position's kept fouls (Forbidden, Foul) and with the board's referee.
func (tl *renjuTally) check(t *testing.T, pos *Position, how string) {
	t.Helper()
	b := pos.Board()
	g := gridOf(b)
	near := g.naiveNear()
	var seen [4]bool
	falseThree := false
	for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
		if b.At(q) != gomoku.Empty {
			if pos.Forbidden(q) {
				t.Fatalf("%s: the stone at %v is in the fouls\n%s", how, q, b)
			}
			continue
		}
		want := gomoku.NoFoul
		if near[q.Y()][q.X()] >= 4 {
			var st naiveStats
			want = g.naiveFoul(q.X(), q.Y(), 1, &st)
			tl.cells++
			tl.deepest = max(tl.deepest, st.deepest)
			falseThree = falseThree || st.falseThree
			if ref := b.Forbidden(q); ref != want {
				t.Fatalf("%s: at %v the board's referee says %v, the twin %v\n%s", how, q, ref, want, b)
			}
		}
		if got := pos.Foul(q); got != want || pos.Forbidden(q) != (want != gomoku.NoFoul) {
			t.Fatalf("%s: at %v Foul %v (Forbidden %v), the twin %v\n%s", how, q, got, pos.Forbidden(q), want, b)
		}
		seen[want] = true
		tl.points[want]++
	}
	tl.positions++
	count := func(n *int, c bool) {
		if c {
			*n++
		}
	}
	count(&tl.doubleThree, seen[gomoku.FoulDoubleThree])
	count(&tl.doubleFour, seen[gomoku.FoulDoubleFour])
	count(&tl.overline, seen[gomoku.FoulOverline])
	count(&tl.falseThree, falseThree)
	count(&tl.none, !seen[1] && !seen[2] && !seen[3])
}

// TestForbiddenAgainstNaive: the fast forbidden test (the fouls Position
// keeps through Put, table-driven, bounded at gomoku.FoulDepth) and the
// board's referee against the slow twin (literal, unbounded) on every
// empty cell of 100,000 positions: a third of them from renju self-play
// with the filter (which must never offer Black a forbidden point), a
// third from random play in which Black avoids forbidden points, a third
// from random stones put with no regard for them (Black's shapes crowd
// there).
func TestForbiddenAgainstNaive(t *testing.T) {
	total := 100_000
	if testing.Short() {
		total = 10_000
	}
	var tl renjuTally
	rng := rand.New(rand.NewPCG(31, 41))
	var cand []gomoku.Point
	var res Result
	for game := 0; tl.positions < total; game++ {
		pos := NewPosition(gomoku.Options{Rule: gomoku.Renju, Radius: 1 + game%2})
		kind := []string{"filter self-play", "random legal play", "random stones"}[game%3]
		for !pos.Board().Over() && tl.positions < total {
			b := pos.Board()
			side := b.ToMove()
			var q gomoku.Point
			switch game % 3 {
			case 0:
				res = Filter(pos, side, Config{}, res)
				if len(res.Moves) == 0 {
					t.Fatalf("game %d: no move for %v\n%s", game, side, b)
				}
				for _, m := range res.Moves {
					if side == gomoku.Black && b.Forbidden(m) != gomoku.NoFoul {
						t.Fatalf("game %d: the filter (%v) offers Black the forbidden %v\n%s", game, res.Level, m, b)
					}
				}
				q = res.Moves[rng.IntN(len(res.Moves))]
			case 1:
				for tries := 0; ; tries++ {
					q, cand = randomMove(rng, b, cand)
					if side == gomoku.White || b.Forbidden(q) == gomoku.NoFoul || tries == 100 {
						break
					}
				}
			case 2:
				q, cand = randomMove(rng, b, cand)
			}
			if err := pos.Play(q); errors.Is(err, gomoku.ErrForbidden) {
				if game%3 != 2 {
					t.Fatalf("game %d: %v", game, err)
				}
				must(t, pos.Put(q, side))
			} else {
				must(t, err)
			}
			tl.check(t, pos, kind)
		}
	}
	t.Logf("%d positions, %d cells judged by the twin; positions with a double three %d, a double four %d, an overline %d, a false three %d, no forbidden point %d; forbidden points: double three %d, double four %d, overline %d; deepest recursion of the twin: level %d",
		tl.positions, tl.cells, tl.doubleThree, tl.doubleFour, tl.overline, tl.falseThree, tl.none,
		tl.points[gomoku.FoulDoubleThree], tl.points[gomoku.FoulDoubleFour], tl.points[gomoku.FoulOverline], tl.deepest)
	if min(tl.doubleThree, tl.doubleFour, tl.overline, tl.falseThree) < total/200 {
		t.Errorf("a weak check: too few positions of some foul")
	}
}

// renjuGolden reads gomoku's hand-picked renju positions
// (../gomoku/testdata/renju.txt): each case's name, its board under Renju,
// the point marked '?' and the verdict there.
func renjuGolden(t *testing.T) []struct {
	name string
	pos  *Position
	q    gomoku.Point
	want gomoku.Foul
} {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "gomoku", "testdata", "renju.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []struct {
		name string
		pos  *Position
		q    gomoku.Point
		want gomoku.Foul
	}
	for _, part := range strings.Split(string(data), "\n== ")[1:] {
		head, body, _ := strings.Cut(part, "\n")
		i := strings.LastIndex(head, ": ")
		want := gomoku.Foul(255)
		for f := gomoku.NoFoul; f <= gomoku.FoulDoubleThree; f++ {
			if i > 0 && f.String() == head[i+2:] {
				want = f
			}
		}
		q := gomoku.NoPoint
		var rows []string
		for _, line := range strings.Split(body, "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if x := strings.IndexByte(line, '?'); x >= 0 {
				q, line = gomoku.Pt(x, len(rows)), strings.Replace(line, "?", ".", 1)
			}
			rows = append(rows, line)
		}
		if want == 255 || q == gomoku.NoPoint {
			t.Fatalf("renju.txt: bad case %q", head)
		}
		out = append(out, struct {
			name string
			pos  *Position
			q    gomoku.Point
			want gomoku.Foul
		}{head[:i], diagram(t, gomoku.Renju, strings.Join(rows, "\n")), q, want})
	}
	return out
}

// TestRenjuGolden: the fast test and the slow twin give the hand-picked
// verdicts, and the fast test agrees with the twin on every other cell
// of those boards.
func TestRenjuGolden(t *testing.T) {
	cases := renjuGolden(t)
	if len(cases) < 15 {
		t.Fatalf("%d cases", len(cases))
	}
	var tl renjuTally
	for _, tc := range cases {
		g := gridOf(tc.pos.Board())
		var st naiveStats
		if got := g.naiveFoul(tc.q.X(), tc.q.Y(), 1, &st); got != tc.want {
			t.Errorf("%s: the twin says %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.pos.Foul(tc.q); got != tc.want || tc.pos.Forbidden(tc.q) != (tc.want != gomoku.NoFoul) {
			t.Errorf("%s: Foul %v, want %v", tc.name, got, tc.want)
		}
		tl.check(t, tc.pos, tc.name)
	}
}

// TestRenjuIncremental: under Renju, random stones put (Black's forbidden
// points too) and undone, on a position and on copies of it, keep the
// fouls and Black's class sets equal to a rebuild from scratch.
func TestRenjuIncremental(t *testing.T) {
	steps := 40_000
	if testing.Short() {
		steps = 8_000
	}
	rng := rand.New(rand.NewPCG(37, 43))
	var cand []gomoku.Point
	for n, game := 0, 0; n < steps; game++ {
		pos := NewPosition(gomoku.Options{Rule: gomoku.Renju, Radius: 1 + game%3})
		cp := pos
		for k := 0; k < 300 && n < steps; k++ {
			n++
			if k == 60 {
				cp = pos.Clone() // a clone undoes the stones it did not put from its copy of the journal
			}
			if cp.Board().Stones() > 0 && (cp.Board().Over() || rng.IntN(3) == 0) {
				if _, err := cp.Undo(); err != nil {
					t.Fatal(err)
				}
			} else {
				var q gomoku.Point
				q, cand = randomMove(rng, cp.Board(), cand)
				must(t, cp.Put(q, cp.Board().ToMove()))
			}
			if n%3 == 0 {
				if err := cp.Check(); err != nil {
					t.Fatalf("game %d step %d: %v\n%s", game, k, err, cp.Board())
				}
			}
		}
	}
}

// Constructed renju positions. In the first three White's l4 makes a four
// (i7 j6 k5 l4) whose only five-point, h8, is forbidden to Black: a double
// three, an overline, a double four (Black's g9 and m3 close the diagonal's
// ends). Then Black's double four at h8; a Black three whose two
// straight-four points, f8 and j8, are overlines; and White's four on h8
// made.
var (
	renjuThree = `
...............
...............
...............
...............
...............
...............
......x........
.....xx........
.......xo......
.......x.o.....
..........o....
...............
............x..
...............
...............`
	renjuOverline = `
o..............
...............
o..............
...............
.......x.......
.......x.......
......xx.......
...............
.......xo......
.......x.o.....
..........o....
...............
............x..
...............
...............`
	renjuFours = `
...............
...............
...............
...............
...............
...............
......x........
...oxxx........
.......xo......
.......x.o.....
.......x..o....
.......o.......
............x..
...............
...............`
	blackDoubleFour = `
..............o
...............
...............
.......o.......
.......x.......
.......x.......
.......x.......
...oxxx........
...............
...............
...............
...............
...............
...............
o.o.o..........`
	falseRow = `
...............
...............
...............
...............
.....x...x.....
.....x...x.....
.....x...x.....
......xxx......
.....x...x.....
.....x...x.....
...............
...............
...............
...............
...............`
	fourOnForbidden = `
...............
...............
...............
...............
...............
...............
......x........
.....xx........
.......xo......
.......x.o.....
..........o....
...........o...
............x..
...............
x..............`
)

func pt(t *testing.T, s string) gomoku.Point {
	t.Helper()
	q, err := gomoku.ParsePoint(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func names(ps []gomoku.Point) []string {
	out := make([]string, len(ps))
	for i, q := range ps {
		out[i] = q.String()
	}
	return out
}

// TestRenjuFilter: a forbidden point is never Black's candidate, neither
// to attack nor to defend; a Black threat that only forbidden points
// complete is none; White's four whose block is forbidden wins. Each
// position is also read under Standard, where the same stones mean
// otherwise.
func TestRenjuFilter(t *testing.T) {
	x, o := gomoku.Black, gomoku.White
	for _, tc := range []struct {
		name, board     string
		side            gomoku.Player
		standard, renju string // "level attack moves"; moves "radius" for the Radius candidates
	}{
		{"black's double four", blackDoubleFour, x, "trivial2nd true [h8]", "radius true radius"},
		{"white's four on a forbidden double three", renjuThree, o, "force false [h8 g7]", "trivial2nd true [l4]"},
		{"black defends it", renjuThree, x, "force true [h8 g7]", "trivial2nd false [l4]"},
		{"white's four on a forbidden overline", renjuOverline, o, "radius true radius", "trivial2nd true [l4]"},
		{"white's four on a forbidden double four", renjuFours, o, "trivial2nd false [h9 h8 i8 l4]", "trivial2nd true [l4]"},
		{"a black three with forbidden ends", falseRow, o, "trivial2nd false [g10 i10 h9 e8 f8 j8 k8]", "radius true radius"},
		{"black cannot block on a forbidden point", fourOnForbidden, x, "trivial false [h8]", "radius true radius"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rule := range []gomoku.Rule{gomoku.Standard, gomoku.Renju} {
				pos := diagram(t, rule, tc.board)
				res := filterOf(t, pos, tc.side, Config{})
				moves := fmt.Sprint(names(res.Moves))
				if res.Level == Radius {
					want := pos.Board().CandidateSet()
					if tc.side == x {
						want = want.Minus(pos.Fouls())
					}
					if moves == fmt.Sprint(names(want.AppendTo(nil))) {
						moves = "radius"
					}
				}
				got := fmt.Sprintf("%v %v %s", res.Level, res.Attack, moves)
				want := map[gomoku.Rule]string{gomoku.Standard: tc.standard, gomoku.Renju: tc.renju}[rule]
				if got != want {
					t.Errorf("%v: %s, want %s", rule, got, want)
				}
				for _, m := range res.Moves {
					if tc.side == x && pos.Forbidden(m) {
						t.Errorf("%v: Black's candidate %v is forbidden", rule, m)
					}
				}
			}
		})
	}
}

// TestRenjuThreats: Black's three whose straight-four points are
// forbidden is no threat; White's four whose five-point is forbidden has
// no defence.
func TestRenjuThreats(t *testing.T) {
	for _, tc := range []struct {
		board           string
		side            gomoku.Player
		standard, renju string
	}{
		{falseRow, gomoku.Black, "[open-three [f8 j8] [f8 j8]]", "[]"},
		{fourOnForbidden, gomoku.White, "[four [h8] [h8]]", "[four [h8] []]"},
	} {
		for _, rule := range []gomoku.Rule{gomoku.Standard, gomoku.Renju} {
			pos := diagram(t, rule, tc.board)
			var got []string
			for _, th := range pos.Threats(nil, tc.side) {
				got = append(got, fmt.Sprintf("%v %v %v", th.Shape, names(th.Points()), names(th.Defence())))
			}
			if s := fmt.Sprint(got); s != map[gomoku.Rule]string{gomoku.Standard: tc.standard, gomoku.Renju: tc.renju}[rule] {
				t.Errorf("%v, %v's threats: %s", rule, tc.side, s)
			}
		}
	}
}

// refereeRenju plays a VCF line on a copy of b with gomoku alone, under
// Renju: no Black stone on a point the board's referee calls forbidden;
// every attacking move but the last leaves the defender no five-point and
// makes one of its own; every reply takes a five-point of the attacker,
// unless the defender is Black and every one is forbidden to it (then
// any legal reply loses); the last move wins. It returns the number of
// such replies.
func refereeRenju(t *testing.T, b0 *gomoku.Board, side gomoku.Player, line []gomoku.Point) (unblocked int) {
	t.Helper()
	b := *b0
	for i, q := range line {
		c := side
		if i%2 == 1 {
			c = side.Other()
		}
		if c == gomoku.Black && b.Forbidden(q) != gomoku.NoFoul {
			t.Fatalf("move %d %v is forbidden to Black (line %v)\n%s", i, q, line, &b)
		}
		if i%2 == 1 {
			fives := boardFives(&b, side)
			blockable := false
			for _, f := range fives {
				blockable = blockable || c == gomoku.White || b.Forbidden(f) == gomoku.NoFoul
			}
			if !b.MakesFive(q, side) {
				if blockable {
					t.Fatalf("reply %d %v blocks none of %v (line %v)", i, q, fives, line)
				}
				unblocked++
			}
		} else if i < len(line)-1 {
			if df := boardFives(&b, side.Other()); len(df) > 1 || len(df) == 1 && df[0] != q {
				t.Fatalf("move %d %v: the defender can make five at %v (line %v)", i, q, df, line)
			}
		}
		must(t, b.Put(q, c))
		if i%2 == 0 && i < len(line)-1 && len(boardFives(&b, side)) == 0 {
			t.Fatalf("move %d %v makes no four (line %v)", i, q, line)
		}
	}
	if b.Winner() != side {
		t.Fatalf("line %v does not end in a five\n%s", line, &b)
	}
	return unblocked
}

// TestVCFRenjuForbiddenBlock: White's four whose only five-point is
// forbidden to Black wins: Black replies on its first legal point and
// White makes five. Under Standard the same four is blocked there.
// Black's double four, a win under Standard, is no move under Renju.
func TestVCFRenjuForbiddenBlock(t *testing.T) {
	for _, tc := range []struct {
		name, board     string
		side            gomoku.Player
		standard, renju string
	}{
		{"double three", renjuThree, gomoku.White, "[]", "[l4 e11 h8]"},
		{"overline", renjuOverline, gomoku.White, "[]", "[l4 b15 h8]"},
		{"double four", renjuFours, gomoku.White, "[]", "[l4 e11 h8]"},
		{"black's double four", blackDoubleFour, gomoku.Black, "[h8 i8 h7]", "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rule := range []gomoku.Rule{gomoku.Standard, gomoku.Renju} {
				pos := diagram(t, rule, tc.board)
				for _, tt := range []*VCFTable{nil, NewVCFTable(10)} {
					line, ok, _ := VCF(pos, tc.side, Limits{MaxDepth: 3, Table: tt})
					want := map[gomoku.Rule]string{gomoku.Standard: tc.standard, gomoku.Renju: tc.renju}[rule]
					if got := fmt.Sprint(names(line)); got != want || ok != (want != "[]") {
						t.Fatalf("%v: VCF %v %s, want %s", rule, ok, got, want)
					}
					if ok && rule == gomoku.Renju {
						refereeRenju(t, pos.Board(), tc.side, line)
					}
				}
				must(t, pos.Check())
			}
		})
	}
}

// naiveVCFRenju is naiveVCF under Renju, with gomoku alone: Black never
// plays a point the board's referee forbids; Black blocks a four on its
// first five-point it may play, and a four it cannot block wins.
func naiveVCFRenju(b *gomoku.Board, a gomoku.Player, depth int) bool {
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
		if a == gomoku.Black && b.Forbidden(m) != gomoku.NoFoul {
			continue
		}
		b.Put(m, a)
		won := false
		if fp := boardFives(b, a); len(fp) > 0 && !b.Over() {
			block := gomoku.NoPoint
			for _, f := range fp {
				if block == gomoku.NoPoint && (a == gomoku.Black || b.Forbidden(f) == gomoku.NoFoul) {
					block = f
				}
			}
			if block == gomoku.NoPoint {
				won = true // Black cannot block
			} else {
				b.Put(block, a.Other())
				won = b.Winner() == gomoku.Empty && naiveVCFRenju(b, a, depth-1)
				b.Undo()
			}
		}
		b.Undo()
		if won {
			return true
		}
	}
	return false
}

// TestVCFRenjuAgainstExhaustive: under Renju, on positions of renju
// self-play and of random stones, VCF within 3 attacking moves exists
// exactly when the naive search of every four-making sequence finds one,
// for either side; every line found, and every one within 12 fours (with
// a table), is refereed: Black never plays a forbidden point.
func TestVCFRenjuAgainstExhaustive(t *testing.T) {
	positions := 300
	if testing.Short() {
		positions = 100
	}
	rng := rand.New(rand.NewPCG(47, 53))
	var cand []gomoku.Point
	var res Result
	wins, none, blocked, deep := [3]int{}, 0, 0, 0
	tt := NewVCFTable(14)
	for n := 0; n < positions; {
		pos := NewPosition(gomoku.Options{Rule: gomoku.Renju, Radius: 1})
		stones := 20 + rng.IntN(40)
		for k := 0; k < stones && !pos.Board().Over(); k++ {
			var q gomoku.Point
			if n%2 == 0 {
				res = Filter(pos, pos.Board().ToMove(), Config{}, res)
				q = res.Moves[rng.IntN(len(res.Moves))]
				must(t, pos.Play(q))
			} else {
				q, cand = randomMove(rng, pos.Board(), cand)
				must(t, pos.Put(q, pos.Board().ToMove()))
			}
		}
		if pos.Board().Over() {
			continue
		}
		n++
		for _, side := range []gomoku.Player{gomoku.Black, gomoku.White} {
			if line, ok, _ := VCF(pos, side, Limits{MaxDepth: 12, Table: tt}); ok {
				deep++
				refereeRenju(t, pos.Board(), side, line)
			}
			line, ok, _ := VCF(pos, side, Limits{MaxDepth: 3})
			b := *pos.Board()
			if want := naiveVCFRenju(&b, side, 3); ok != want {
				t.Fatalf("VCF says %v, exhaustive search says %v, for %v\n%s", ok, want, side, pos.Board())
			}
			if !ok {
				none++
				continue
			}
			wins[side]++
			if refereeRenju(t, pos.Board(), side, line) > 0 {
				blocked++
			}
		}
	}
	t.Logf("%d positions: VCFs for black %d, white %d (%d through a forbidden block), %d proved without; %d within 12 fours, refereed", positions, wins[gomoku.Black], wins[gomoku.White], blocked, none, deep)
	if wins[gomoku.Black] < positions/20 || wins[gomoku.White] < positions/20 || blocked < 3 {
		t.Errorf("a weak check")
	}
}

// TestRenjuNoMove: a board whose one empty point, g2, is forbidden to
// Black, to move (seen in self-play): the filter offers nothing, the
// board's referee and Position.Play refuse g2.
func TestRenjuNoMove(t *testing.T) {
	pos := diagram(t, gomoku.Renju, `
xxoxxooxooxoooo
xooxooxxxoxxxox
oxoxoooxoxxoxox
oooxxxoxoxooxxo
xxxooxooxxoxooo
oooxxoooxxxoxxo
xxooxxxoxoxxoox
xxoxxxoxooxooxo
oooxoooxoxooxxo
xoxoxxxoooxooox
ooxxoxxoxxoxooo
oxxxoxoxxxooxxx
ooxoxxxxoxxoxox
oxooxo.xoooxoxo
xxxxoxxxooxooox`)
	g2 := pt(t, "g2")
	b := pos.Board()
	if b.ToMove() != gomoku.Black || b.Over() || fmt.Sprint(names(pos.Fouls().AppendTo(nil))) != "[g2]" {
		t.Fatalf("to move %v, over %v, fouls %v", b.ToMove(), b.Over(), pos.Fouls().AppendTo(nil))
	}
	if res := filterOf(t, pos, gomoku.Black, Config{}); len(res.Moves) != 0 || res.Level != Radius {
		t.Errorf("filter %v %v", res.Level, res.Moves)
	}
	ref := *b
	for _, err := range []error{ref.Play(g2), pos.Play(g2)} {
		if !errors.Is(err, gomoku.ErrForbidden) {
			t.Errorf("Play(g2): %v", err)
		}
	}
	if res := filterOf(t, pos, gomoku.White, Config{}); fmt.Sprint(names(res.Moves)) != "[g2]" {
		t.Errorf("White's filter %v %v", res.Level, res.Moves)
	}
}
