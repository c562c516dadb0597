package store

import (
	"fmt"

	"ocvist/gomoku"
)

// TeacherGame is one game of the learning loop as the store keeps it (the
// training samples of package loop): generation Gen's game number Game,
// every stone in play order, how many of them the opening placed (Book),
// the teacher's move for every ply after the book, the teacher's search of
// each such ply (Plies) and the winner (Empty for a draw). Teacher games
// come into a database only through teacher shards (WriteTeacherShard,
// then Merge), once per (Gen, Game); prune never touches them.
type TeacherGame struct {
	Gen, Game int
	Moves     []gomoku.Point
	Book      int
	Teacher   []gomoku.Point
	// Plies are the teacher's searches, one per ply after the book (as
	// Teacher); nil for games stored before they were kept (schema 6).
	Plies  []TeacherPly
	Winner gomoku.Player
}

// TeacherPly is what the teacher's search said of one position: the score
// of its move, the depth it reached and every root move with its score.
// Scores are in the search's units from the mover's view (package search:
// IsMate tells a proven result; they lie within ±30,000).
type TeacherPly struct {
	Score int16 // of the teacher's move
	Depth int   // the last finished iteration (0: a threat search decided)
	// Exact: every root score is exact (the search's RootExact, the plies
	// the teacher explores in); otherwise only the best one is, the others
	// are upper bounds.
	Exact bool
	Root  []RootScore // the root moves, best first (none when a threat search decided)
}

// RootScore is one root move of a teacher's search with its score.
type RootScore struct {
	Move  gomoku.Point
	Score int16
}

// maxDepth bounds a ply's recorded depth (a search never goes deeper
// than the board's cells).
const MaxDepth = 255

func (g *TeacherGame) Validate() error {
	if g.Gen < 0 || g.Game < 0 || g.Book < 0 || g.Book > len(g.Moves) || len(g.Teacher) != len(g.Moves)-g.Book ||
		g.Winner > gomoku.White || g.Plies != nil && len(g.Plies) != len(g.Teacher) {
		return fmt.Errorf("%w: teacher game %d/%d: %d moves, book %d, %d teacher moves, %d plies, winner %d",
			ErrCorrupt, g.Gen, g.Game, len(g.Moves), g.Book, len(g.Teacher), len(g.Plies), g.Winner)
	}
	for _, p := range append(g.Moves[:len(g.Moves):len(g.Moves)], g.Teacher...) {
		if p >= gomoku.NumCells {
			return fmt.Errorf("%w: teacher game %d/%d: point %d off the board", ErrCorrupt, g.Gen, g.Game, p)
		}
	}
	for i, pl := range g.Plies {
		if pl.Depth < 0 || pl.Depth > MaxDepth || len(pl.Root) > gomoku.NumCells {
			return fmt.Errorf("%w: teacher game %d/%d: ply %d: depth %d, %d root moves", ErrCorrupt, g.Gen, g.Game, i, pl.Depth, len(pl.Root))
		}
		for _, r := range pl.Root {
			if r.Move >= gomoku.NumCells {
				return fmt.Errorf("%w: teacher game %d/%d: ply %d: root move %d off the board", ErrCorrupt, g.Gen, g.Game, i, r.Move)
			}
		}
	}
	return nil
}
