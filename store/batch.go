package store

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// moveCount is the aggregate of one (key, move) in a Batch.
type moveCount struct {
	wsum, games int64
	blacklisted bool
}

// Batch aggregates finished games in memory until WriteShard publishes them
// as one sorted run. Early positions repeat across games, so a batch holds
// far fewer rows than records. The zero value is not usable; call NewBatch.
// A Batch is not safe for concurrent use.
type Batch struct {
	moves map[KeyMove]moveCount
	seen  map[string]struct{} // scratch: keys of the game being added
	t     totals
	rows  []batchRow // scratch of WriteShard
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
	b.t.add(resultTotals(g.Result))
	return nil
}

// resultTotals counts one game of the given result.
func resultTotals(result int8) totals {
	switch result {
	case 1:
		return totals{games: 1, black: 1}
	case -1:
		return totals{games: 1, white: 1}
	}
	return totals{games: 1, draws: 1}
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
func (b *Batch) Len() int { return int(b.t.games) }

// Rows is the number of distinct (key, move) rows in the batch.
func (b *Batch) Rows() int { return len(b.moves) }

// Positions is the number of distinct positions (keys) among the batch's
// rows, counted on each call in time proportional to Rows.
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
	b.t = totals{}
}

// batchRow is one aggregated (key, move) row with its position id.
type batchRow struct {
	id int64
	km KeyMove
	mc moveCount
}

// sorted returns the batch's rows in run order: (id, key, x, y).
func (b *Batch) sorted() []batchRow {
	rows := b.rows[:0]
	ids := make(map[string]int64, len(b.moves)/2)
	for km, mc := range b.moves {
		id, ok := ids[km.Key]
		if !ok {
			id = PositionID(km.Key)
			ids[km.Key] = id
		}
		rows = append(rows, batchRow{id, km, mc})
	}
	slices.SortFunc(rows, func(p, q batchRow) int {
		if c := cmp.Compare(p.id, q.id); c != 0 {
			return c
		}
		if c := strings.Compare(p.km.Key, q.km.Key); c != 0 {
			return c
		}
		return cmpMove(p.km.Move, q.km.Move)
	})
	b.rows = rows
	return rows
}

// positions calls fn with the batch's positions in run order; the position
// is valid only during the call.
func (b *Batch) positions(fn func(*position) error) error {
	rows := b.sorted()
	var p position
	for i := 0; i < len(rows); {
		j := i
		p.id, p.key, p.born, p.moves = rows[i].id, append(p.key[:0], rows[i].km.Key...), 0, p.moves[:0]
		for ; j < len(rows) && rows[j].id == rows[i].id && rows[j].km.Key == rows[i].km.Key; j++ {
			mc := rows[j].mc
			p.moves = append(p.moves, moveRow{m: rows[j].km.Move, bl: mc.blacklisted, wsum: mc.wsum, games: mc.games})
		}
		if err := fn(&p); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// Shard file names: a shard is written as .shard-<id>.run.tmp and appears
// as shard-<id>.run only once sealed. Merge refuses anything unsealed.
const (
	shardPrefix = "shard-"
	runSuffix   = ".run"
	tempSuffix  = ".tmp"
)

// WriteShard publishes the batch as a new shard in dir: a sealed run file
// (see the package documentation) with a fresh random id and the given
// free-form meta entries, written under a temporary name, synced and then
// made visible as shard-<id>.run, whose path it returns. The batch is not
// modified; an empty batch writes nothing and returns "". Writing is never
// cancelled halfway: ctx is checked once, before anything is written, so a
// finished game is published even while a worker is being stopped. Guarded
// by BenchmarkWritePath.
func (b *Batch) WriteShard(ctx context.Context, dir string, cfg Config, meta map[string]string) (string, error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	if b.t.games == 0 {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	id := newID()
	path := filepath.Join(dir, shardPrefix+id+runSuffix)
	w, err := createRun(path, runHeader{kind: kindShard, cfg: cfg, id: id, meta: meta})
	if err != nil {
		return "", fmt.Errorf("store: write shard in %q: %w", dir, err)
	}
	if err := b.positions(w.position); err != nil {
		w.abort()
		return "", fmt.Errorf("store: write shard %q: %w", path, err)
	}
	if _, _, err := w.seal(b.t); err != nil {
		return "", fmt.Errorf("store: write shard: %w", err)
	}
	return path, nil
}

// IsTempShard reports whether path names an unsealed shard still being
// written (or left by a crash).
func IsTempShard(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "."+shardPrefix) && strings.HasSuffix(base, tempSuffix)
}

// CleanTemp removes the unsealed shards left in dir by crashed workers and
// returns the paths removed, sorted. It must not run while a worker may
// still be writing a shard in dir.
func CleanTemp(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(globEscape(dir), "."+shardPrefix+"*"+tempSuffix))
	if err != nil {
		return nil, fmt.Errorf("store: clean temporary shards in %q: %w", dir, err)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("store: clean temporary shard %q: %w", p, err)
		}
	}
	return paths, nil
}

// ListShards returns the sealed shards (shard-*.run) in dir, and shards of
// older versions (shard-*.db, which Merge refuses with a clear error rather
// than have them ignored), sorted.
func ListShards(dir string) ([]string, error) {
	var all []string
	for _, pat := range []string{shardPrefix + "*" + runSuffix, shardPrefix + "*.db"} {
		paths, err := filepath.Glob(filepath.Join(globEscape(dir), pat))
		if err != nil {
			return nil, fmt.Errorf("store: list shards in %q: %w", dir, err)
		}
		all = append(all, paths...)
	}
	slices.Sort(all)
	return all, nil
}

// syncFile fsyncs a file or directory.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// globEscape escapes glob metacharacters in a directory name.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}
