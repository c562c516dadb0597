package gomoku

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naiveWinner scans the whole board for a winning run of c under rule r.
func naiveWinner(b *Board, c Player, r Rule) bool {
	for y := range Size {
		for x := range Size {
			for _, st := range dirStep {
				px, py := x-st[0], y-st[1]
				if OnBoard(px, py) && b.At(Pt(px, py)) == c {
					continue // not the start of a run
				}
				n := 0
				for cx, cy := x, y; OnBoard(cx, cy) && b.At(Pt(cx, cy)) == c; cx, cy = cx+st[0], cy+st[1] {
					n++
				}
				if n == 5 || n > 5 && (r == Freestyle || r == Renju && c == White) {
					return true
				}
			}
		}
	}
	return false
}

func TestPointForms(t *testing.T) {
	for _, tc := range []struct {
		human, gomocup string
		x, y           int
	}{{"h8", "7,7", 7, 7}, {"a1", "0,14", 0, 14}, {"o15", "14,0", 14, 0}, {"a15", "0,0", 0, 0}, {"o1", "14,14", 14, 14}} {
		p, err := ParsePoint(tc.human)
		if err != nil || p.X() != tc.x || p.Y() != tc.y || p.String() != tc.human || p.Gomocup() != tc.gomocup {
			t.Errorf("ParsePoint(%q) = %v (%d,%d) %v", tc.human, p, p.X(), p.Y(), err)
		}
		q, err := ParseGomocup(tc.gomocup)
		if err != nil || q != p {
			t.Errorf("ParseGomocup(%q) = %v, %v; want %v", tc.gomocup, q, err, p)
		}
	}
	for _, bad := range []string{"", "h", "p8", "h0", "h16", "8h", "hh"} {
		if _, err := ParsePoint(bad); !errors.Is(err, ErrBadPoint) {
			t.Errorf("ParsePoint(%q) err = %v, want ErrBadPoint", bad, err)
		}
	}
	for _, bad := range []string{"", "7", "7,", "15,0", "-1,3", "a,b", "3,15"} {
		if _, err := ParseGomocup(bad); !errors.Is(err, ErrBadPoint) {
			t.Errorf("ParseGomocup(%q) err = %v, want ErrBadPoint", bad, err)
		}
	}
	if Center.String() != "h8" || Black.Other() != White || White.Other() != Black {
		t.Error("centre or Other wrong")
	}
}

func TestPlayErrors(t *testing.T) {
	b := New(Options{})
	if err := b.Play(NoPoint); !errors.Is(err, ErrOffBoard) {
		t.Errorf("off board: %v", err)
	}
	if err := b.Play(Center); err != nil {
		t.Fatal(err)
	}
	if err := b.Play(Center); !errors.Is(err, ErrOccupied) {
		t.Errorf("occupied: %v", err)
	}
	if err := b.Put(Pt(0, 0), Empty); !errors.Is(err, ErrBadColor) {
		t.Errorf("bad colour: %v", err)
	}
	b2 := New(Options{})
	if _, err := b2.Undo(); !errors.Is(err, ErrNoMoves) {
		t.Errorf("undo on empty: %v", err)
	}
	// Black: a1..e1 with White elsewhere; after the fifth, play is refused.
	for i := range 5 {
		must(t, b2.Play(Pt(i, 14)))
		if i < 4 {
			must(t, b2.Play(Pt(i, 0)))
		}
	}
	if b2.Winner() != Black || !b2.Over() {
		t.Fatalf("winner %v over %v", b2.Winner(), b2.Over())
	}
	if got := b2.WinLine(); len(got) != 5 || got[0] != Pt(0, 14) || got[4] != Pt(4, 14) {
		t.Errorf("win line %v", got)
	}
	if err := b2.Play(Pt(7, 7)); !errors.Is(err, ErrGameOver) {
		t.Errorf("after win: %v", err)
	}
	if p, err := b2.Undo(); err != nil || p != Pt(4, 14) || b2.Winner() != Empty || b2.Over() {
		t.Errorf("undo of the winning move: %v %v %v", p, err, b2.Winner())
	}
}

