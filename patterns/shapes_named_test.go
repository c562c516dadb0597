package patterns

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"ocvist/gomoku"
)

// onLine places a 15-cell row ('.', 'x', 'o', '*' for the cell examined,
// which stays empty) on the full-length line of direction d and returns the
// position and the examined cell. Both ends of the row are board edges.
func onLine(t *testing.T, rule gomoku.Rule, row string, d gomoku.Dir) (*Position, gomoku.Point) {
	t.Helper()
	if len(row) != gomoku.Size {
		t.Fatalf("row %q is not %d cells", row, gomoku.Size)
	}
	b := gomoku.New(gomoku.Options{Rule: rule})
	at := gomoku.NoPoint
	for k := range gomoku.Size {
		var q gomoku.Point
		switch d {
		case gomoku.Horizontal:
			q = gomoku.Pt(k, 7)
		case gomoku.Vertical:
			q = gomoku.Pt(7, k)
		case gomoku.Diagonal:
			q = gomoku.Pt(k, k)
		default:
			q = gomoku.Pt(k, gomoku.Size-1-k)
		}
		switch row[k] {
		case 'x':
			must(t, b.Put(q, gomoku.Black))
		case 'o':
			must(t, b.Put(q, gomoku.White))
		case '*':
			at = q
		}
	}
	return FromBoard(b), at
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestShapeTable: the line shapes. Each row is
// checked for x at '*', in all four directions, with the table (through a
// Position) and with the naive twin.
func TestShapeTable(t *testing.T) {
	both := []gomoku.Rule{gomoku.Freestyle, gomoku.Standard}
	tests := []struct {
		name  string
		row   string
		rules []gomoku.Rule
		want  Shape
	}{
		{"five", "....xx*xx......", both, Five},
		{"five at the edge", "*xxxx..........", both, Five},
		{"six is five in freestyle", "...xxx*xx......", both[:1], Five},
		{"six is an overline in standard", "...xxx*xx......", both[1:], Overline},
		{"straight four", "...xxx*........", both, StraightFour},
		{"four blocked by the edge", "xxx*...........", both, Four},
		{"four blocked at the far edge", "...........*xxx", both, Four},
		{"four blocked by a stone", "...oxxx*.......", both, Four},
		{"x.xxx. broken four", "..x.xx*........", both, Four},
		{"xx.xx broken four", "...xx.x*.......", both, Four},
		{"xx.xx whose only five is six: freestyle four", "..xx*.xx.......", both[:1], Four},
		{"xx.xx whose only five is six: standard not a four", "..xx*.xx.......", both[1:], ClosedThree},
		{"straight four whose one end makes six (standard)", "..x.xxx*.......", both[1:], Four},
		{"straight four whose one end makes six (freestyle)", "..x.xxx*.......", both[:1], StraightFour},
		{"double four in one line", "..x.x*x.x......", both, DoubleFour},
		{"seed double4_inline, x o . o o o . o x", "..ox.xx*.xo....", both, DoubleFour},
		{"open three", "....xx*........", both, OpenThree},
		{"open three at one end of the board", "..........xx*..", both, OpenThree},
		{"x.xxx.: broken three", "...x.x*........", both, BrokenThree},
		{"xx.x broken three", "...xx.*........", both, BrokenThree},
		{"o.xxx.o is not a three", "...o.xx*.o.....", both, ClosedThree},
		{"three closed by the edge is not a three", "............xx*", both, ClosedThree},
		{"closed three", "...oxx*........", both, ClosedThree},
		{"split closed three", "..ox.x*........", both, ClosedThree},
		{"three whose straight fours make six: standard, not a three", "x..xx*..x......", both[1:], ClosedThree},
		{"three whose straight fours make six: freestyle three", "x..xx*..x......", both[:1], OpenThree},
		{"two", "....x*.........", both, Two},
		{"split two", "....x.*........", both, Two},
		{"two with no room", "...ox*..o......", both, None},
		{"lone stone", ".......*.......", both, None},
	}
	for _, tc := range tests {
		for _, rule := range tc.rules {
			for _, d := range gomoku.Dirs {
				t.Run(fmt.Sprintf("%s/%v/dir%d", tc.name, rule, d), func(t *testing.T) {
					pos, at := onLine(t, rule, tc.row, d)
					if got := pos.Shape(at, d, gomoku.Black); got != tc.want {
						t.Errorf("%s: table says %v, want %v", tc.row, got, tc.want)
					}
					if got := naiveCell(pos.Board(), at, d, gomoku.Black); got != tc.want {
						t.Errorf("%s: naive says %v, want %v", tc.row, got, tc.want)
					}
				})
			}
		}
	}
}

// diagram parses a full board diagram, failing the test on error.
func diagram(t *testing.T, rule gomoku.Rule, s string) *Position {
	t.Helper()
	b, err := gomoku.ParseDiagram(s, gomoku.Options{Rule: rule})
	if err != nil {
		t.Fatal(err)
	}
	return FromBoard(b)
}

// seedRow is a board with one row (Gomocup y = 5, the seed's row 6) set.
func seedRow(t *testing.T, row string) *Position {
	t.Helper()
	lines := make([]string, gomoku.Size)
	for i := range lines {
		lines[i] = strings.Repeat(".", gomoku.Size)
	}
	lines[5] = row
	return diagram(t, gomoku.Freestyle, strings.Join(lines, "\n"))
}

// pts converts the seed's (col, row) tuples to points.
func pts(xy ...int) []gomoku.Point {
	var out []gomoku.Point
	for i := 0; i < len(xy); i += 2 {
		out = append(out, gomoku.Pt(xy[i], xy[i+1]))
	}
	slices.Sort(out)
	return out
}

func sorted(p []gomoku.Point) []gomoku.Point {
	p = slices.Clone(p)
	slices.Sort(p)
	return p
}

// TestSeedDetectors: the seed's examples (section "Mintázatfelismerés"),
// with its zero-based (col, row) answers. The seed's open3_incompl diagram
// lost a cell in extraction; its answer (5,5),(6,5),(8,5) fixes the row.
func TestSeedDetectors(t *testing.T) {
	type detector func(*Position, gomoku.Player, []Threat) []Threat
	tests := []struct {
		name    string
		det     detector
		row     string
		stones  []gomoku.Point
		points  []gomoku.Point
		defence []gomoku.Point
	}{
		{"open3", Open3, "...x.ooo..x....", pts(7, 5, 5, 5, 6, 5), pts(8, 5), pts(4, 5, 8, 5, 9, 5)},
		{"open3 with room both sides", Open3, "....ooo........", pts(4, 5, 5, 5, 6, 5), pts(3, 5, 7, 5), pts(3, 5, 7, 5)},
		{"open3_incompl", Open3Incompl, "...x.oo.o.x....", pts(8, 5, 5, 5, 6, 5), pts(7, 5), pts(4, 5, 7, 5, 9, 5)},
		{"half_closed4", HalfClosed4, "...xoooo.......", pts(4, 5, 7, 5, 5, 5, 6, 5), pts(8, 5), pts(8, 5)},
		{"half_closed4 at the edge", HalfClosed4, "oooo.x.........", pts(0, 5, 1, 5, 2, 5, 3, 5), pts(4, 5), pts(4, 5)},
		{"closed4_incompl", Closed4Incompl, "...xooo.ox.....", pts(4, 5, 8, 5, 5, 5, 6, 5), pts(7, 5), pts(7, 5)},
		{"closed4_incompl xx.xx", Closed4Incompl, "...oo.oo.......", pts(3, 5, 4, 5, 6, 5, 7, 5), pts(5, 5), pts(5, 5)},
		{"double4_inline", Double4Inline, "...xo..oo.ox...", pts(4, 5, 7, 5, 8, 5, 10, 5), pts(6, 5), pts(5, 5, 6, 5, 9, 5)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pos := seedRow(t, tc.row)
			got := tc.det(pos, gomoku.White, nil)
			if len(got) != 1 {
				t.Fatalf("%s: %d threats, want 1: %+v", tc.row, len(got), got)
			}
			th := &got[0]
			if s := sorted(th.Stones()); !slices.Equal(s, tc.stones) {
				t.Errorf("stones %v, want %v", s, tc.stones)
			}
			if s := sorted(th.Points()); !slices.Equal(s, tc.points) {
				t.Errorf("points %v, want %v", s, tc.points)
			}
			if s := sorted(th.Defence()); !slices.Equal(s, tc.defence) {
				t.Errorf("defence %v, want %v", s, tc.defence)
			}
			if th.Side != gomoku.White || th.Dir != gomoku.Horizontal {
				t.Errorf("side %v dir %v", th.Side, th.Dir)
			}
			if other := tc.det(pos, gomoku.Black, nil); len(other) != 0 {
				t.Errorf("black has %d such threats, want 0", len(other))
			}
		})
	}
}

