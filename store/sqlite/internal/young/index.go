package young

import (
	"cmp"
	"context"
	"slices"

	"ocvist/store/shard"
)

// Promoted is the value of a promoted position in the Index.
const Promoted = -1

// Index is the writer's index: for every position id of the database,
// Promoted (−1) or the games the young runs hold of it (≥ 1), as one array
// sorted by id. Runs come sorted by id too, so a merge or an expiry updates
// it in one sequential pass (a merge join into a second array), at memory
// speed: a hash table of the same millions of ids cost a cache miss per
// position, a third of the coordinator's time (measured with its profile).
// An update (Cursor) is built aside, in the index's spare array, and
// replaces the index (Replace) only once its transaction commits.
// Memory: 16 bytes an id, twice during an update.
type Index struct {
	s      []slot
	spare  []slot // the other array, for the next update
	mature int64  // promoted ids
}

type slot struct {
	id, v int64
}

// Get returns id's value (0: absent) by binary search.
func (x *Index) Get(id int64) int64 {
	i, ok := slices.BinarySearchFunc(x.s, id, func(s slot, id int64) int { return cmp.Compare(s.id, id) })
	if !ok {
		return 0
	}
	return x.s[i].v
}

// Len is the number of ids: promoted and young positions.
func (x *Index) Len() int { return len(x.s) }

// Mature is the number of promoted ids.
func (x *Index) Mature() int64 { return x.mature }

// Cursor builds an updated index from x while a sorted stream of ids is
// read: Take(id) returns id's value and removes it, Put(id, v) stores
// id's new value (0 stores nothing). Ids must come in nondecreasing order.
type Cursor struct {
	in     []slot
	i      int
	out    []slot
	mature int64
}

// Cursor starts an update of x, built in x's spare array: x is not
// changed, and an update not used (Replace) is simply dropped.
func (x *Index) Cursor() *Cursor {
	return &Cursor{in: x.s, out: x.spare[:0], mature: x.mature}
}

// Take returns id's value and removes it from the update.
func (c *Cursor) Take(id int64) int64 {
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

func (c *Cursor) popped(v int64) int64 {
	if v == Promoted {
		c.mature--
	}
	return v
}

// Put stores id's value v in the update (0: absent).
func (c *Cursor) Put(id, v int64) {
	if v == 0 {
		return
	}
	if v == Promoted {
		c.mature++
	}
	c.out = append(c.out, slot{id, v})
}

// Done returns the updated index; it is not yet the index (Replace).
func (c *Cursor) Done() Index {
	c.out = append(c.out, c.in[c.i:]...)
	return Index{s: c.out, mature: c.mature}
}

// Replace makes next, an update of x, the index; x's old array becomes the
// spare for the next update.
func (x *Index) Replace(next Index) {
	x.spare, x.s, x.mature = x.s, next.s, next.mature
}

// PromotedFilter returns a test of "promoted" for ids asked in
// nondecreasing order (one run's), walking the index once.
func (x *Index) PromotedFilter() func(int64) bool {
	i := 0
	return func(id int64) bool {
		for i < len(x.s) && x.s[i].id < id {
			i++
		}
		return i < len(x.s) && x.s[i].id == id && x.s[i].v == Promoted
	}
}

// Count reads the run r through and returns x updated with its positions'
// games, promoting those that reach minGames, and how many it promoted.
// x itself is not changed (see Cursor). Guarded by store/sqlite's
// BenchmarkMerge.
func Count(ctx context.Context, x *Index, r *shard.Reader, minGames int64) (Index, int64, error) {
	c := x.Cursor()
	var n int64
	for i := 0; ; i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return Index{}, 0, err
			}
		}
		p, err := r.Next()
		if err != nil {
			return Index{}, 0, err
		}
		if p == nil {
			return c.Done(), n, nil
		}
		v := c.Take(p.ID)
		if v != Promoted {
			if v += p.Games(); v >= minGames {
				v = Promoted
				n++
			}
		}
		c.Put(p.ID, v)
	}
}

// CountAll adds the games of every run of s to x, promoting at minGames.
func (s *Set) CountAll(x *Index, minGames int64) error {
	for i, run := range s.Runs {
		r, err := s.Open(i)
		if err != nil {
			return err
		}
		r.SkipKeys = true
		next, _, err := Count(s.ctx, x, r, minGames)
		if err != nil {
			return Damaged(s.path, run.Name, err)
		}
		x.Replace(next)
	}
	return nil
}
