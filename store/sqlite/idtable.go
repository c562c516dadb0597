package sqlite

import "slices"

// idIndex is the writer's index: for every position id of the database,
// promoted (−1) or the games the young runs hold of it (≥ 1), as one array
// sorted by id. Runs come sorted by id too, so a merge or an expiry updates
// it in one sequential pass (a merge join into a second array), at memory
// speed: a hash table of the same millions of ids cost a cache miss per
// position, a third of the coordinator's time (measured with its profile).
// An update is built aside and replaces the index only once its
// transaction commits. Memory: 16 bytes an id, twice during an update.
type idIndex struct {
	s      []idSlot
	mature int64 // promoted ids
}

type idSlot struct {
	id, v int64
}

// get returns id's value (0: absent) by binary search.
func (x *idIndex) get(id int64) int64 {
	i, ok := slices.BinarySearchFunc(x.s, id, func(s idSlot, id int64) int { return cmpInt(s.id, id) })
	if !ok {
		return 0
	}
	return x.s[i].v
}

func (x *idIndex) len() int { return len(x.s) }

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// idCursor builds an updated index from x while a sorted stream of ids is
// read: take(id) returns id's value and removes it, put(id, v) stores
// id's new value (0 stores nothing). Ids must come in nondecreasing order.
type idCursor struct {
	in     []idSlot
	i      int
	out    []idSlot
	mature int64
}

func (x *idIndex) cursor(buf []idSlot) *idCursor {
	return &idCursor{in: x.s, out: buf[:0], mature: x.mature}
}

func (c *idCursor) take(id int64) int64 {
	for c.i < len(c.in) && c.in[c.i].id < id {
		c.out = append(c.out, c.in[c.i])
		c.i++
	}
	if n := len(c.out); n > 0 && c.out[n-1].id == id { // a second key of one id
		c.out = c.out[:n-1]
		return c.popped(c.out[:n][n-1].v)
	}
	if c.i < len(c.in) && c.in[c.i].id == id {
		c.i++
		return c.popped(c.in[c.i-1].v)
	}
	return 0
}

func (c *idCursor) popped(v int64) int64 {
	if v == promoted {
		c.mature--
	}
	return v
}

func (c *idCursor) put(id, v int64) {
	if v == 0 {
		return
	}
	if v == promoted {
		c.mature++
	}
	c.out = append(c.out, idSlot{id, v})
}

// done returns the updated index; the old array is returned for reuse.
func (c *idCursor) done() (idIndex, []idSlot) {
	c.out = append(c.out, c.in[c.i:]...)
	return idIndex{s: c.out, mature: c.mature}, c.in
}

// promotedFilter returns a test of "promoted" for ids asked in
// nondecreasing order (one run's), walking the index once.
func (x *idIndex) promotedFilter() func(int64) bool {
	i := 0
	return func(id int64) bool {
		for i < len(x.s) && x.s[i].id < id {
			i++
		}
		return i < len(x.s) && x.s[i].id == id && x.s[i].v == promoted
	}
}
