package selfplay

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"ocvist/gomoku"
	"ocvist/search"
)

func teacherForTest() *Teacher {
	cfg := TeacherConfig{Nodes: 1500, Explore: 4, Margin: 30, MaxPly: 120}
	return NewTeacher(cfg, search.DefaultConfig())
}

// TestTeacherGames: teacher games are legal, refereed by gomoku, end as
// recorded, and repeat exactly from the same seed.
func TestTeacherGames(t *testing.T) {
	var games []TeacherGame
	for seed := range uint64(6) {
		g := teacherForTest().Play(rand.New(rand.NewPCG(seed, 1)))
		b := gomoku.New(gomoku.Options{MaxPly: 120})
		for i, p := range g.Moves {
			if err := b.Play(p); err != nil {
				t.Fatalf("game %d move %d %v: %v", seed, i, p, err)
			}
		}
		if !b.Over() || b.Winner() != g.Winner {
			t.Fatalf("game %d: board over %v winner %v, recorded %v", seed, b.Over(), b.Winner(), g.Winner)
		}
		if n := len(g.Moves) - g.Book; len(g.Teacher) != n || len(g.Plies) != n {
			t.Fatalf("game %d: %d plies, %d teacher moves, %d searches", seed, n, len(g.Teacher), len(g.Plies))
		}
		for i, p := range g.Plies {
			// The first 4 plies explore: every root score exact.
			if p.Exact != (i < 4) || len(p.Root) > 0 && p.Root[0].Move != g.Teacher[i] && p.Depth > 0 {
				t.Fatalf("game %d ply %d: search %+v, teacher's move %v", seed, i, p, g.Teacher[i])
			}
		}
		if tg := g.Stored(1, 2); tg.Gen != 1 || tg.Game != 2 || len(tg.Plies) != len(tg.Teacher) {
			t.Fatalf("stored %+v", tg)
		}
		for i, p := range g.Teacher {
			if i >= 4 && p != g.Moves[g.Book+i] {
				t.Fatalf("game %d ply %d: played %v, teacher chose %v after the exploration", seed, i, g.Moves[g.Book+i], p)
			}
		}
		if g.Winner != gomoku.Empty && g.Outcome(len(g.Moves)-1) != 1 {
			t.Fatalf("game %d: the last mover's outcome is %d, want a win", seed, g.Outcome(len(g.Moves)-1))
		}
		games = append(games, g)
	}
	again := teacherForTest().Play(rand.New(rand.NewPCG(3, 1)))
	if !reflect.DeepEqual(again, games[3]) {
		t.Fatal("the same seed played another game")
	}
	if reflect.DeepEqual(games[0].Moves, games[1].Moves) {
		t.Fatal("two seeds played the same game")
	}
}
