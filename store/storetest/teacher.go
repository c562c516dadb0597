package storetest

import (
	"context"
	"testing"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/shard"
)

// MergeTeacher writes games as a teacher shard in a temporary directory
// and merges it into d, which must add them all.
func MergeTeacher(t testing.TB, d store.Store, games []store.TeacherGame) store.MergeResult {
	t.Helper()
	path, err := shard.WriteTeacherShard(context.Background(), t.TempDir(), d.Config(), games, map[string]string{"test": "1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Merge(context.Background(), path)
	if err != nil || res.AlreadyMerged || res.TeacherGames+res.Duplicates != int64(len(games)) || res.Games != 0 {
		t.Fatalf("merge teacher shard: %+v, %v", res, err)
	}
	return res
}

// TeacherGames are n games of each of generations 1..gens, with plies
// (root scores, some exact) on the odd games.
func TeacherGames(gens, n int) []store.TeacherGame {
	var out []store.TeacherGame
	for gen := 1; gen <= gens; gen++ {
		for i := range n {
			g := store.TeacherGame{Gen: gen, Game: i, Book: 1, Winner: gomoku.Player(i % 3),
				Moves: []gomoku.Point{gomoku.Center, gomoku.Point(gen), gomoku.Point(100 + i)}}
			g.Teacher = []gomoku.Point{gomoku.Point(gen), gomoku.Point(200 + i)}
			if i%2 == 1 {
				g.Plies = []store.TeacherPly{
					{Score: -30000, Depth: 0},
					{Score: int16(37 * i), Depth: 9, Exact: true, Root: []store.RootScore{{Move: 200, Score: 12}, {Move: 7, Score: -5}, {Move: 224, Score: -29999}}},
				}
			}
			out = append(out, g)
		}
	}
	return out
}

// ReadTeacher reads the teacher games of generations from..to of d.
func ReadTeacher(t testing.TB, d store.Store, from, to int) []store.TeacherGame {
	t.Helper()
	var got []store.TeacherGame
	if err := d.TeacherGames(context.Background(), from, to, func(g store.TeacherGame) error { got = append(got, g); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}
