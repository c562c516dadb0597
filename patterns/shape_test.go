package patterns

import (
	"math/rand/v2"
	"slices"
	"testing"

	"ocvist/gomoku"
)

// randomMove picks an empty cell near the stones (sometimes anywhere), so
// that random play builds realistic runs, gaps and blocked ends.
func randomMove(rng *rand.Rand, b *gomoku.Board, cand []gomoku.Point) (gomoku.Point, []gomoku.Point) {
	cand = b.Candidates(cand[:0])
	for {
		var q gomoku.Point
		if len(cand) == 0 || rng.IntN(10) == 0 {
			q = gomoku.Point(rng.IntN(gomoku.NumCells))
		} else {
			q = cand[rng.IntN(len(cand))]
		}
		if b.At(q) == gomoku.Empty {
			return q, cand
		}
	}
}

// naiveTable holds the slow twin's shape of every cell, direction and side.
type naiveTable [gomoku.NumCells][4][2]Shape

// refreshLine recomputes the naive shapes of every empty cell of the whole
// line through q along d (the naive shape is a function of that line only).
func (nt *naiveTable) refreshLine(b *gomoku.Board, q gomoku.Point, d gomoku.Dir) {
	cells, _ := gomoku.LineCells(q, d)
	vb, _ := lineOf(b, q, d, gomoku.Black)
	vw, _ := lineOf(b, q, d, gomoku.White)
	for k, r := range cells {
		nt[r][d] = [2]Shape{}
		if b.At(r) == gomoku.Empty {
			nt[r][d] = [2]Shape{naiveAt(vb, k, b.Rule()), naiveAt(vw, k, b.Rule())}
		}
	}
}

// TestShapesAgainstNaive: positions come from
// seeded random play near the stones, under both rules; in every position
// the incremental table shape of every empty cell, direction and side must
// equal the naive full-line classification. The naive table is refreshed
// on every whole line through each new stone, so every cell's value is the
// naive function of its current line.
func TestShapesAgainstNaive(t *testing.T) {
	perRule := 100_000
	if testing.Short() {
		perRule = 10_000
	}
	for _, rule := range []gomoku.Rule{gomoku.Freestyle, gomoku.Standard} {
		t.Run(rule.String(), func(t *testing.T) {
			t.Parallel()
			checkShapesAgainstNaive(t, rule, perRule)
		})
	}
}

func checkShapesAgainstNaive(t *testing.T, rule gomoku.Rule, perRule int) {
	var seen [NumShapes]int
	var cand []gomoku.Point
	{
		rng := rand.New(rand.NewPCG(3, uint64(rule)))
		positions := 0
		for game := 0; positions < perRule; game++ {
			pos := NewPosition(gomoku.Options{Rule: rule, Radius: 1 + game%2})
			var nt naiveTable
			for d := range gomoku.Dirs {
				for q := gomoku.Point(0); q < gomoku.NumCells; q++ {
					nt[q][d] = [2]Shape{None, None}
				}
			}
			for !pos.Board().Over() && positions < perRule {
				var q gomoku.Point
				q, cand = randomMove(rng, pos.Board(), cand)
				if err := pos.Play(q); err != nil {
					t.Fatal(err)
				}
				for _, d := range gomoku.Dirs {
					nt.refreshLine(pos.Board(), q, d)
				}
				positions++
				for r := gomoku.Point(0); r < gomoku.NumCells; r++ {
					for _, d := range gomoku.Dirs {
						for side := gomoku.Black; side <= gomoku.White; side++ {
							got, want := pos.Shape(r, d, side), nt[r][d][side-1]
							if got != want {
								t.Fatalf("%v game %d: %v at %v dir %d: table %v, naive %v\n%s",
									rule, game, side, r, d, got, want, pos.Board())
							}
							seen[got]++
						}
					}
				}
			}
		}
	}
	t.Logf("%v: %d positions; shapes seen (cell, direction, side): %v", rule, perRule, seen)
	for s := Two; s <= Overline; s++ {
		if s == Overline && rule == gomoku.Freestyle {
			continue
		}
		if seen[s] < 100 {
			t.Errorf("only %d cells of shape %v: the check is too weak", seen[s], s)
		}
	}
}