// TestDetectorsDisjoint: a straight four is none of the seed's fours, and
// a three closed at both ends is no open3.
func TestDetectorsDisjoint(t *testing.T) {
	pos := seedRow(t, "...xoooo.x.....")
	if got := HalfClosed4(pos, gomoku.White, nil); len(got) != 1 || got[0].Stones()[0] != gomoku.Pt(4, 5) {
		t.Errorf("half_closed4: %+v", got)
	}
	pos = seedRow(t, "....oooo.......")
	if got := HalfClosed4(pos, gomoku.White, nil); len(got) != 0 {
		t.Errorf("a straight four is not half closed: %+v", got)
	}
	ths := pos.Threats(nil, gomoku.White)
	if len(ths) != 1 || ths[0].Shape != StraightFour || len(ths[0].Points()) != 2 {
		t.Errorf("straight four threats: %+v", ths)
	}
	pos = seedRow(t, "...xo.ooo.x....")
	if got := Open3(pos, gomoku.White, nil); len(got) != 0 {
		t.Errorf("x o . o o o . x has no open three: %+v", got)
	}
}

// TestDetectorsThreeStones: the seed's double4_inline shape (four stones,
// x o . . o o . o x) is one move from two fours in one line, but it is no
// three: open3_incompl does not report it, double4_inline does.
func TestDetectorsThreeStones(t *testing.T) {
	pos := seedRow(t, "...xo..oo.ox...")
	if got := Open3Incompl(pos, gomoku.White, nil); len(got) != 0 {
		t.Errorf("open3_incompl reports the double4_inline shape: stones %v", got[0].Stones())
	}
	if got := Double4Inline(pos, gomoku.White, nil); len(got) != 1 {
		t.Errorf("double4_inline: %d threats, want 1", len(got))
	}
	pos = seedRow(t, "..o.o.o.o......") // S.S.S.S: the middle gap makes S.SSS.S
	if got := Open3Incompl(pos, gomoku.White, nil); len(got) != 0 {
		t.Errorf("open3_incompl reports o.o.o.o: stones %v", got[0].Stones())
	}
	if got := Double4Inline(pos, gomoku.White, nil); len(got) != 1 || !slices.Equal(got[0].Points(), pts(5, 5)) {
		t.Errorf("double4_inline on o.o.o.o: %+v, want the move (5,5)", got)
	}
}

// TestDetectorsAppend: a detector appends to dst and never merges its
// threats into the caller's earlier ones, even when they come from another
// position with the same stones.
func TestDetectorsAppend(t *testing.T) {
	a := seedRow(t, "....ooo........")
	b := seedRow(t, "....ooo.....x..")
	got := Open3(b, gomoku.White, Open3(a, gomoku.White, nil))
	if len(got) != 2 {
		t.Fatalf("%d threats after two appends, want 2", len(got))
	}
	for i, th := range got {
		if s := sorted(th.Stones()); !slices.Equal(s, pts(4, 5, 5, 5, 6, 5)) {
			t.Errorf("threat %d: stones %v", i, s)
		}
	}
	if all := b.Threats(Open3(a, gomoku.White, nil), gomoku.White); len(all) != 2 {
		t.Errorf("Threats after Open3 of another position: %d, want 2", len(all))
	}
}
