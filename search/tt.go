package search

import (
	"sync/atomic"

	"ocvist/gomoku"
)

// Bounds of a stored score.
const (
	boundUpper uint8 = 1 // the score is at most the true value's bound: it failed low
	boundLower uint8 = 2 // it failed high
	boundExact       = boundUpper | boundLower
)

// ttEntry is one transposition-table entry, unpacked.
type ttEntry struct {
	score int16 // from the node's side to move, mate scores relative to the node
	move  gomoku.Point
	depth int8
	flags uint8 // bound in the low 2 bits, generation above
}

// pack is e in the low 40 bits of a word: score, move, depth, flags.
func (e ttEntry) pack() uint64 {
	return uint64(uint16(e.score)) | uint64(e.move)<<16 | uint64(uint8(e.depth))<<24 | uint64(e.flags)<<32
}

func unpack(d uint64) ttEntry {
	return ttEntry{score: int16(d), move: gomoku.Point(d >> 16), depth: int8(d >> 24), flags: uint8(d >> 32)}
}

// ttSlot holds an entry for any thread at once, without a lock: data is
// the packed entry and key the position's hash xor data. Each word is
// read and written atomically; a slot two threads wrote at once, or one
// read between another's two stores, holds a key that matches no hash
// (key ^ data is not the position's): it reads as a miss. (The
// "lockless" table of Hyatt and Mann's, as chess engines use it.)
type ttSlot struct {
	key, data atomic.Uint64
}

const bucketSize = 4

// table is a transposition table of 4-slot buckets (16 bytes a slot)
// indexed by the hash's low bits, shared by the threads of a search.
// Replacement: the entry of the same position, else an empty one, else
// the one of the least depth less ageWeight × its age (older generations
// first). gen is written only between searches.
type table struct {
	slots     []ttSlot
	mask      uint64
	gen       uint8
	ageWeight int // Config.TTAgeWeight
}

func newTable(bits, ageWeight int) *table {
	bits = min(max(bits, 4), 28)
	return &table{slots: make([]ttSlot, bucketSize<<bits), mask: 1<<bits - 1, ageWeight: ageWeight}
}

// clear empties the table; no search may run.
func (t *table) clear() {
	clear(t.slots)
	t.gen = 0
}

// newSearch ages the table: entries of older searches are replaced first.
// No search may run.
func (t *table) newSearch() { t.gen = (t.gen + 1) & 0x3f }

func (t *table) bucket(h uint64) []ttSlot {
	i := (h & t.mask) * bucketSize
	return t.slots[i : i+bucketSize]
}

// probe returns the entry of the position of hash h.
func (t *table) probe(h uint64) (ttEntry, bool) {
	b := t.bucket(h)
	for i := range b {
		d := b[i].data.Load()
		if b[i].key.Load()^d == h && uint8(d>>32)&boundExact != 0 {
			return unpack(d), true
		}
	}
	return ttEntry{}, false
}

func (t *table) store(h uint64, score, depth int, bound uint8, move gomoku.Point) {
	b := t.bucket(h)
	victim, same := 0, false
	var old uint64
	worst := 1 << 30
	for i := range b {
		d := b[i].data.Load()
		if k := b[i].key.Load(); k^d == h || uint8(d>>32)&boundExact == 0 {
			victim, old, same = i, d, k^d == h
			break
		}
		e := unpack(d)
		age := int((t.gen - e.flags>>2) & 0x3f)
		if v := int(e.depth) - t.ageWeight*age; v < worst {
			worst, victim = v, i
		}
	}
	if same && move == gomoku.NoPoint {
		move = unpack(old).move // keep the old best move when this search found none
	}
	d := ttEntry{score: int16(score), move: move, depth: int8(max(min(depth, 127), -128)), flags: bound | t.gen<<2}.pack()
	b[victim].data.Store(d)
	b[victim].key.Store(h ^ d)
}

// toTT and fromTT convert mate scores between "from the root" and "from
// this node", so that a stored mate stays right at another ply.
func toTT(score, ply int) int {
	switch {
	case score >= mateBound:
		return score + ply
	case score <= -mateBound:
		return score - ply
	}
	return score
}

func fromTT(score, ply int) int {
	switch {
	case score >= mateBound:
		return score - ply
	case score <= -mateBound:
		return score + ply
	}
	return score
}
