package store

import (
	"cmp"
	"fmt"
	"slices"
)

// moveCount is the aggregate of one (key, move) in a Batch.
type moveCount struct {
	wsum, games int64
	blacklisted bool
}

// Batch aggregates finished games in memory until DB.Write stores them in one
// transaction. Early positions repeat across games, so a batch holds far fewer
// rows than records. The zero value is not usable; call NewBatch. A Batch is
// not safe for concurrent use.
type Batch struct {
	moves map[KeyMove]moveCount
	seen  map[string]struct{} // scratch: keys of the game being added
	games int64
	black int64
	white int64
	draws int64
}

// NewBatch returns an empty batch.
func NewBatch() *Batch {
	return &Batch{
		moves: make(map[KeyMove]moveCount),
		seen:  make(map[string]struct{}),
	}
}

// Add aggregates one finished game. It returns an error wrapping
// ErrInvalidGame, and leaves the batch unchanged, if a weight or the result is
// outside {−1, 0, +1} or a position occurs twice in the game. A blacklisted
// move that is not among the records gets a row with no games. Guarded by
// BenchmarkBatchAdd.
func (b *Batch) Add(g Game) error {
	if err := b.check(g); err != nil {
		return err
	}
	for _, r := range g.Records {
		km := KeyMove{Key: r.Key, Move: r.Move}
		mc := b.moves[km]
		mc.wsum += int64(r.Weight)
		mc.games++
		b.moves[km] = mc
	}
	for _, km := range g.Blacklist {
		mc := b.moves[km]
		mc.blacklisted = true
		b.moves[km] = mc
	}
	b.games++
	switch g.Result {
	case 1:
		b.black++
	case -1:
		b.white++
	default:
		b.draws++
	}
	return nil
}

// check validates g without changing the batch.
func (b *Batch) check(g Game) error {
	if g.Result < -1 || g.Result > 1 {
		return fmt.Errorf("store: add game: result %d: %w", g.Result, ErrInvalidGame)
	}
	clear(b.seen)
	for i, r := range g.Records {
		if r.Weight < -1 || r.Weight > 1 {
			return fmt.Errorf("store: add game: record %d weight %d: %w", i, r.Weight, ErrInvalidGame)
		}
		if _, dup := b.seen[r.Key]; dup {
			return fmt.Errorf("store: add game: position %q occurs twice: %w", r.Key, ErrInvalidGame)
		}
		b.seen[r.Key] = struct{}{}
	}
	return nil
}

// Len is the number of games added.
func (b *Batch) Len() int { return int(b.games) }

// Rows is the number of distinct (key, move) rows the batch will upsert.
func (b *Batch) Rows() int { return len(b.moves) }

// Positions is the number of distinct positions (keys) among the batch's
// rows. Positions are derived from moves (see the package documentation), so
// it is counted on each call, in time proportional to Rows.
func (b *Batch) Positions() int {
	keys := make(map[string]struct{})
	for km := range b.moves {
		keys[km.Key] = struct{}{}
	}
	return len(keys)
}

// Reset empties the batch, keeping its memory for reuse.
func (b *Batch) Reset() {
	clear(b.moves)
	b.games, b.black, b.white, b.draws = 0, 0, 0, 0
}

// moveRow is one aggregated (key, move) row, as written.
type moveRow struct {
	km KeyMove
	mc moveCount
}

// sortedMoves returns the move rows in (key, mx, my) order, which is the
// table's primary-key order: writing in that order keeps B-tree pages hot.
func (b *Batch) sortedMoves() []moveRow {
	rows := make([]moveRow, 0, len(b.moves))
	for km, mc := range b.moves {
		rows = append(rows, moveRow{km, mc})
	}
	slices.SortFunc(rows, func(p, q moveRow) int {
		return cmpKeyMove(p.km, q.km)
	})
	return rows
}

// cmpKeyMove orders by key (bytewise, as SQLite's BINARY collation), mx, my.
func cmpKeyMove(p, q KeyMove) int {
	if c := cmp.Compare(p.Key, q.Key); c != 0 {
		return c
	}
	if c := cmp.Compare(p.Move.X, q.Move.X); c != 0 {
		return c
	}
	return cmp.Compare(p.Move.Y, q.Move.Y)
}
