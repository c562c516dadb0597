package canon

import (
	"math/rand/v2"
	"strings"
	"testing"

	"ocvist/gomoku"
)

// position40 plays seeded random games, moves drawn near the stones,
// until one reaches 40 stones without a win.
func position40(tb testing.TB) *gomoku.Board {
	tb.Helper()
	rng := rand.New(rand.NewPCG(40, 40))
	for {
		b := gomoku.New(gomoku.Options{})
		_ = b.Play(gomoku.Center)
		var cand []gomoku.Point
		for b.Stones() < 40 && !b.Over() {
			cand = b.Candidates(cand[:0])
			if err := b.Play(cand[rng.IntN(len(cand))]); err != nil {
				tb.Fatal(err)
			}
		}
		if b.Stones() == 40 && b.Winner() == gomoku.Empty {
			return b
		}
	}
}

// BenchmarkKey40 guards Of: the key of a 40-stone position (target
// 2 µs).
func BenchmarkKey40(b *testing.B) {
	bd := position40(b)
	b.ReportAllocs()
	for b.Loop() {
		if Of(bd).Key == "" {
			b.Fatal("empty key")
		}
	}
}

// BenchmarkToCanon maps every cell of a 40-stone position, and of a
// position with all 8 symmetries (the slowest case), into the canonical
// frame; ns/op is per cell.
func BenchmarkToCanon(b *testing.B) {
	sym, _, _, err := Decode("0100x0001o0201o0102x")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		bd   *gomoku.Board
	}{{"40", position40(b)}, {"symmetric", mustBoard(b, translate(sym, 6, 6))}} {
		b.Run(tc.name, func(b *testing.B) {
			pos := Of(tc.bd)
			var sink Move
			p := gomoku.Point(0)
			b.ReportAllocs()
			for b.Loop() {
				m := pos.ToCanon(p)
				sink.X ^= m.X
				if p++; p == gomoku.NumCells {
					p = 0
				}
			}
			_ = sink
		})
	}
}

// BenchmarkID measures the id of a 20-stone key (100 bytes).
func BenchmarkID(b *testing.B) {
	key := strings.Repeat("0102x", 20)
	var sum int64
	b.ReportAllocs()
	for b.Loop() {
		sum += ID(key)
	}
	_ = sum
}
