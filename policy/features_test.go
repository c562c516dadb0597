package policy

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/patterns"
)

func mustPosition(t testing.TB, diagram string) *patterns.Position {
	t.Helper()
	b, err := gomoku.ParseDiagram(diagram, gomoku.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return patterns.FromBoard(b)
}

// Black (x) to move. x: f7 g7 h7 (an open three on row 7) and b1; o: e9
// e8 e6 (a broken three in column e) and l5.
const featureDiagram = `
...............
...............
...............
...............
...............
...............
....o..........
....o..........
.....xxx.......
....o..........
...........o...
...............
...............
...............
.x.............
`

func TestFeaturesHandChecked(t *testing.T) {
	pos := mustPosition(t, featureDiagram)
	if pos.Board().ToMove() != gomoku.Black {
		t.Fatalf("to move %v", pos.Board().ToMove())
	}
	res := patterns.Filter(pos, gomoku.Black, patterns.Config{}, patterns.Result{})
	if res.Level != patterns.Trivial2nd || !res.Attack {
		t.Fatalf("filter level %v attack %v, want trivial2nd attack", res.Level, res.Attack)
	}
	dst := make([]float64, NumFeatures)
	i7, _ := gomoku.ParsePoint("i7") // makes f7 g7 h7 i7 a straight four
	Features(dst, pos, &res, i7)
	check(t, "i7 for x", dst, map[string]float64{
		"mover_shape_1": float64(patterns.StraightFour),
		"mover_shape_2": float64(patterns.None),
		"block_shape_1": float64(patterns.None),
		"mover_fours":   1,
		"mover_threes":  0,
		"block_fours":   0,
		"filter_level":  float64(patterns.Trivial2nd),
		"filter_attack": 1,
		"candidates":    float64(len(res.Moves)),
		"own_near1":     1, // h7
		"opp_near1":     0,
		"own_near2":     2, // g7
		"own_near3":     3, // f7
		"opp_near3":     1, // l5
		"edge_distance": 6, // i7 is column 8 of 0..14
		"own_distance":  1,
		"opp_distance":  3,
		"stones":        8,
		"mover_black":   1,
	})
	// White to move (a black stone in the corner): e7 makes o's straight
	// four in column e and takes x's straight-four point on row 7.
	if err := pos.Put(gomoku.Pt(0, 0), gomoku.Black); err != nil {
		t.Fatal(err)
	}
	res = patterns.Filter(pos, gomoku.White, patterns.Config{}, res)
	e7, _ := gomoku.ParsePoint("e7")
	Features(dst, pos, &res, e7)
	check(t, "e7 for o", dst, map[string]float64{
		"mover_shape_1": float64(patterns.StraightFour),
		"block_shape_1": float64(patterns.StraightFour),
		"mover_fours":   1,
		"block_fours":   1,
		"mover_black":   0,
		"stones":        9,
	})
}

func check(t *testing.T, what string, row []float64, want map[string]float64) {
	t.Helper()
	for name, w := range want {
		i := slices.Index(FeatureNames[:], name)
		if i < 0 {
			t.Fatalf("no feature %q", name)
		}
		if row[i] != w {
			t.Errorf("%s: %s = %v, want %v", what, name, row[i], w)
		}
	}
}

// TestFeaturesSymmetric: a feature row depends only on the position and
// the move, not on the board's orientation, except edge distance.
func TestFeaturesSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for range 200 {
		b := gomoku.New(gomoku.Options{})
		b.Play(gomoku.Center)
		for b.Stones() < 2+rng.IntN(30) && !b.Over() {
			c := b.Candidates(nil)
			b.Play(c[rng.IntN(len(c))])
		}
		if b.Over() {
			continue
		}
		// Mirror the board left-right.
		m := gomoku.New(gomoku.Options{})
		for _, p := range b.History() {
			m.Play(gomoku.Pt(gomoku.Size-1-p.X(), p.Y()))
		}
		pb, pm := patterns.FromBoard(b), patterns.FromBoard(m)
		rb := patterns.Filter(pb, b.ToMove(), patterns.Config{}, patterns.Result{})
		rm := patterns.Filter(pm, m.ToMove(), patterns.Config{}, patterns.Result{})
		x, y := make([]float64, NumFeatures), make([]float64, NumFeatures)
		for _, q := range rb.Moves {
			Features(x, pb, &rb, q)
			Features(y, pm, &rm, gomoku.Pt(gomoku.Size-1-q.X(), q.Y()))
			if !slices.Equal(x, y) {
				t.Fatalf("move %v: %v vs mirrored %v\n%s", q, x, y, b)
			}
		}
	}
}

func TestPlacement(t *testing.T) {
	for _, tc := range []struct {
		w, h, mx, my int
		ox, oy       int
		ok           bool
	}{
		{1, 1, -1, -1, 7, 7, true},
		{3, 2, 4, 0, 6, 6, true},
		{15, 1, 0, 0, 0, 7, true},
		{15, 1, 15, 0, 0, 0, false},
		{14, 3, -1, 1, 1, 6, true},
		{10, 10, 12, -3, 2, 3, true},
	} {
		ox, oy, ok := Placement(tc.w, tc.h, tc.mx, tc.my)
		if ok != tc.ok || (ok && (ox != tc.ox || oy != tc.oy)) {
			t.Errorf("Placement(%d,%d,%d,%d) = %d,%d,%v want %d,%d,%v", tc.w, tc.h, tc.mx, tc.my, ox, oy, ok, tc.ox, tc.oy, tc.ok)
		}
		if ok && (!gomoku.OnBoard(ox+tc.mx, oy+tc.my) || !gomoku.OnBoard(ox, oy) || !gomoku.OnBoard(ox+tc.w-1, oy+tc.h-1)) {
			t.Errorf("Placement(%d,%d,%d,%d) puts something off the board", tc.w, tc.h, tc.mx, tc.my)
		}
	}
}