func TestStandardOverline(t *testing.T) {
	const diagram = `
...............
...............
...............
...............
...............
...............
...............
..xxx.xx.......
...............
...............
...............
...............
...............
...............
ooooo.o........
`
	for _, rule := range []Rule{Freestyle, Standard} {
		b, err := ParseDiagram(diagram, Options{Rule: rule})
		if err != nil {
			t.Fatal(err)
		}
		if b.Winner() != White {
			t.Fatalf("%v: exact five on the bottom row not seen", rule)
		}
		b, _ = ParseDiagram(strings.Replace(diagram, "ooooo.o", "oooo..o", 1), Options{Rule: rule})
		gap := Pt(5, 7) // f8: joins xxx.xx into an overline of six
		if got := b.MakesFive(gap, Black); got != (rule == Freestyle) {
			t.Errorf("%v: MakesFive(overline) = %v", rule, got)
		}
		must(t, b.Put(gap, Black))
		if got := b.Winner() == Black; got != (rule == Freestyle) {
			t.Errorf("%v: overline wins = %v", rule, got)
		}
	}
}

func TestFullBoardAndPlyLimit(t *testing.T) {
	// Pairs of columns alternate colours, shifted every row: nobody has five.
	b := New(Options{MaxPly: 0})
	for y := range Size {
		for x := range Size {
			c := Player(1 + (x/2+y)%2)
			if err := b.Put(Pt(x, y), c); err != nil {
				t.Fatalf("put %d,%d: %v", x, y, err)
			}
		}
	}
	if !b.Full() || !b.Over() || b.Winner() != Empty {
		t.Errorf("full %v over %v winner %v", b.Full(), b.Over(), b.Winner())
	}
	lim := New(Options{MaxPly: 3})
	for _, p := range []Point{Center, Center + 1, Center + 2} {
		must(t, lim.Play(p))
	}
	if !lim.Over() || lim.Winner() != Empty {
		t.Error("ply limit not a draw")
	}
	if err := lim.Play(Center + 3); !errors.Is(err, ErrGameOver) {
		t.Errorf("past ply limit: %v", err)
	}
}

// randomPosition fills a board by random legal play (stopping before a
// win) with n stones, so runs and gaps are realistic.
func randomPosition(rng *rand.Rand, opts Options, n int) *Board {
	b := New(opts)
	var cand []Point
	for b.Stones() < n {
		cand = b.Candidates(cand[:0])
		var p Point
		if len(cand) == 0 || rng.IntN(8) == 0 {
			p = Point(rng.IntN(NumCells))
		} else {
			p = cand[rng.IntN(len(cand))]
		}
		if b.At(p) != Empty {
			continue
		}
		if b.Put(p, b.ToMove()) != nil || b.Winner() != Empty {
			break
		}
	}
	return b
}

// TestWinAgainstNaive: every position is
// played to its end; the incremental verdict after every stone must match
// a full-board scan, under both rules.
func TestWinAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	positions, wins, overlines := 0, 0, 0
	for _, rule := range []Rule{Freestyle, Standard} {
		for positions < 100_000*(int(rule)+1) {
			b := New(Options{Rule: rule, Radius: 1 + rng.IntN(2)})
			for !b.Over() {
				var p Point
				if rng.IntN(3) == 0 {
					p = Point(rng.IntN(NumCells))
				} else {
					cand := b.Candidates(nil)
					if len(cand) == 0 {
						p = Center
					} else {
						p = cand[rng.IntN(len(cand))]
					}
				}
				if b.At(p) != Empty {
					continue
				}
				c := b.ToMove()
				five := b.MakesFive(p, c)
				must(t, b.Play(p))
				positions++
				want := naiveWinner(b, c, rule)
				if (b.Winner() == c) != want || five != want {
					t.Fatalf("%v: after %v by %v winner=%v MakesFive=%v naive=%v\n%s", rule, p, c, b.Winner(), five, want, b)
				}
				if want {
					checkWinLine(t, b, p, c)
				}
				if rule == Standard && !want && naiveWinner(b, c, Freestyle) {
					overlines++
				}
			}
			if b.Winner() != Empty {
				wins++
			}
		}
	}
	t.Logf("%d positions, %d wins, %d standard overlines", positions, wins, overlines)
	if wins < 1000 || overlines < 10 {
		t.Errorf("too few wins (%d) or overlines (%d) to be a real check", wins, overlines)
	}
}

