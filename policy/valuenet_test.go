package policy

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"ocvist/gomoku"
	"ocvist/mlp"
	"ocvist/patterns"
)

// TestCellKinds: a kind is the multiset of a cell's four shapes: the 10^4
// orders of four digits fall into exactly C(13, 4) = 715 kinds, two
// combinations share a kind exactly when their digits are permutations of
// each other, and kind 0 is four Nones.
func TestCellKinds(t *testing.T) {
	sorted := func(c int) [4]int {
		s := [4]int{c % 10, c / 10 % 10, c / 100 % 10, c / 1000}
		for i := 1; i < 4; i++ {
			for j := i; j > 0 && s[j] < s[j-1]; j-- {
				s[j], s[j-1] = s[j-1], s[j]
			}
		}
		return s
	}
	byDigits := map[[4]int]uint16{}
	kinds := map[uint16][4]int{}
	for c := range numCombos {
		k, s := cellKind[c], sorted(c)
		if prev, ok := byDigits[s]; ok && prev != k {
			t.Fatalf("combination %04d: kind %d, its permutation had %d", c, k, prev)
		}
		if prev, ok := kinds[k]; ok && prev != s {
			t.Fatalf("kind %d holds the digits %v and %v", k, prev, s)
		}
		byDigits[s], kinds[k] = k, s
	}
	if len(kinds) != NumCellKinds {
		t.Errorf("%d kinds, want %d", len(kinds), NumCellKinds)
	}
	for k := range kinds {
		if int(k) >= NumCellKinds {
			t.Errorf("kind %d out of range", k)
		}
	}
	if cellKind[0] != 0 {
		t.Errorf("four Nones are kind %d, want 0", cellKind[0])
	}
}

// TestKindOfWord: every side's word of four shapes (direction d's in
// bits 16d to 16d+7) has the kind of its combination of digits.
func TestKindOfWord(t *testing.T) {
	for c := range numCombos {
		x := uint64(c%10) | uint64(c/10%10)<<16 | uint64(c/100%10)<<32 | uint64(c/1000)<<48
		if got := kindOfWord(x); got != cellKind[c] {
			t.Fatalf("combination %04d (word %#x): kind %d, want %d", c, x, got, cellKind[c])
		}
	}
}

// slowNetRow is Fill's sparse part the slow way: every empty cell's kind
// from Summary's shapes, per side, and ThreatMask from the class sets.
func slowNetRow(pos *patterns.Position) map[uint32]float32 {
	me := pos.Board().ToMove()
	want := map[uint32]float32{}
	for q := range gomoku.Point(gomoku.NumCells) {
		if pos.Board().At(q) != gomoku.Empty {
			continue
		}
		for side, off := range map[gomoku.Player]int{me: 0, me.Other(): colOppKinds} {
			sh := pos.Summary(q, side).Shapes
			c := int(sh[0]) + 10*int(sh[1]) + 100*int(sh[2]) + 1000*int(sh[3])
			if c != 0 {
				want[uint32(off+int(cellKind[c]))]++
			}
		}
	}
	want[uint32(colThreatMasks+ThreatMask(pos, me))] = 1
	return want
}

// TestNetRow: Fill lists each kind of the mover's and the opponent's
// cells once with its count and the threat mask last, as the slow
// reference counts them, and its dense inputs are set 2's columns; a
// Valuer of a network scores each position as the network's Predict of
// the row, to the last bit, and so does a second call (its counts are
// cleared between positions).
func TestNetRow(t *testing.T) {
	ps, _ := middleGames(t, 64)
	vm := randomNet(t, 16)
	v := NewValuer(vm)
	var r NetRow
	var f2 [NumValueFeatures2]float64
	for i, p := range ps {
		r.Fill(p)
		want := slowNetRow(p)
		if len(r.Cols) != len(want) || len(r.Counts) != len(r.Cols) {
			t.Fatalf("position %d: %d columns (%d counts), want %d", i, len(r.Cols), len(r.Counts), len(want))
		}
		for j, c := range r.Cols {
			if r.Counts[j] != want[c] {
				t.Errorf("position %d: column %d counts %v, want %v", i, c, r.Counts[j], want[c])
			}
		}
		if last := r.Cols[len(r.Cols)-1]; last < colThreatMasks {
			t.Errorf("position %d: the last column %d is not the threat mask", i, last)
		}
		ValueFeaturesOf(ValueFeatureSet2, f2[:], p)
		for j, x := range f2 {
			if r.Dense[j] != float32(x) {
				t.Errorf("position %d: dense %d is %v, want %v", i, j, r.Dense[j], x)
			}
		}
		pred := vm.Net.Predict(r.Cols, r.Counts, r.Dense[:])
		for range 2 {
			if got := v.Value(p); got != pred {
				t.Errorf("position %d: Valuer %v, Predict %v", i, got, pred)
			}
		}
	}
}