// TestBuildDatasets: rows from stored statistics become weighted samples
// whose features equal those computed on the real board, and the split
// keeps every position on one side.
func TestBuildDatasets(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var stats []Stat
	type ref struct {
		row    []float64
		wins   float64
		losses float64
	}
	want := map[string]ref{}
	for range 600 {
		b := gomoku.New(gomoku.Options{})
		b.Play(gomoku.Center)
		for b.Stones() < 1+rng.IntN(25) && !b.Over() {
			c := b.Candidates(nil)
			b.Play(c[rng.IntN(len(c))])
		}
		// Shapes next to the edge are blocked by it, and a key does not know
		// where the position stood: compare only positions away from it.
		if b.Over() || nearEdge(b, 5) {
			continue
		}
		c := canon.Of(b)
		pos := patterns.FromBoard(b)
		res := patterns.Filter(pos, b.ToMove(), patterns.Config{}, patterns.Result{})
		q := res.Moves[rng.IntN(len(res.Moves))]
		m := c.ToCanon(q)
		games := int64(1 + rng.IntN(9))
		wsum := int64(rng.IntN(int(2*games+1))) - games
		k := c.Key + string(rune(m.X+64)) + string(rune(m.Y+64))
		if _, dup := want[k]; dup {
			continue
		}
		// Features on the real board; BuildDatasets places the box centred,
		// so edge distance is the only feature that may differ.
		row := make([]float64, NumFeatures)
		Features(row, pos, &res, q)
		want[k] = ref{row, float64(games+wsum) / 2 / float64(games), float64(games-wsum) / 2 / float64(games)}
		stats = append(stats, Stat{Key: c.Key, Move: m, WSum: wsum, Games: games})
	}
	slices.SortFunc(stats, func(a, b Stat) int {
		if a.Key < b.Key {
			return -1
		} else if a.Key > b.Key {
			return 1
		}
		return 0
	})
	scan := func(minGames int64, fn func(Stat) error) error {
		for _, s := range stats {
			if s.Games >= minGames {
				if err := fn(s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	train, test, err := BuildDatasets(context.Background(), scan, DatasetConfig{MinGames: 1, Holdout: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var total, wins float64
	for _, d := range []*Dataset{train, test} {
		for i := range d.Len() {
			total += d.Weights[i]
			if d.Labels[i] == 1 {
				wins += d.Weights[i]
			}
		}
	}
	var wantTotal, wantWins float64
	for _, r := range want {
		wantTotal += r.wins + r.losses
		wantWins += r.wins
	}
	if math.Abs(total-wantTotal) > 1e-9 || math.Abs(wins-wantWins) > 1e-9 || math.Abs(total-float64(len(want))) > 1e-9 {
		t.Errorf("weights: total %v wins %v, want %v and %v", total, wins, wantTotal, wantWins)
	}
	// Each row's samples (one per non-zero weight) go where its key does.
	var wantTrain, wantTest int
	for _, st := range stats {
		n := 2
		if st.WSum == st.Games || st.WSum == -st.Games {
			n = 1
		}
		if heldOut(st.Key, 1, 0.3) {
			wantTest += n
		} else {
			wantTrain += n
		}
	}
	if train.Len() != wantTrain || test.Len() != wantTest {
		t.Errorf("split %d/%d samples, want %d/%d by key", train.Len(), test.Len(), wantTrain, wantTest)
	}
	if want := (Spec{FeatureSet, gomoku.Freestyle, 2}); train.Spec != want || test.Spec != want {
		t.Errorf("specs %v and %v, want %v", train.Spec, test.Spec, want)
	}
	if len(want) < 100 || test.Len() == 0 || train.Len() < test.Len() {
		t.Errorf("split %d/%d for holdout 0.3", train.Len(), test.Len())
	}
	// Every sample's features, edge distance aside, match a real board's.
	// Edge distance and the candidate count (radius candidates stop at the
	// edge) depend on where the position stands; the rest must not.
	edge := slices.Index(FeatureNames[:], "edge_distance")
	cands := slices.Index(FeatureNames[:], "candidates")
	rows := map[string]bool{}
	for _, r := range want {
		r.row[edge], r.row[cands] = 0, 0
		rows[fmtRow(r.row)] = true
	}
	for _, d := range []*Dataset{train, test} {
		for i := range d.Len() {
			x := slices.Clone(d.X.RawRowView(i))
			x[edge], x[cands] = 0, 0
			if !rows[fmtRow(x)] {
				t.Fatalf("sample %d has features %v not seen on any real board", i, x)
			}
		}
	}
}

// nearEdge reports a stone within margin cells of the board's edge.
func nearEdge(b *gomoku.Board, margin int) bool {
	for _, p := range b.History() {
		if min(p.X(), p.Y(), gomoku.Size-1-p.X(), gomoku.Size-1-p.Y()) < margin {
			return true
		}
	}
	return false
}

func fmtRow(r []float64) string {
	b := make([]byte, 0, 8*len(r))
	for _, v := range r {
		b = append(b, byte(v), ',')
	}
	return string(b)
}
