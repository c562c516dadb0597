package sqlite

import (
	"context"
	"database/sql"

	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
)

// matureSource reads the moves table (the promoted positions) in primary
// key order, one position at a time.
type matureSource struct {
	rows    *sql.Rows
	cur     shard.Position
	pending bool // a row of the next position is in ahead
	ahead   struct {
		id  int64
		key []byte
		m   shard.MoveRow
	}
	done bool
}

const matureSQL = "SELECT pid, key, mx, my, wsum, games, blacklisted FROM moves ORDER BY pid, key, mx, my"

func newMatureSource(ctx context.Context, q querier) (*matureSource, error) {
	rows, err := q.QueryContext(ctx, matureSQL)
	if err != nil {
		return nil, sqlerr.Classify(err)
	}
	return &matureSource{rows: rows}, nil
}

func (s *matureSource) scan() (bool, error) {
	if !s.rows.Next() {
		return false, sqlerr.Classify(s.rows.Err())
	}
	a := &s.ahead
	a.key = a.key[:0]
	var key sql.RawBytes
	if err := s.rows.Scan(&a.id, &key, &a.m.Move.X, &a.m.Move.Y, &a.m.WSum, &a.m.Games, &a.m.Blacklisted); err != nil {
		return false, err
	}
	a.key = append(a.key, key...)
	return true, nil
}

func (s *matureSource) Next() (*shard.Position, error) {
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
	p.ID, p.Born, p.Moves = s.ahead.id, 0, append(p.Moves[:0], s.ahead.m)
	p.SetKey(s.ahead.key)
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
		if s.ahead.id != p.ID || string(s.ahead.key) != string(p.Text()) {
			s.pending = true
			return p, nil
		}
		p.Moves = append(p.Moves, s.ahead.m)
	}
}

func (s *matureSource) close() error { return s.rows.Close() }
