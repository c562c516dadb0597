package shard

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ocvist/canon"
	"ocvist/store"
)

// batchRecord is one record of a game, or one blacklisted move, as a Batch
// keeps it until WriteShard sorts and adds them up.
type batchRecord struct {
	id     int64
	key    string
	m      canon.Move
	weight int8
	black  bool // a blacklisted move: no game, only the flag
}

func cmpRecord(p, q *batchRecord) int {
	if c := cmp.Compare(p.id, q.id); c != 0 {
		return c
	}
	if c := strings.Compare(p.key, q.key); c != 0 {
		return c
	}
	return store.CompareMoves(p.m, q.m)
}

// Batch collects finished games in memory until WriteShard publishes them
// as one sorted run. Adding a game only appends its records (no hashing of
// keys into a map); WriteShard sorts them by position id and adds up equal
// (key, move) rows, so early positions, which repeat in most games, are
// stored once. The zero value is not usable; call NewBatch. A Batch is not
// safe for concurrent use.
type Batch struct {
	recs []batchRecord
	t    Counts
	ids  []int64       // scratch: ids of the game being added
	tmp  []batchRecord // scratch of the radix sort
}

// NewBatch returns an empty batch.
func NewBatch() *Batch { return &Batch{} }

// Add adds one finished game. It returns an error wrapping ErrInvalidGame,
// and leaves the batch unchanged, if a weight or the result is outside
// {−1, 0, +1} or a position occurs twice in the game. A blacklisted move
// that is not among the records gets a row with no games. The game's
// slices are not kept (their key strings are). Guarded by BenchmarkBatchAdd.
func (b *Batch) Add(g store.Game) error {
	if g.Result < -1 || g.Result > 1 {
		return fmt.Errorf("store: add game: result %d: %w", g.Result, store.ErrInvalidGame)
	}
	n := len(b.recs)
	b.ids = b.ids[:0]
	for i, r := range g.Records {
		if r.Weight < -1 || r.Weight > 1 {
			b.recs = b.recs[:n]
			return fmt.Errorf("store: add game: record %d weight %d: %w", i, r.Weight, store.ErrInvalidGame)
		}
		id := canon.ID(r.Key)
		b.ids = append(b.ids, id)
		b.recs = append(b.recs, batchRecord{id: id, key: r.Key, m: r.Move, weight: r.Weight})
	}
	if key, dup := b.repeated(b.recs[n:]); dup {
		b.recs = b.recs[:n]
		return fmt.Errorf("store: add game: position %q occurs twice: %w", key, store.ErrInvalidGame)
	}
	for _, km := range g.Blacklist {
		b.recs = append(b.recs, batchRecord{id: canon.ID(km.Key), key: km.Key, m: km.Move, black: true})
	}
	b.t.Add(ResultCounts(g.Result))
	return nil
}

// repeated reports a position that occurs twice among one game's records,
// by sorting their ids (a game has a few dozen).
func (b *Batch) repeated(recs []batchRecord) (string, bool) {
	slices.Sort(b.ids)
	for i := 1; i < len(b.ids); i++ {
		if b.ids[i] != b.ids[i-1] {
			continue
		}
		seen := map[string]bool{} // equal ids: compare the keys
		for _, r := range recs {
			if r.id == b.ids[i] {
				if seen[r.key] {
					return r.key, true
				}
				seen[r.key] = true
			}
		}
	}
	return "", false
}

// sort puts the records in run order: a radix sort on the id (four 16-bit
// digits, stable), then the few records sharing an id sorted by key and
// move. Measured with BenchmarkPlayStored: a comparison sort of a 5,000-game
// batch cost about 3% of self-play, this about a tenth of that.
func (b *Batch) sort() {
	src := b.recs
	b.tmp = slices.Grow(b.tmp[:0], len(src))[:len(src)]
	dst := b.tmp
	var count [1 << 16]int
	for shift := 0; shift < 64; shift += 16 {
		clear(count[:])
		for i := range src {
			count[digit(src[i].id, shift)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for i := range src {
			d := digit(src[i].id, shift)
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	// Four passes: the sorted records are back in b.recs.
	for i := 0; i < len(src); {
		j := i + 1
		for j < len(src) && src[j].id == src[i].id {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(src[i:j], func(p, q batchRecord) int { return cmpRecord(&p, &q) })
		}
		i = j
	}
	clear(b.tmp) // drop key strings
}

// digit is 16 bits of id in int64 order (the sign bit flipped).
func digit(id int64, shift int) int {
	return int((uint64(id) ^ 1<<63) >> shift & 0xffff)
}

// resultTotals counts one game of the given result.
func ResultCounts(result int8) Counts {
	switch result {
	case 1:
		return Counts{Games: 1, Black: 1}
	case -1:
		return Counts{Games: 1, White: 1}
	}
	return Counts{Games: 1, Draws: 1}
}

// Len is the number of games added.
func (b *Batch) Len() int { return int(b.t.Games) }

// Rows is the number of distinct (key, move) rows the batch will write.
// It sorts the records (as WriteShard does).
func (b *Batch) Rows() int {
	n := 0
	_ = b.positions(func(p *Position) error { n += len(p.Moves); return nil })
	return n
}

// Positions is the number of distinct positions (keys) among the batch's
// rows. It sorts the records (as WriteShard does).
func (b *Batch) Positions() int {
	n := 0
	_ = b.positions(func(*Position) error { n++; return nil })
	return n
}

// Reset empties the batch, keeping its memory for reuse.
func (b *Batch) Reset() {
	clear(b.recs) // drop the key strings for the collector
	b.recs = b.recs[:0]
	b.t = Counts{}
}

// positions sorts the records and calls fn with the batch's positions in
// run order, counts added up; the position is valid only during the call.
func (b *Batch) positions(fn func(*Position) error) error {
	b.sort()
	var p Position
	recs := b.recs
	for i := 0; i < len(recs); {
		p.ID, p.Born, p.Moves = recs[i].id, 0, p.Moves[:0]
		p.SetKey([]byte(recs[i].key))
		j := i
		for ; j < len(recs) && recs[j].id == recs[i].id && recs[j].key == recs[i].key; j++ {
			r := &recs[j]
			if k := len(p.Moves) - 1; k < 0 || p.Moves[k].Move != r.m {
				p.Moves = append(p.Moves, MoveRow{Move: r.m})
			}
			row := &p.Moves[len(p.Moves)-1]
			if r.black {
				row.Blacklisted = true
			} else {
				row.Games++
				row.WSum += int64(r.weight)
			}
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
	Suffix      = ".run"
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
func (b *Batch) WriteShard(ctx context.Context, dir string, cfg store.Config, meta map[string]string) (string, error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	if b.t.Games == 0 {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	id := NewID()
	path := filepath.Join(dir, shardPrefix+id+Suffix)
	w, err := Create(path, Header{Kind: KindShard, Config: cfg, ID: id, Meta: meta})
	if err != nil {
		return "", fmt.Errorf("store: write shard in %q: %w", dir, err)
	}
	if err := b.positions(w.Position); err != nil {
		w.Abort()
		return "", fmt.Errorf("store: write shard %q: %w", path, err)
	}
	if _, _, err := w.Seal(b.t); err != nil {
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
	for _, pat := range []string{shardPrefix + "*" + Suffix, shardPrefix + "*.db"} {
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
