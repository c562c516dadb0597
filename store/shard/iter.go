package shard

import (
	"ocvist/canon"
	"ocvist/store"
)

// source yields positions in (id, key) order; a position is valid until the
// next call. nil marks the end.
type Source interface {
	Next() (*Position, error)
}

// merged is a position combined over sources, with where it came from.
type Merged struct {
	Position
	Mature bool // present in the moves table
}

// merger combines sources position by position: counts add, blacklist
// flags OR, born is the earliest. Sources are few (a database's young runs
// and its moves table), so the smallest head is found by a linear scan.
type Merger struct {
	srcs   []Source
	heads  []*Position
	mature int // index of the moves-table source, or −1
	out    Merged
	tmp    []MoveRow
}

func NewMerger(srcs []Source, mature int) (*Merger, error) {
	m := &Merger{srcs: srcs, heads: make([]*Position, len(srcs)), mature: mature}
	for i, s := range srcs {
		p, err := s.Next()
		if err != nil {
			return nil, err
		}
		m.heads[i] = p
	}
	return m, nil
}

// next returns the next combined position, valid until the next call, or
// nil at the end.
func (m *Merger) Next() (*Merged, error) {
	min := -1
	for i, h := range m.heads {
		if h != nil && (min < 0 || ComparePositions(h, m.heads[min]) < 0) {
			min = i
		}
	}
	if min < 0 {
		return nil, nil
	}
	o := &m.out
	first := true
	o.Mature = false
	for i, h := range m.heads {
		if h == nil || (i != min && ComparePositions(h, m.heads[min]) != 0) {
			continue
		}
		if first {
			o.CopyKey(h)
			o.Born = h.Born
			o.Moves = append(o.Moves[:0], h.Moves...)
			first = false
		} else {
			if h.Born != 0 && (o.Born == 0 || h.Born < o.Born) {
				o.Born = h.Born
			}
			o.Moves = m.combine(o.Moves, h.Moves)
		}
		if i == m.mature {
			o.Mature = true
		}
	}
	// Advance after combining: heads alias their sources' buffers.
	for i, h := range m.heads {
		if h == nil || ComparePositions(h, &o.Position) != 0 {
			continue
		}
		p, err := m.srcs[i].Next()
		if err != nil {
			return nil, err
		}
		m.heads[i] = p
	}
	return o, nil
}

// each calls fn with every combined position, valid during the call.
func (m *Merger) Each(fn func(*Merged) error) error {
	for {
		p, err := m.Next()
		if err != nil || p == nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}

// combine merges two sorted move lists, adding the counts of equal moves.
func (m *Merger) combine(a, b []MoveRow) []MoveRow {
	out := m.tmp[:0]
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && store.CompareMoves(a[i].Move, b[j].Move) < 0:
			out = append(out, a[i])
			i++
		case i == len(a) || store.CompareMoves(b[j].Move, a[i].Move) < 0:
			out = append(out, b[j])
			j++
		default:
			r := a[i]
			r.WSum += b[j].WSum
			r.Games += b[j].Games
			r.Blacklisted = r.Blacklisted || b[j].Blacklisted
			out = append(out, r)
			i++
			j++
		}
	}
	m.tmp = a[:0]
	return out
}

// sliceSource yields positions held in memory (tests and small merges).
type SliceSource struct {
	ps []Position
	i  int
}

func (s *SliceSource) Next() (*Position, error) {
	if s.i == len(s.ps) {
		return nil, nil
	}
	s.i++
	return &s.ps[s.i-1], nil
}

// moveStats calls fn with p's rows as MoveStats of at least minGames games.
func MoveStats(p *Position, minGames int64, fn func(store.MoveStat) error) error {
	games := p.Games()
	key := string(p.Text())
	for _, r := range p.Moves {
		if r.Games < minGames {
			continue
		}
		err := fn(store.MoveStat{Key: key, Move: canon.Move{X: r.Move.X, Y: r.Move.Y}, WSum: r.WSum, Games: r.Games, Blacklisted: r.Blacklisted, PositionGames: games})
		if err != nil {
			return err
		}
	}
	return nil
}