// TestRenjuWinAgainstNaive: under Renju, after every stone of random
// play (stones put, so that Black makes overlines too), the incremental
// verdict matches a full-board scan: Black wins with exactly five, White
// with five or more.
func TestRenjuWinAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 3))
	positions, wins, overlines := 0, [3]int{}, [3]int{}
	for positions < 100_000 {
		b := New(Options{Rule: Renju, Radius: 1 + rng.IntN(2)})
		for !b.Over() {
			var p Point
			if cand := b.Candidates(nil); len(cand) == 0 || rng.IntN(3) == 0 {
				p = Point(rng.IntN(NumCells))
			} else {
				p = cand[rng.IntN(len(cand))]
			}
			if b.At(p) != Empty {
				continue
			}
			c := b.ToMove()
			five := b.MakesFive(p, c)
			must(t, b.Put(p, c))
			positions++
			want := naiveWinner(b, c, Renju)
			if (b.Winner() == c) != want || five != want {
				t.Fatalf("after %v by %v winner=%v MakesFive=%v naive=%v\n%s", p, c, b.Winner(), five, want, b)
			}
			if want {
				checkWinLine(t, b, p, c)
				wins[c]++
			} else if naiveWinner(b, c, Freestyle) {
				overlines[c]++
			}
		}
	}
	t.Logf("%d positions; wins by black %d, white %d; black overlines that did not win %d", positions, wins[Black], wins[White], overlines[Black])
	if wins[Black] < 300 || wins[White] < 300 || overlines[Black] < 10 || overlines[White] != 0 {
		t.Errorf("wins %v, overlines %v: too few to be a real check", wins, overlines)
	}
}

// checkWinLine: after the winning stone p of c, WinLine is a maximal run of
// c's stones through p along one line, in the line's order, of a winning
// length, found by walking the board cell by cell.
func checkWinLine(t *testing.T, b *Board, p Point, c Player) {
	t.Helper()
	got := b.WinLine()
	for _, st := range dirStep {
		x, y := p.X(), p.Y()
		for OnBoard(x-st[0], y-st[1]) && b.At(Pt(x-st[0], y-st[1])) == c {
			x, y = x-st[0], y-st[1]
		}
		var run []Point
		for ; OnBoard(x, y) && b.At(Pt(x, y)) == c; x, y = x+st[0], y+st[1] {
			run = append(run, Pt(x, y))
		}
		long := b.Rule() == Freestyle || b.Rule() == Renju && c == White
		if n := len(run); (n == 5 || n > 5 && long) && slices.Equal(got, run) {
			return
		}
	}
	t.Fatalf("after %v by %v: WinLine %v is not a winning run through it\n%s", p, c, got, b)
}

// TestStress: random play and undo, with a
// full rebuild compared against the incremental structures regularly.
func TestStress(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	moves := 0
	for game := 0; moves < 120_000; game++ {
		opts := Options{Rule: Rule(game % 2), Radius: 1 + game%MaxRadius}
		b := New(opts)
		for step := 0; step < 400; step++ {
			if b.Stones() > 0 && (b.Over() || rng.IntN(3) == 0) {
				if _, err := b.Undo(); err != nil {
					t.Fatal(err)
				}
			} else {
				p := Point(rng.IntN(NumCells))
				if b.At(p) != Empty {
					continue
				}
				must(t, b.Play(p))
			}
			moves++
			if moves%7 == 0 {
				if err := b.Verify(); err != nil {
					t.Fatalf("game %d step %d: %v\n%s", game, step, err, b)
				}
				checkWindows(t, b)
			}
		}
	}
}

