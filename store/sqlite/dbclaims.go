package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"ocvist/store"
	"ocvist/store/internal/claim"
	"ocvist/store/internal/meta"
)

// PlanTeacher records p as its generation's plan unless the generation
// has one, and returns the generation's plan as recorded.
func (d *DB) PlanTeacher(ctx context.Context, p store.TeacherPlan) (store.TeacherPlan, error) {
	if err := p.Validate(); err != nil {
		return p, err
	}
	if err := d.writable("plan teacher games in"); err != nil {
		return p, err
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, claim.PlanAdd, p.Gen, p.Games, p.Block, p.Recipe, meta.Now()); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, claim.PlanGet, p.Gen).Scan(&p.Games, &p.Block, &p.Recipe)
	})
	if err != nil {
		return p, fmt.Errorf("store: plan teacher games of generation %d in %q: %w", p.Gen, d.path, err)
	}
	return p, nil
}

// dbMember is a member of a SQLite database's loop (see JoinLoop).
type dbMember struct {
	d  *DB
	id int64
}

// JoinLoop makes this process a member of the database's learning loop:
// it needs the writer, and the database's own members are the only live
// ones.
func (d *DB) JoinLoop(ctx context.Context) (store.LoopMember, error) {
	if err := d.writable("join the loop of"); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.members == nil {
		d.members = map[int64]bool{}
	}
	id := claim.MemberID()
	for d.members[id] {
		id = claim.MemberID()
	}
	d.members[id] = true
	return &dbMember{d, id}, nil
}

func (m *dbMember) ID() int64 { return m.id }

func (m *dbMember) Claim(ctx context.Context, gen int) (store.Claim, bool, error) {
	var c store.Claim
	var ok bool
	err := m.d.inTx(ctx, func(tx *sql.Tx) error {
		if !m.d.members[m.id] {
			return errors.New("the member has left")
		}
		var err error
		c, ok, err = claim.Next(ctx, sqlClaimer{tx, m.d.members}, gen, m.id)
		return err
	})
	if err != nil {
		return c, false, fmt.Errorf("store: claim teacher games of generation %d in %q: %w", gen, m.d.path, err)
	}
	return c, ok, nil
}

func (m *dbMember) Lead(ctx context.Context) (bool, error) {
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	if m.d.leader != 0 && m.d.leader != m.id {
		return false, nil
	}
	m.d.leader = m.id
	return true, nil
}

func (m *dbMember) Unlead(ctx context.Context) error {
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	if m.d.leader == m.id {
		m.d.leader = 0
	}
	return nil
}

func (m *dbMember) Leave() error {
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	delete(m.d.members, m.id)
	if m.d.leader == m.id {
		m.d.leader = 0
	}
	return nil
}

// sqlClaimer is claimer over a SQLite transaction.
type sqlClaimer struct {
	tx      *sql.Tx
	members map[int64]bool
}

func (s sqlClaimer) QueryRow(ctx context.Context, q string, args ...any) claim.Scanner {
	return s.tx.QueryRowContext(ctx, q, args...)
}

func (s sqlClaimer) Exec(ctx context.Context, q string, args ...any) error {
	_, err := s.tx.ExecContext(ctx, q, args...)
	return err
}

func (s sqlClaimer) Query(ctx context.Context, q string, args ...any) ([][2]int64, error) {
	rows, err := s.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]int64
	for rows.Next() {
		var r [2]int64
		if err := rows.Scan(&r[0], &r[1]); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s sqlClaimer) Ints(ctx context.Context, q string, args ...any) ([]int, error) {
	rows, err := s.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s sqlClaimer) Alive(_ context.Context, member int64) (bool, error) {
	return s.members[member], nil
}