// TestDefenceAgainstNaive checks the table's defence cells of every threat
// (three or stronger) against the naive line scan, on random positions.
func TestDefenceAgainstNaive(t *testing.T) {
	games := 300
	if testing.Short() {
		games = 60
	}
	checked := 0
	var cand, got []gomoku.Point
	for game := range games {
		rule := gomoku.Rule(game % 2)
		rng := rand.New(rand.NewPCG(7, uint64(game)))
		pos := NewPosition(gomoku.Options{Rule: rule})
		for !pos.Board().Over() {
			var q gomoku.Point
			q, cand = randomMove(rng, pos.Board(), cand)
			if err := pos.Play(q); err != nil {
				t.Fatal(err)
			}
			for r := gomoku.Point(0); r < gomoku.NumCells; r++ {
				for _, d := range gomoku.Dirs {
					for side := gomoku.Black; side <= gomoku.White; side++ {
						if pos.Shape(r, d, side).class() < 3 {
							continue
						}
						got = pos.Defence(got[:0], r, d, side)
						slices.Sort(got)
						want := naiveDefence(pos.Board(), r, d, side)
						slices.Sort(want)
						if !slices.Equal(got, want) {
							t.Fatalf("%v: defence of %v's %v at %v dir %d: %v, naive %v\n%s",
								rule, side, pos.Shape(r, d, side), r, d, got, want, pos.Board())
						}
						checked++
					}
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d threats checked", checked)
	}
}

// TestStressIncremental plays and undoes random stones and compares the
// incremental shapes with a rebuild from scratch.
func TestStressIncremental(t *testing.T) {
	steps := 60_000
	if testing.Short() {
		steps = 10_000
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var cand []gomoku.Point
	for n, game := 0, 0; n < steps; game++ {
		pos := NewPosition(gomoku.Options{Rule: gomoku.Rule(game % 2), Radius: 1 + game%3})
		for k := 0; k < 300 && n < steps; k++ {
			n++
			if pos.Board().Stones() > 0 && (pos.Board().Over() || rng.IntN(3) == 0) {
				if _, err := pos.Undo(); err != nil {
					t.Fatal(err)
				}
			} else {
				var q gomoku.Point
				q, cand = randomMove(rng, pos.Board(), cand)
				if err := pos.Play(q); err != nil {
					t.Fatal(err)
				}
			}
			if n%5 == 0 {
				if err := pos.Check(); err != nil {
					t.Fatalf("game %d step %d: %v\n%s", game, k, err, pos.Board())
				}
			}
		}
	}
}

// TestJournalClonesAndResets: Undo puts back the journal of the Puts
// (a clone's copy of it included) and looks up the stones put before a
// Reset. A clone and its original, played and undone in turns, both stay
// equal to a rebuild and never disturb each other.
func TestJournalClonesAndResets(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var cand []gomoku.Point
	step := func(pos *Position) {
		if pos.Board().Stones() > 0 && (pos.Board().Over() || rng.IntN(3) == 0) {
			if _, err := pos.Undo(); err != nil {
				t.Fatal(err)
			}
			return
		}
		var q gomoku.Point
		q, cand = randomMove(rng, pos.Board(), cand)
		if err := pos.Play(q); err != nil {
			t.Fatal(err)
		}
		if len(pos.frames) == 0 {
			t.Fatal("Put left no journal")
		}
	}
	for game := range 40 {
		pos := NewPosition(gomoku.Options{Rule: gomoku.Rule(game % 2)})
		for range 20 + rng.IntN(20) {
			step(pos)
		}
		if game%4 == 0 { // the stones so far are undone by looking up
			b := *pos.Board()
			pos.Reset(&b)
		}
		cp := pos.Clone()
		for k := range 120 {
			step(pos)
			step(cp)
			if k%7 == 0 {
				for _, p := range []*Position{pos, cp} {
					if err := p.Check(); err != nil {
						t.Fatalf("game %d step %d: %v\n%s", game, k, err, p.Board())
					}
				}
			}
		}
		for _, p := range []*Position{pos, cp} {
			for p.Board().Stones() > 0 {
				if _, err := p.Undo(); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Check(); err != nil {
				t.Fatalf("game %d, all undone: %v", game, err)
			}
		}
	}
}

// TestNearTable: under Freestyle the small table keyed by the 8 nearest
// cells gives, for every one of the 59,049 windows, the shape of the full
// table; under Standard (where a sixth stone 5 away makes an overline)
// there is none.
func TestNearTable(t *testing.T) {
	if tables[gomoku.Standard].near != nil {
		t.Fatal("Standard has a near table")
	}
	ft := &tables[gomoku.Freestyle]
	if len(ft.near) != numNear {
		t.Fatalf("Freestyle near table has %d entries, want %d", len(ft.near), numNear)
	}
	checked := 0
	for k := range numKeys {
		own, blocked := decode(uint16(k))
		own &^= centre
		got := ft.near[ternNear[own>>1&nearMask]+2*ternNear[blocked>>1&nearMask]]
		if want := ft.shape[k]; got != want {
			t.Fatalf("window %011b/%011b: near table %v, full %v", own, blocked, got, want)
		}
		checked++
	}
	if checked != numKeys {
		t.Fatalf("checked %d windows", checked)
	}
}

// TestPuts: Puts counts every Put, Undo takes none back, a copy carries
// the count on, and the trial stones of Defences are not counted.
func TestPuts(t *testing.T) {
	pos := NewPosition(gomoku.Options{Rule: gomoku.Freestyle})
	// Black h8 i8 j8 (an open three), white h9 h10.
	for _, s := range []string{"h8", "h9", "i8", "h10", "j8"} {
		q, err := gomoku.ParsePoint(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := pos.Play(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pos.Undo(); err != nil {
		t.Fatal(err)
	}
	if got := pos.Puts(); got != 5 {
		t.Fatalf("Puts %d after 5 puts and an undo, want 5", got)
	}
	q, _ := gomoku.ParsePoint("j8")
	if err := pos.Play(q); err != nil {
		t.Fatal(err)
	}
	if pos.Set(MakesWin, gomoku.Black).Empty() {
		t.Fatal("no open three for Black")
	}
	if def := pos.Defences(gomoku.White); def.Empty() || pos.Puts() != 6 {
		t.Fatalf("Defences %v: Puts %d, want 6", def, pos.Puts())
	}
	cp := pos.Clone()
	if err := cp.Play(gomoku.Center - 1); err != nil {
		t.Fatal(err)
	}
	if cp.Puts() != 7 || pos.Puts() != 6 {
		t.Errorf("copy %d, original %d, want 7 and 6", cp.Puts(), pos.Puts())
	}
}
