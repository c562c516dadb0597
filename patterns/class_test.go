package patterns

import (
	"math/rand/v2"
	"testing"

	"ocvist/gomoku"
)

// classesOf is the slow twin of classOf: the Class bits of a cell for one
// side from its four shapes, written from the classes' definitions.
func classesOf(shapes [4]Shape) uint8 {
	var fives, fours, threes int
	wins := false
	for _, sh := range shapes {
		switch {
		case sh == Five:
			fives++
		case sh.IsFour():
			fours++
			wins = wins || sh == DoubleFour || sh == StraightFour
		case sh.IsThree():
			threes++
		}
	}
	var f uint8
	set := func(c Class, ok bool) {
		if ok {
			f |= 1 << c
		}
	}
	set(MakesFive, fives > 0)
	set(MakesWin, wins || fours >= 2)
	set(MakesFour, fours > 0)
	set(MakesThree, threes > 0)
	set(MakesDouble, fours > 0 && threes > 0 || threes >= 2)
	return f
}

// TestClassesFromShapes: in positions of seeded random play under every
// rule, every empty cell's classes for each side are those its four
// shapes define (classesOf), and the class sets hold exactly the cells
// with the class (Black's less its forbidden points under Renju). Each
// class is seen often enough for the check to mean something.
func TestClassesFromShapes(t *testing.T) {
	positions := 3_000
	if testing.Short() {
		positions = 600
	}
	var seen [numClasses]int
	for _, rule := range []gomoku.Rule{gomoku.Freestyle, gomoku.Standard, gomoku.Renju} {
		rng := rand.New(rand.NewPCG(5, uint64(rule)))
		var cand []gomoku.Point
		for n := 0; n < positions; {
			pos := NewPosition(gomoku.Options{Rule: rule})
			for !pos.Board().Over() && n < positions {
				var q gomoku.Point
				q, cand = randomMove(rng, pos.Board(), cand)
				if pos.Play(q) != nil {
					break // a forbidden point under Renju: a new game
				}
				n++
				for side := gomoku.Black; side <= gomoku.White; side++ {
					var sets [numClasses]gomoku.Set
					for r := gomoku.Point(0); r < gomoku.NumCells; r++ {
						if pos.Board().At(r) != gomoku.Empty {
							continue
						}
						var shapes [4]Shape
						for i, d := range gomoku.Dirs {
							shapes[i] = pos.Shape(r, d, side)
						}
						want := classesOf(shapes)
						if got := pos.Flags(r, side); got != want {
							t.Fatalf("%v: %v at %v, shapes %v: classes %08b, want %08b\n%s", rule, side, r, shapes, got, want, pos.Board())
						}
						if side == gomoku.Black && pos.Forbidden(r) {
							continue
						}
						for c := range Class(numClasses) {
							if want>>c&1 != 0 {
								sets[c].Add(r)
								seen[c]++
							}
						}
					}
					for c := range Class(numClasses) {
						if got := pos.Set(c, side); got != sets[c] {
							t.Fatalf("%v: %v's %v set %v, want %v\n%s", rule, side, c, got.AppendTo(nil), sets[c].AppendTo(nil), pos.Board())
						}
					}
				}
			}
		}
	}
	t.Logf("cells seen per class: %v", seen)
	for c, n := range seen {
		if n < 1000 {
			t.Errorf("class %v seen at %d cells only: the check is too weak", Class(c), n)
		}
	}
}
