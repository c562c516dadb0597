package shard

import (
	"encoding/binary"
	"fmt"

	"ocvist/gomoku"
	"ocvist/store"
)

func Points(b []byte) []gomoku.Point {
	out := make([]gomoku.Point, len(b))
	for i, c := range b {
		out[i] = gomoku.Point(c)
	}
	return out
}

func PointBytes(ps []gomoku.Point) []byte {
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
func AppendPlies(b []byte, plies []store.TeacherPly) []byte {
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
func ParsePlies(b []byte, n int) ([]store.TeacherPly, error) {
	if len(b) == 0 {
		return nil, nil
	}
	out := make([]store.TeacherPly, n)
	bad := func(what string) ([]store.TeacherPly, error) {
		return nil, fmt.Errorf("%w: teacher plies: %s", store.ErrCorrupt, what)
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
		if k <= 0 || d > store.MaxDepth || len(b) < k+1 {
			return bad("depth")
		}
		pl.Depth, pl.Exact, b = int(d), b[k]&plyExact != 0, b[k+1:]
		nr, k := binary.Uvarint(b)
		if k <= 0 || nr > gomoku.NumCells {
			return bad("root moves")
		}
		b = b[k:]
		if nr > 0 {
			pl.Root = make([]store.RootScore, nr)
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
type TeacherRow struct {
	Gen, Game, Book, Winner int
	Moves, Teacher, Plies   []byte
}

func RowOf(g *store.TeacherGame) TeacherRow {
	// Never nil: a nil []byte is SQL NULL.
	return TeacherRow{g.Gen, g.Game, g.Book, int(g.Winner), PointBytes(g.Moves), PointBytes(g.Teacher), AppendPlies([]byte{}, g.Plies)}
}

// game decodes the row, checking it.
func (r *TeacherRow) Decode() (store.TeacherGame, error) {
	g := store.TeacherGame{Gen: r.Gen, Game: r.Game, Book: r.Book, Winner: gomoku.Player(r.Winner), Moves: Points(r.Moves), Teacher: Points(r.Teacher)}
	if r.Winner < 0 || r.Winner > int(gomoku.White) {
		return g, fmt.Errorf("%w: teacher game %d/%d: winner %d", store.ErrCorrupt, r.Gen, r.Game, r.Winner)
	}
	var err error
	if g.Plies, err = ParsePlies(r.Plies, len(g.Teacher)); err != nil {
		return g, fmt.Errorf("teacher game %d/%d: %w", r.Gen, r.Game, err)
	}
	return g, g.Validate()
}