// TestThreatMask: each bit of ThreatMask against its definition from the
// class sets, for both sides to move, over middle games.
func TestThreatMask(t *testing.T) {
	ps, _ := middleGames(t, 64)
	seen := 0
	for _, p := range ps {
		for _, me := range []gomoku.Player{gomoku.Black, gomoku.White} {
			m := ThreatMask(p, me)
			opp := me.Other()
			fourThree := func(pl gomoku.Player) bool {
				for _, q := range p.Points(nil, patterns.MakesDouble, pl) {
					if p.Has(q, patterns.MakesFour, pl) {
						return true
					}
				}
				return false
			}
			want := []bool{
				p.Count(patterns.MakesFive, opp) > 0, p.Count(patterns.MakesFive, me) > 0,
				p.Count(patterns.MakesWin, me) > 0, p.Count(patterns.MakesWin, opp) > 0,
				fourThree(me), fourThree(opp),
				p.Count(patterns.MakesDouble, me) > 0, p.Count(patterns.MakesDouble, opp) > 0,
				p.Count(patterns.MakesFour, me) > 0, p.Count(patterns.MakesFour, opp) > 0,
				p.Count(patterns.MakesThree, me) > 0, p.Count(patterns.MakesThree, opp) > 0,
			}
			for bit, w := range want {
				if (m>>bit&1 == 1) != w {
					t.Errorf("bit %d of %012b for %v: want %v", bit, m, me, w)
				}
			}
			if m >= NumThreatMasks {
				t.Errorf("mask %d out of range", m)
			}
			seen |= m
		}
	}
	if seen != NumThreatMasks-1 {
		t.Errorf("the positions set only the bits %012b: the test sees too little", seen)
	}
}

// randomNet fits a small value network on the rows of middle-game
// positions with random targets.
func randomNet(tb testing.TB, hidden int) *ValueModel {
	ps, _ := middleGames(tb, 64)
	rows := NewValueNetRows()
	rng := rand.New(rand.NewPCG(7, 7))
	var r NetRow
	for _, p := range ps {
		r.Fill(p)
		rows.Add(r.Cols, r.Counts, r.Dense[:], rng.Float64(), 1)
	}
	cfg := mlp.DefaultConfig()
	cfg.Hidden, cfg.Epochs, cfg.Batch = hidden, 2, 16
	vm, err := FitValueNet(context.Background(), rows, gomoku.Freestyle, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return vm
}

// TestValueNetFile: a value network saved by SaveFile loads back through
// LoadValueFile and LoadValue (told from a forest by its first bytes) as
// the same model of set 3 and its rule; a network of other inputs or
// without its metadata is refused with ErrModel.
func TestValueNetFile(t *testing.T) {
	vm := randomNet(t, 8)
	path := filepath.Join(t.TempDir(), "v.net")
	if _, err := vm.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadValueFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Net == nil || got.Forest != nil || got.Set != ValueFeatureSet3 || got.FeatureSet() != ValueFeatureSet3 || got.Rule != gomoku.Freestyle {
		t.Fatalf("loaded %+v", got)
	}
	if err := got.Check(gomoku.Standard); err == nil {
		t.Error("a freestyle network accepted for standard")
	}
	b, _ := os.ReadFile(path)
	var again bytes.Buffer
	if err := got.Save(&again); err != nil || !bytes.Equal(again.Bytes(), b) {
		t.Errorf("saved again: %d bytes (err %v), the file has %d", again.Len(), err, len(b))
	}
	ps, _ := middleGames(t, 8)
	for _, p := range ps {
		if a, b := NewValuer(vm).Value(p), NewValuer(got).Value(p); a != b {
			t.Errorf("loaded model's value %v, fitted %v", b, a)
		}
	}

	rows := mlp.NewRows(10, 3)
	rows.Add([]uint32{1, 2}, []float32{1, 1}, []float32{0, 1, 2}, 1, 1)
	rows.Add([]uint32{3}, []float32{2}, []float32{1, 0, 0}, 0, 1)
	cfg := mlp.DefaultConfig()
	cfg.Hidden, cfg.Meta = 4, map[string]string{"value_set": "3", "rule": "freestyle"}
	other, err := mlp.Fit(context.Background(), rows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Meta = nil
	bare, err := mlp.Fit(context.Background(), rows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]*mlp.Model{"other inputs": other, "no metadata": bare} {
		var buf bytes.Buffer
		if err := n.Save(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadValue(&buf); !errors.Is(err, ErrModel) {
			t.Errorf("%s: %v, want ErrModel", name, err)
		}
	}
}
