package patterns

import (
	"slices"
	"strings"
	"testing"

	"ocvist/gomoku"
)

// rows builds a board from sparse rows: y (Gomocup, 0 at the top) to the
// row's 15 cells; every other row is empty.
func rows(t *testing.T, rule gomoku.Rule, r map[int]string) *Position {
	t.Helper()
	lines := make([]string, gomoku.Size)
	for y := range lines {
		lines[y] = strings.Repeat(".", gomoku.Size)
		if s, ok := r[y]; ok {
			lines[y] = s
		}
	}
	return diagram(t, rule, strings.Join(lines, "\n"))
}

func filterOf(t *testing.T, pos *Position, side gomoku.Player, cfg Config) Result {
	t.Helper()
	before := pos.Board().String()
	res := Filter(pos, side, cfg, Result{})
	if pos.Board().String() != before {
		t.Fatal("Filter changed the position")
	}
	if err := pos.Check(); err != nil {
		t.Fatal(err)
	}
	return res
}

func wantResult(t *testing.T, res Result, level Level, attack bool, moves []gomoku.Point) {
	t.Helper()
	if res.Level != level || res.Attack != attack || !slices.Equal(sorted(res.Moves), moves) {
		t.Errorf("got level %v attack %v moves %v, want %v %v %v", res.Level, res.Attack, res.Moves, level, attack, moves)
	}
}

// TestFilter: the filter's level, attack flag and moves on named positions.
func TestFilter(t *testing.T) {
	x, o := gomoku.Black, gomoku.White
	t.Run("opening", func(t *testing.T) {
		res := filterOf(t, NewPosition(gomoku.Options{}), x, Config{})
		wantResult(t, res, Opening, true, []gomoku.Point{gomoku.Center})
	})
	t.Run("win in one is taken", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{
			3: "..xoooo........", // white's four: must not distract
			7: "...oxxxx.......",
			9: "....ooo........",
		})
		wantResult(t, filterOf(t, pos, x, Config{}), Trivial, true, pts(8, 7))
	})
	t.Run("win in one under standard is not an overline", func(t *testing.T) {
		pos := rows(t, gomoku.Standard, map[int]string{7: "oxxxx.xo.......", 9: "..ooo.........."})
		// (5,7) would make six: not a five; x has no five-point, white's three is next
		res := filterOf(t, pos, x, Config{})
		if res.Level == Trivial {
			t.Errorf("overline taken as a win: %+v", res)
		}
		free := rows(t, gomoku.Freestyle, map[int]string{7: "oxxxx.xo.......", 9: "..ooo.........."})
		wantResult(t, filterOf(t, free, x, Config{}), Trivial, true, pts(5, 7))
	})
	t.Run("opponent four is blocked", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{
			3: "..xoooo........",
			8: ".....xxx.......", // our open three must wait
		})
		res := filterOf(t, pos, x, Config{})
		wantResult(t, res, Trivial, false, pts(7, 3))
		if ths := pos.Threats(nil, res.Side); res.Side != o || len(ths) != 1 || ths[0].Shape != Four {
			t.Errorf("threats %+v, side %v", ths, res.Side)
		}
	})
	t.Run("standard: an opponent four whose only five is six is not blocked", func(t *testing.T) {
		m := map[int]string{3: "xoooo.o.x......", 8: ".....xx........"}
		// (5,3) gives white o o o o o . o in freestyle, six in standard
		wantResult(t, filterOf(t, rows(t, gomoku.Freestyle, m), x, Config{}), Trivial, false, pts(5, 3))
		if res := filterOf(t, rows(t, gomoku.Standard, m), x, Config{}); res.Level != Radius {
			t.Errorf("standard: %v %v %v, want radius", res.Level, res.Attack, res.Moves)
		}
	})
	t.Run("standard: a three whose straight fours make six is not defended", func(t *testing.T) {
		m := map[int]string{3: "o..ooo..o......", 9: "..........xx..."}
		wantResult(t, filterOf(t, rows(t, gomoku.Freestyle, m), x, Config{}), Trivial2nd, false, pts(2, 3, 6, 3))
		if res := filterOf(t, rows(t, gomoku.Standard, m), x, Config{}); res.Level != Radius {
			t.Errorf("standard: %v %v %v, want radius", res.Level, res.Attack, res.Moves)
		}
	})
	t.Run("two opponent five-points are both returned", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{3: "...oooo........", 8: ".....xx........"})
		wantResult(t, filterOf(t, pos, x, Config{}), Trivial, false, pts(2, 3, 7, 3))
	})
	t.Run("straight four is made", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{7: ".....xxx.......", 2: "...ooo........."})
		wantResult(t, filterOf(t, pos, x, Config{}), Trivial2nd, true, pts(4, 7, 8, 7))
	})
	t.Run("double four is made", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{
			7: "..oxxx.........", 8: "......x........", 9: "......x........",
			10: "......x........", 11: "......o........", 1: "oo.............",
		})
		wantResult(t, filterOf(t, pos, x, Config{}), Trivial2nd, true, pts(6, 7))
	})
	t.Run("double4_inline is made", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{5: "...xo..oo.ox...", 9: "..xx.x........."})
		res := filterOf(t, pos, o, Config{})
		wantResult(t, res, Trivial2nd, true, pts(6, 5))
	})
	t.Run("open three: its defence points plus our fours", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{
			2: ".oxxx..........", // our closed three: (5,2) and (6,2) make fours
			7: "......ooo......",
		})
		res := filterOf(t, pos, x, Config{})
		wantResult(t, res, Trivial2nd, false, pts(5, 7, 9, 7, 5, 2, 6, 2))
		if ths := pos.Threats(nil, res.Side); len(ths) != 1 || ths[0].Shape != OpenThree {
			t.Errorf("threats %+v", ths)
		}
	})
	t.Run("broken three closed on one side: three defence points", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{7: "....x.o.oo.....", 12: "xx............."})
		// x . o . o o . : white's only straight-four point is (7,7); the
		// defence is that point and its two five-points
		wantResult(t, filterOf(t, pos, x, Config{}), Trivial2nd, false, pts(5, 7, 7, 7, 10, 7))
	})
	t.Run("four-three is a force", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{
			5: ".......x.......", 6: ".......x.......", 7: "...oxxx........", 12: "oo.o..........."})
		wantResult(t, filterOf(t, pos, x, Config{}), Force, true, pts(7, 7))
	})
	t.Run("double three is a force", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{
			5: ".......x.......", 6: ".......x.......", 7: ".....xx........", 12: "oo.o..o........"})
		res := filterOf(t, pos, x, Config{})
		wantResult(t, res, Force, true, pts(7, 7))
	})
	t.Run("mini-force rejects a force refuted by a VCF", func(t *testing.T) {
		m := map[int]string{
			5: ".......x.......", 6: ".......x.......", 7: ".....xx........",
			10: ".....o.........", 11: ".....o.........", 12: ".xooo..........",
		}
		pos := rows(t, gomoku.Freestyle, m)
		res := filterOf(t, pos, x, Config{})
		wantResult(t, res, Force, false, pts(5, 12))
		if res.Side != o || res.Nodes == 0 {
			t.Errorf("side %v nodes %d", res.Side, res.Nodes)
		}
		naive := filterOf(t, pos, x, Config{NoMiniForce: true})
		wantResult(t, naive, Force, true, pts(7, 7))
		must(t, pos.Put(gomoku.Pt(7, 7), x))
		line, ok, _ := VCF(pos, o, Limits{})
		if !ok {
			t.Fatal("white has no VCF after the double three")
		}
		playLine(t, pos, o, line)
	})
	t.Run("radius", func(t *testing.T) {
		pos := rows(t, gomoku.Freestyle, map[int]string{7: ".......x.......", 8: "........o......"})
		res := filterOf(t, pos, x, Config{})
		want := pos.Board().Candidates(nil)
		wantResult(t, res, Radius, true, want)
	})
}