// checkWindows compares Window with a cell-by-cell walk.
func checkWindows(t *testing.T, b *Board) {
	t.Helper()
	for p := Point(0); p < NumCells; p++ {
		for _, d := range Dirs {
			for _, c := range []Player{Black, White} {
				own, blocked := b.Window(p, d, c)
				dx, dy := d.Step()
				var wo, wb uint32
				for k := -WindowRadius; k <= WindowRadius; k++ {
					x, y := p.X()+k*dx, p.Y()+k*dy
					bit := uint32(1) << (k + WindowRadius)
					switch {
					case !OnBoard(x, y) || b.At(Pt(x, y)) == c.Other():
						wb |= bit
					case b.At(Pt(x, y)) == c:
						wo |= bit
					}
				}
				if own != wo || blocked != wb {
					t.Fatalf("Window(%v,%d,%v) = %011b/%011b, want %011b/%011b", p, d, c, own, blocked, wo, wb)
				}
			}
		}
	}
}

func TestCandidatesRadius(t *testing.T) {
	b := New(Options{Radius: 2})
	must(t, b.Play(Pt(0, 0)))
	if got := b.NumCandidates(); got != 8 {
		t.Errorf("corner stone, radius 2: %d candidates, want 8", got)
	}
	must(t, b.Play(Center))
	if got := b.NumCandidates(); got != 8+24 {
		t.Errorf("plus centre: %d candidates, want 32", got)
	}
	if got := b.Candidates(nil); got[0] != Pt(1, 0) {
		t.Errorf("first candidate %v", got[0])
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPlay places and removes stones on a middle-game position: one
// op is a Play (with candidate update and win check) plus its Undo.
func BenchmarkPlay(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	bd := randomPosition(rng, Options{}, 40)
	cand := bd.Candidates(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := cand[i%len(cand)]
		if err := bd.Play(p); err != nil {
			b.Fatal(err)
		}
		bd.Undo()
	}
}

func BenchmarkWindow(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	bd := randomPosition(rng, Options{}, 40)
	var sink uint32
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		o, bl := bd.Window(Point(i%NumCells), Dir(i&3), Black)
		sink += o ^ bl
	}
	_ = sink
}

// TestGrow compares Set.Grow with the Chebyshev distance, point by point,
// on random sets that touch the edges and corners.
func TestGrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 2000 {
		var s Set
		for range 1 + rng.IntN(6) {
			s.Add(Point(rng.IntN(NumCells)))
		}
		if i%10 == 0 {
			s.Add([]Point{0, Size - 1, NumCells - Size, NumCells - 1}[i/10%4])
		}
		r := rng.IntN(MaxRadius + 1)
		got := s.Grow(r)
		for p := Point(0); p < NumCells; p++ {
			want := false
			for q := range s.All() {
				want = want || p.Distance(q) <= r
			}
			if got.Has(p) != want {
				t.Fatalf("Grow(%d) of %v: %v is %v, want %v", r, s.AppendTo(nil), p, got.Has(p), want)
			}
		}
		if got.Minus(allCells) != (Set{}) {
			t.Fatalf("Grow(%d) of %v has points off the board", r, s.AppendTo(nil))
		}
	}
}

// BenchmarkCandidates: the candidate set of a middle-game position, as
// the search asks for it once a node.
func BenchmarkCandidates(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	bd := randomPosition(rng, Options{}, 40)
	var n int
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		n += bd.CandidateSet().Len()
	}
	_ = n
}
