package loop

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"ocvist/gomoku"
	"ocvist/store"
)

func copyGames(games []store.TeacherGame) []*store.TeacherGame {
	out := make([]*store.TeacherGame, len(games))
	for i, g := range games {
		g.Plies = slices.Clone(g.Plies)
		out[i] = &g
	}
	return out
}

func scoresOf(games []*store.TeacherGame) [][]int16 {
	out := make([][]int16, len(games))
	for i, g := range games {
		for _, p := range g.Plies {
			out[i] = append(out[i], p.Score)
		}
	}
	return out
}

// TestRescore: rescoring teacher games at the teacher's own budget and
// settings gives back the teacher's scores exactly (the same searches in
// the same order from a cleared table); a bigger budget changes them,
// alike on one worker and on three, and leaves the games' moves and the
// draws as they were.
func TestRescore(t *testing.T) {
	games := teacherGames(t, 6, 300, 0) // no exploration: every ply the teacher's plain search
	prior := startModel(t)
	decided := 0
	for _, g := range games {
		if g.Winner != gomoku.Empty {
			decided++
		}
	}
	if decided == 0 {
		t.Fatal("no decided game to rescore")
	}
	ctx := context.Background()
	cfg := DefaultConfig()

	same := copyGames(games)
	if err := (&Rescore{Nodes: 300, Policy: prior, Workers: 2}).rescoreGames(ctx, cfg, same); err != nil {
		t.Fatal(err)
	}
	for i, g := range same {
		if !reflect.DeepEqual(*g, games[i]) {
			t.Errorf("game %d rescored at the teacher's budget: scores %v, the teacher's %v", i, scoresOf(same)[i], scoresOf(copyGames(games))[i])
		}
	}

	var deeper [][][]int16
	for _, workers := range []int{1, 3} {
		gs := copyGames(games)
		done := 0
		r := &Rescore{Nodes: 3000, Policy: prior, Workers: workers, Progress: func(d, total int) { done = max(done, d) }}
		if err := r.rescoreGames(ctx, cfg, gs); err != nil {
			t.Fatal(err)
		}
		if done != len(gs) {
			t.Errorf("%d workers: progress reached %d of %d games", workers, done, len(gs))
		}
		changed := 0
		for i, g := range gs {
			orig := games[i]
			if !slices.Equal(g.Moves, orig.Moves) || !slices.Equal(g.Teacher, orig.Teacher) || g.Book != orig.Book || g.Winner != orig.Winner {
				t.Errorf("game %d: rescoring changed the game", i)
			}
			for k, p := range g.Plies {
				if p.Score != orig.Plies[k].Score {
					changed++
				}
				if p.Depth != orig.Plies[k].Depth || p.Exact != orig.Plies[k].Exact || !reflect.DeepEqual(p.Root, orig.Plies[k].Root) {
					t.Errorf("game %d ply %d: rescoring changed more than the score", i, k)
				}
			}
			if orig.Winner == gomoku.Empty && !reflect.DeepEqual(*g, orig) {
				t.Errorf("game %d, a draw, was rescored", i)
			}
		}
		if changed == 0 {
			t.Errorf("%d workers: 3,000-node searches gave every one of the 300-node scores", workers)
		}
		deeper = append(deeper, scoresOf(gs))
	}
	if !reflect.DeepEqual(deeper[0], deeper[1]) {
		t.Error("one worker and three rescored differently")
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := (&Rescore{Nodes: 3000, Workers: 2}).rescoreGames(cancelled, cfg, copyGames(games)); err == nil {
		t.Error("a cancelled rescore returned no error")
	}
	if err := (&Rescore{Nodes: 50, Workers: 1}).rescoreGames(ctx, cfg, copyGames(games)); err == nil {
		t.Error("a 50-node rescore was accepted")
	}
}
