package store

import (
	"context"
	"database/sql"

	"ocvist/canon"
)

// source yields positions in (id, key) order; a position is valid until the
// next call. nil marks the end.
type source interface {
	next() (*position, error)
}

// runSource reads a run; positions without a born count get born. The
// run is a young run of the database db, whose damage is a DamageError.
type runSource struct {
	r    *runReader
	born int64
	db   string
}

func (s *runSource) next() (*position, error) {
	p, err := s.r.next()
	if err != nil {
		return nil, damaged(s.db, s.r.path, err)
	}
	if p != nil && p.born == 0 {
		p.born = s.born
	}
	return p, nil
}

// matureSource reads the moves table (the promoted positions) in primary
// key order, one position at a time.
type matureSource struct {
	rows    *sql.Rows
	cur     position
	pending bool // a row of the next position is in ahead
	ahead   struct {
		id  int64
		key []byte
		m   moveRow
	}
	done bool
}

const matureSQL = "SELECT pid, key, mx, my, wsum, games, blacklisted FROM moves ORDER BY pid, key, mx, my"

func newMatureSource(ctx context.Context, q querier) (*matureSource, error) {
	rows, err := q.QueryContext(ctx, matureSQL)
	if err != nil {
		return nil, classify(err)
	}
	return &matureSource{rows: rows}, nil
}

func (s *matureSource) scan() (bool, error) {
	if !s.rows.Next() {
		return false, classify(s.rows.Err())
	}
	a := &s.ahead
	a.key = a.key[:0]
	var key sql.RawBytes
	if err := s.rows.Scan(&a.id, &key, &a.m.m.X, &a.m.m.Y, &a.m.wsum, &a.m.games, &a.m.bl); err != nil {
		return false, err
	}
	a.key = append(a.key, key...)
	return true, nil
}

func (s *matureSource) next() (*position, error) {
	if s.done {
		return nil, nil
	}
	if !s.pending {
		ok, err := s.scan()
		if err != nil || !ok {
			s.done = true
			return nil, err
		}
	}
	p := &s.cur
	p.id, p.born, p.moves = s.ahead.id, 0, append(p.moves[:0], s.ahead.m)
	p.setKey(s.ahead.key)
	for {
		ok, err := s.scan()
		if err != nil {
			return nil, err
		}
		if !ok {
			s.pending = false
			s.done = true
			return p, nil
		}
		if s.ahead.id != p.id || string(s.ahead.key) != string(p.key) {
			s.pending = true
			return p, nil
		}
		p.moves = append(p.moves, s.ahead.m)
	}
}

func (s *matureSource) close() error { return s.rows.Close() }

// merged is a position combined over sources, with where it came from.
type merged struct {
	position
	mature bool // present in the moves table
}

// merger combines sources position by position: counts add, blacklist
// flags OR, born is the earliest. Sources are few (a database's young runs
// and its moves table), so the smallest head is found by a linear scan.
type merger struct {
	srcs   []source
	heads  []*position
	mature int // index of the moves-table source, or −1
	out    merged
	tmp    []moveRow
}

func newMerger(srcs []source, mature int) (*merger, error) {
	m := &merger{srcs: srcs, heads: make([]*position, len(srcs)), mature: mature}
	for i, s := range srcs {
		p, err := s.next()
		if err != nil {
			return nil, err
		}
		m.heads[i] = p
	}
	return m, nil
}

// next returns the next combined position, valid until the next call, or
// nil at the end.
func (m *merger) next() (*merged, error) {
	min := -1
	for i, h := range m.heads {
		if h != nil && (min < 0 || cmpPos(h, m.heads[min]) < 0) {
			min = i
		}
	}
	if min < 0 {
		return nil, nil
	}
	o := &m.out
	first := true
	o.mature = false
	for i, h := range m.heads {
		if h == nil || (i != min && cmpPos(h, m.heads[min]) != 0) {
			continue
		}
		if first {
			o.copyKey(h)
			o.born = h.born
			o.moves = append(o.moves[:0], h.moves...)
			first = false
		} else {
			if h.born != 0 && (o.born == 0 || h.born < o.born) {
				o.born = h.born
			}
			o.moves = m.combine(o.moves, h.moves)
		}
		if i == m.mature {
			o.mature = true
		}
	}
	// Advance after combining: heads alias their sources' buffers.
	for i, h := range m.heads {
		if h == nil || cmpPos(h, &o.position) != 0 {
			continue
		}
		p, err := m.srcs[i].next()
		if err != nil {
			return nil, err
		}
		m.heads[i] = p
	}
	return o, nil
}

// each calls fn with every combined position, valid during the call.
func (m *merger) each(fn func(*merged) error) error {
	for {
		p, err := m.next()
		if err != nil || p == nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}

// combine merges two sorted move lists, adding the counts of equal moves.
func (m *merger) combine(a, b []moveRow) []moveRow {
	out := m.tmp[:0]
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && cmpMove(a[i].m, b[j].m) < 0:
			out = append(out, a[i])
			i++
		case i == len(a) || cmpMove(b[j].m, a[i].m) < 0:
			out = append(out, b[j])
			j++
		default:
			r := a[i]
			r.wsum += b[j].wsum
			r.games += b[j].games
			r.bl = r.bl || b[j].bl
			out = append(out, r)
			i++
			j++
		}
	}
	m.tmp = a[:0]
	return out
}

// sliceSource yields positions held in memory (tests and small merges).
type sliceSource struct {
	ps []position
	i  int
}

func (s *sliceSource) next() (*position, error) {
	if s.i == len(s.ps) {
		return nil, nil
	}
	s.i++
	return &s.ps[s.i-1], nil
}

// moveStats calls fn with p's rows as MoveStats of at least minGames games.
func moveStats(p *position, minGames int64, fn func(MoveStat) error) error {
	games := p.games()
	key := string(p.text())
	for _, r := range p.moves {
		if r.games < minGames {
			continue
		}
		err := fn(MoveStat{Key: key, Move: canon.Move{X: r.m.X, Y: r.m.Y}, WSum: r.wsum, Games: r.games, Blacklisted: r.bl, PositionGames: games})
		if err != nil {
			return err
		}
	}
	return nil
}
