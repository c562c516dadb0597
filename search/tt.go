package search

import "ocvist/gomoku"

// Bounds of a stored score.
const (
	boundUpper uint8 = 1 // the score is at most the true value's bound: it failed low
	boundLower uint8 = 2 // it failed high
	boundExact       = boundUpper | boundLower
)

// ttEntry is one transposition-table entry (12 bytes).
type ttEntry struct {
	key   uint32 // the hash's high half
	score int16  // from the node's side to move, mate scores relative to the node
	move  gomoku.Point
	depth int8
	flags uint8 // bound in the low 2 bits, generation above
}

const bucketSize = 4

// table is a transposition table of 4-entry buckets indexed by the hash's
// low bits. Replacement: the entry of the same position, else an empty
// one, else the one of the least depth less ageWeight × its age (older
// generations first).
type table struct {
	buckets   [][bucketSize]ttEntry
	mask      uint64
	gen       uint8
	ageWeight int // Config.TTAgeWeight
	probes    int64
	hits      int64
}

func newTable(bits, ageWeight int) *table {
	bits = min(max(bits, 4), 28)
	return &table{buckets: make([][bucketSize]ttEntry, 1<<bits), mask: 1<<bits - 1, ageWeight: ageWeight}
}

func (t *table) clear() {
	clear(t.buckets)
	t.gen = 0
}

// newSearch ages the table: entries of older searches are replaced first.
func (t *table) newSearch() { t.gen = (t.gen + 1) & 0x3f }

func (t *table) probe(h uint64) (ttEntry, bool) {
	t.probes++
	b := &t.buckets[h&t.mask]
	k := uint32(h >> 32)
	for i := range b {
		if b[i].key == k && b[i].flags&boundExact != 0 {
			t.hits++
			return b[i], true
		}
	}
	return ttEntry{}, false
}

func (t *table) store(h uint64, score, depth int, bound uint8, move gomoku.Point) {
	b := &t.buckets[h&t.mask]
	k := uint32(h >> 32)
	victim := 0
	worst := 1 << 30
	for i := range b {
		e := &b[i]
		if e.key == k || e.flags&boundExact == 0 {
			victim = i
			break
		}
		age := int((t.gen - e.flags>>2) & 0x3f)
		if v := int(e.depth) - t.ageWeight*age; v < worst {
			worst, victim = v, i
		}
	}
	e := &b[victim]
	if e.key == k && move == gomoku.NoPoint {
		move = e.move // keep the old best move when this search found none
	}
	*e = ttEntry{key: k, score: int16(score), move: move, depth: int8(max(min(depth, 127), -128)), flags: bound | t.gen<<2}
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
