package store

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"ocvist/gomoku"
)

// TestTeacherGames: games round-trip in (gen, game) order, a batch added
// twice is stored once, a window reads only its generations, the games
// survive prune, and a malformed game is refused with nothing stored.
func TestTeacherGames(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t, "t.db")
	d := mustOpen(t, path)
	defer mustClose(t, d)
	var games []TeacherGame
	for gen := 1; gen <= 3; gen++ {
		for i := range 4 {
			g := TeacherGame{Gen: gen, Game: i, Book: 1, Winner: gomoku.Player(i % 3),
				Moves: []gomoku.Point{gomoku.Center, gomoku.Point(gen), gomoku.Point(100 + i)}}
			g.Teacher = []gomoku.Point{gomoku.Point(gen), gomoku.Point(200 + i)}
			games = append(games, g)
		}
	}
	for round, want := range []int64{12, 0} {
		n, err := d.AddTeacherGames(ctx, games)
		if err != nil || n != want {
			t.Fatalf("round %d: added %d (%v), want %d", round, n, err, want)
		}
	}
	if _, err := d.Prune(ctx, PruneConfig{MinGames: 2}); err != nil {
		t.Fatal(err)
	}
	var got []TeacherGame
	if err := d.TeacherGames(ctx, 2, 3, func(g TeacherGame) error { got = append(got, g); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, games[4:]) {
		t.Errorf("generations 2..3: %+v\nwant %+v", got, games[4:])
	}
	if st, err := d.Stats(ctx); err != nil || st.TeacherGames != 12 || st.Games != 0 {
		t.Errorf("stats: %d teacher games, %d games (%v); want 12 and 0", st.TeacherGames, st.Games, err)
	}
	bad := []TeacherGame{{Gen: 9, Moves: []gomoku.Point{1, 2}, Book: 1, Teacher: []gomoku.Point{2}},
		{Gen: 9, Game: 1, Moves: []gomoku.Point{1, 2}, Book: 1}}
	if _, err := d.AddTeacherGames(ctx, bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a game without its teacher moves: %v, want ErrCorrupt", err)
	}
	n := 0
	d.TeacherGames(ctx, 9, 9, func(TeacherGame) error { n++; return nil })
	if n != 0 {
		t.Errorf("%d games of the refused batch stored", n)
	}
}
