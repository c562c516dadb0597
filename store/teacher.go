package store

import (
	"context"
	"database/sql"
	"encoding/binary"
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
const maxDepth = 255

func (g *TeacherGame) check() error {
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
		if pl.Depth < 0 || pl.Depth > maxDepth || len(pl.Root) > gomoku.NumCells {
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

func points(b []byte) []gomoku.Point {
	out := make([]gomoku.Point, len(b))
	for i, c := range b {
		out[i] = gomoku.Point(c)
	}
	return out
}

func pointBytes(ps []gomoku.Point) []byte {
	out := make([]byte, len(ps))
	for i, p := range ps {
		out[i] = byte(p)
	}
	return out
}

// The plies of a teacher game, as teacher shards (run.go) and the
// teacher_games table's plies column hold them: per ply, in order, the
// score (zig-zag varint), the depth (uvarint), a flags byte (bit 0:
// exact), the number of root moves (uvarint) and per root move its point
// (one byte, y·15+x) and score (zig-zag varint). Empty bytes are no plies
// (a game stored before schema 6).
const plyExact = 1

// appendPlies appends the encoding of plies to b.
func appendPlies(b []byte, plies []TeacherPly) []byte {
	for _, pl := range plies {
		b = binary.AppendVarint(b, int64(pl.Score))
		b = binary.AppendUvarint(b, uint64(pl.Depth))
		var fl byte
		if pl.Exact {
			fl = plyExact
		}
		b = append(b, fl)
		b = binary.AppendUvarint(b, uint64(len(pl.Root)))
		for _, r := range pl.Root {
			b = append(b, byte(r.Move))
			b = binary.AppendVarint(b, int64(r.Score))
		}
	}
	return b
}

// parsePlies decodes n plies from b, which they must fill exactly; no
// bytes give nil.
func parsePlies(b []byte, n int) ([]TeacherPly, error) {
	if len(b) == 0 {
		return nil, nil
	}
	out := make([]TeacherPly, n)
	bad := func(what string) ([]TeacherPly, error) {
		return nil, fmt.Errorf("%w: teacher plies: %s", ErrCorrupt, what)
	}
	score := func() (int16, bool) {
		v, k := binary.Varint(b)
		if k <= 0 || v < -1<<15 || v >= 1<<15 {
			return 0, false
		}
		b = b[k:]
		return int16(v), true
	}
	for i := range out {
		pl := &out[i]
		var ok bool
		if pl.Score, ok = score(); !ok {
			return bad("score")
		}
		d, k := binary.Uvarint(b)
		if k <= 0 || d > maxDepth || len(b) < k+1 {
			return bad("depth")
		}
		pl.Depth, pl.Exact, b = int(d), b[k]&plyExact != 0, b[k+1:]
		nr, k := binary.Uvarint(b)
		if k <= 0 || nr > gomoku.NumCells {
			return bad("root moves")
		}
		b = b[k:]
		if nr > 0 {
			pl.Root = make([]RootScore, nr)
		}
		for j := range pl.Root {
			if len(b) == 0 || b[0] >= gomoku.NumCells {
				return bad("root move")
			}
			pl.Root[j].Move, b = gomoku.Point(b[0]), b[1:]
			if pl.Root[j].Score, ok = score(); !ok {
				return bad("root score")
			}
		}
	}
	if len(b) != 0 {
		return bad("bytes after the last ply")
	}
	return out, nil
}

// teacherRow is a teacher game as the teacher_games table's columns hold
// it.
type teacherRow struct {
	gen, game, book, winner int
	moves, teacher, plies   []byte
}

func rowOf(g *TeacherGame) teacherRow {
	// Never nil: a nil []byte is SQL NULL.
	return teacherRow{g.Gen, g.Game, g.Book, int(g.Winner), pointBytes(g.Moves), pointBytes(g.Teacher), appendPlies([]byte{}, g.Plies)}
}

// game decodes the row, checking it.
func (r *teacherRow) decode() (TeacherGame, error) {
	g := TeacherGame{Gen: r.gen, Game: r.game, Book: r.book, Winner: gomoku.Player(r.winner), Moves: points(r.moves), Teacher: points(r.teacher)}
	if r.winner < 0 || r.winner > int(gomoku.White) {
		return g, fmt.Errorf("%w: teacher game %d/%d: winner %d", ErrCorrupt, r.gen, r.game, r.winner)
	}
	var err error
	if g.Plies, err = parsePlies(r.plies, len(g.Teacher)); err != nil {
		return g, fmt.Errorf("teacher game %d/%d: %w", r.gen, r.game, err)
	}
	return g, g.check()
}

// schemaTeacherShards is the SQLite schema from which teacher games come
// through shards: teacher_games has plies, merged_shards a kind, and the
// loop's plans and claims have their tables.
const schemaTeacherShards = 6

// TeacherGames calls fn with the stored games of generations from..to
// (inclusive) in (Gen, Game) order.
func (d *DB) TeacherGames(ctx context.Context, from, to int, fn func(TeacherGame) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	plies := "plies"
	if d.schema < schemaTeacherShards {
		plies = "x''"
	}
	rows, err := d.db.QueryContext(ctx, `SELECT gen, game, book, winner, moves, teacher, `+plies+` FROM teacher_games
		WHERE gen BETWEEN ? AND ? ORDER BY gen, game`, from, to)
	if err != nil {
		return fmt.Errorf("store: teacher games of %q: %w", d.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r teacherRow
		if err := rows.Scan(&r.gen, &r.game, &r.book, &r.winner, &r.moves, &r.teacher, &r.plies); err != nil {
			return fmt.Errorf("store: teacher games of %q: %w", d.path, err)
		}
		g, err := r.decode()
		if err != nil {
			return fmt.Errorf("store: %q: %w", d.path, err)
		}
		if err := fn(g); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: teacher games of %q: %w", d.path, err)
	}
	return nil
}

// TeacherStored counts the stored teacher games of generation gen.
func (d *DB) TeacherStored(ctx context.Context, gen int) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int64
	if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM teacher_games WHERE gen = ?", gen).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: teacher games of generation %d in %q: %w", gen, d.path, err)
	}
	return n, nil
}

// insertTeacher adds a teacher shard's games in tx, once per (Gen, Game):
// it returns how many were new; the others were stored before (the same
// game of the same generation, played again after a member was lost) and
// stay as they were.
func insertTeacher(ctx context.Context, tx *sql.Tx, next func() (*TeacherGame, error)) (added, dup int64, err error) {
	st, err := tx.PrepareContext(ctx, `INSERT INTO teacher_games (gen, game, book, winner, moves, teacher, plies) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (gen, game) DO NOTHING`)
	if err != nil {
		return 0, 0, err
	}
	defer st.Close()
	for {
		g, err := next()
		if err != nil || g == nil {
			return added, dup, err
		}
		r := rowOf(g)
		res, err := st.ExecContext(ctx, r.gen, r.game, r.book, r.winner, r.moves, r.teacher, r.plies)
		if err != nil {
			return added, dup, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			added++
		} else {
			dup++
		}
	}
}
