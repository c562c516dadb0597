package patterns

import (
	"math/rand/v2"
	"testing"

	"ocvist/gomoku"
)

// middleGame returns n positions of 20 to 60 stones from seeded random
// play (the filter's candidates, so threats are common), none finished.
func middleGame(n int) []*Position {
	rng := rand.New(rand.NewPCG(8, 8))
	var out []*Position
	var res Result
	for len(out) < n {
		pos := NewPosition(gomoku.Options{})
		stop := 20 + rng.IntN(41)
		for pos.Board().Stones() < stop && !pos.Board().Over() {
			res = Filter(pos, pos.Board().ToMove(), Config{}, res)
			if pos.Play(res.Moves[rng.IntN(len(res.Moves))]) != nil {
				break
			}
		}
		if !pos.Board().Over() {
			out = append(out, pos)
		}
	}
	return out
}

// BenchmarkPlayUndo: one op places a stone with the incremental shape
// update and takes it back (two stone changes). Target: >= 1,000,000
// stones/s, i.e. <= 2 µs per op.
func BenchmarkPlayUndo(b *testing.B) {
	pos := middleGame(1)[0]
	cand := pos.Board().Candidates(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := pos.Play(cand[i%len(cand)]); err != nil {
			b.Fatal(err)
		}
		pos.Undo()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/stone")
}

// BenchmarkFilter: the full filter on 64 middle-game positions, side to
// move. Target: <= 20 µs per call.
func BenchmarkFilter(b *testing.B) {
	ps := middleGame(64)
	var res Result
	levels := map[Level]int{}
	for _, p := range ps {
		res = Filter(p, p.Board().ToMove(), Config{}, res)
		levels[res.Level]++
	}
	b.Logf("levels over the positions: %v", levels)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := ps[i%len(ps)]
		res = Filter(p, p.Board().ToMove(), Config{}, res)
	}
}

// BenchmarkVCF: the long-VCF test positions, with a small transposition
// table cleared per search, and without one.
func BenchmarkVCF(b *testing.B) {
	var ps []*Position
	var sides []gomoku.Player
	for _, tc := range longVCFs {
		bd, err := gomoku.ParseDiagram(tc.board, gomoku.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, FromBoard(bd))
		side := gomoku.Black
		if tc.side == "white" {
			side = gomoku.White
		}
		sides = append(sides, side)
	}
	line := make([]gomoku.Point, 0, 128)
	for _, withTT := range []bool{true, false} {
		name := "noTT"
		var tt *VCFTable
		if withTT {
			name, tt = "TT", NewVCFTable(12)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			nodes := 0
			for i := 0; i < b.N; i++ {
				k := i % len(ps)
				if tt != nil {
					tt.Clear()
				}
				_, ok, n := VCF(ps[k], sides[k], Limits{MaxDepth: 30, Table: tt, Line: line})
				if !ok {
					b.Fatal("no VCF")
				}
				nodes += n
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}