// TestMiniForceFourBlocks: a double three refuted by a four that also
// blocks one of the threes, though the defender has no VCF.
func TestMiniForceFourBlocks(t *testing.T) {
	x, o := gomoku.Black, gomoku.White
	// Black's double three at (7,7): threes on row 7 and column 7. White's
	// closed three on column 8 makes a four at (8,7) that also blocks row 7
	// (x x x with (8,7) taken cannot become a straight four); Black must
	// answer at (8,6) and White then blocks column 7.
	pos := rows(t, gomoku.Freestyle, map[int]string{
		5: ".......x.......", 6: ".......x.......", 7: ".....xx........",
		8: "........o......", 9: "........o......", 10: "........o......", 11: "........x......",
	})
	naive := filterOf(t, pos, x, Config{NoMiniForce: true})
	if naive.Level != Force || !slices.Contains(naive.Moves, gomoku.Pt(7, 7)) {
		t.Fatalf("no double three to refute: %+v", naive)
	}
	res := filterOf(t, pos, x, Config{})
	if res.Level == Force && res.Attack && slices.Contains(res.Moves, gomoku.Pt(7, 7)) {
		t.Errorf("refuted double three offered: %+v", res)
	}
	must(t, pos.Put(gomoku.Pt(7, 7), x))
	if _, ok, _ := VCF(pos, o, Limits{}); ok {
		t.Fatal("white has a VCF: the test is not about a blocking four")
	}
}

// playLine plays a VCF line for side and checks that every attacking move
// makes a four (or a five), every reply is the only five-point, and the
// line ends in side's win. The position is restored.
func playLine(t *testing.T, pos *Position, side gomoku.Player, line []gomoku.Point) {
	t.Helper()
	if len(line)%2 == 0 {
		t.Fatalf("line %v has even length", line)
	}
	n := 0
	defer func() {
		for range n {
			pos.Undo()
		}
	}()
	for i, q := range line {
		if i%2 == 0 {
			if !pos.Has(q, MakesFour, side) && !pos.Has(q, MakesFive, side) {
				t.Fatalf("move %d %v of %v makes no four", i, q, line)
			}
			if !pos.Has(q, MakesFive, side) && pos.Count(MakesFive, side.Other()) > 0 && !pos.Has(q, MakesFive, side.Other()) {
				t.Fatalf("move %d %v leaves the defender's four open", i, q)
			}
			must(t, pos.Put(q, side))
		} else {
			if pos.Count(MakesFive, side) < 1 || !pos.Has(q, MakesFive, side) {
				t.Fatalf("reply %d %v is not a five-point of the attacker", i, q)
			}
			if pos.Count(MakesFive, side.Other()) > 0 {
				t.Fatalf("reply %d: defender could make five", i)
			}
			must(t, pos.Put(q, side.Other()))
		}
		n++
	}
	if pos.Board().Winner() != side {
		t.Fatalf("line %v does not end in a win", line)
	}
}
