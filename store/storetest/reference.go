package storetest

import (
	"context"
	"fmt"
	"testing"

	"ocvist/store"
)

// Reference is the slow twin of Batch + shard + Merge: plain counting of
// the games added, to check a store against.
type Reference struct {
	moves               map[store.KeyMove]*store.MoveStat
	Games               int64
	Black, White, Draws int64 // the games' results
}

// NewReference is an empty reference.
func NewReference() *Reference {
	return &Reference{moves: map[store.KeyMove]*store.MoveStat{}}
}

// Add counts the games.
func (r *Reference) Add(games []store.Game) {
	for _, g := range games {
		for _, rec := range g.Records {
			m := r.row(store.KeyMove{Key: rec.Key, Move: rec.Move})
			m.WSum += int64(rec.Weight)
			m.Games++
		}
		for _, km := range g.Blacklist {
			r.row(km).Blacklisted = true
		}
		r.Games++
		switch g.Result {
		case 1:
			r.Black++
		case -1:
			r.White++
		default:
			r.Draws++
		}
	}
}

func (r *Reference) row(km store.KeyMove) *store.MoveStat {
	m := r.moves[km]
	if m == nil {
		m = &store.MoveStat{Key: km.Key, Move: km.Move}
		r.moves[km] = m
	}
	return m
}

// Check compares s with r row by row, both ways, and the totals.
func (r *Reference) Check(t testing.TB, s store.Store) {
	t.Helper()
	st := r.CheckRows(t, s)
	if st.BlackWins != r.Black || st.WhiteWins != r.White || st.Draws != r.Draws {
		t.Fatalf("stats %+v, want results %d/%d/%d", st, r.Black, r.White, r.Draws)
	}
}

// CheckRows is Check without the totals' results: rows both ways, games,
// positions and moves. It returns s's stats.
func (r *Reference) CheckRows(t testing.TB, s store.Store) store.Stats {
	t.Helper()
	ctx := context.Background()
	positions := map[string]int64{}
	for km, m := range r.moves {
		positions[km.Key] += m.Games
	}
	seen := 0
	err := s.ScanMoves(ctx, 0, func(m store.MoveStat) error {
		seen++
		want := r.moves[store.KeyMove{Key: m.Key, Move: m.Move}]
		if want == nil {
			return fmt.Errorf("unexpected row %+v", m)
		}
		w := *want
		w.PositionGames = positions[m.Key]
		if m != w {
			return fmt.Errorf("row %q %v: got %+v, want %+v", m.Key, m.Move, m, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(r.moves) {
		t.Fatalf("%d move rows, want %d", seen, len(r.moves))
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Games != r.Games || st.Positions != int64(len(positions)) || st.Moves != int64(len(r.moves)) {
		t.Fatalf("stats %+v, want games %d, positions %d, moves %d", st, r.Games, len(positions), len(r.moves))
	}
	return st
}
