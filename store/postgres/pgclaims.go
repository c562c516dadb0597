package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"ocvist/store"
	"ocvist/store/internal/claim"
	"ocvist/store/internal/meta"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The advisory locks of the loop's members (see claims.go), in the
// two-int4-key space, which no single-key lock of the store shares: a
// member holds (pgMemberLock, its id); the leader (pgLeadLock, a hash of
// the database's id, so that loops on other databases of one server do
// not share it).
const (
	pgMemberLock = 0x6f63766d // "ocvm"
	pgLeadLock   = 0x6f63766c // "ocvl"
)

// PlanTeacher records p as its generation's plan unless the generation
// has one, and returns the generation's plan as recorded.
func (p *DB) PlanTeacher(ctx context.Context, tp store.TeacherPlan) (store.TeacherPlan, error) {
	if err := tp.Validate(); err != nil {
		return tp, err
	}
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, dollars(claim.PlanAdd), tp.Gen, tp.Games, tp.Block, tp.Recipe, meta.Now()); err != nil {
			return err
		}
		return tx.QueryRow(ctx, dollars(claim.PlanGet), tp.Gen).Scan(&tp.Games, &tp.Block, &tp.Recipe)
	})
	return tp, p.wrap(fmt.Sprintf("plan teacher games of generation %d in", tp.Gen), err)
}

// pgMember is a member of a PostgreSQL database's loop: a connection of
// its own, taken out of the pool for the member's life, holds its lock.
type pgMember struct {
	p       *DB
	conn    *pgxpool.Conn
	id      int64
	lead    int32 // the second key of the lead lock
	leading bool
}

// JoinLoop makes this process a member of the database's learning loop
// (see claims.go): it holds its member lock on a connection of its own
// until Leave, or until the process or the connection dies.
func (p *DB) JoinLoop(ctx context.Context) (store.LoopMember, error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return nil, p.wrap("join the loop of", err)
	}
	h := fnv.New32a()
	h.Write([]byte(p.id))
	m := &pgMember{p: p, conn: conn, lead: int32(h.Sum32())}
	for {
		m.id = claim.MemberID()
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", int32(pgMemberLock), int32(m.id)).Scan(&ok); err != nil {
			conn.Release()
			return nil, p.wrap("join the loop of", err)
		}
		if ok {
			p.mu.Lock()
			if p.members == nil {
				p.members = map[*pgMember]bool{}
			}
			p.members[m] = true
			p.mu.Unlock()
			return m, nil
		}
	}
}

func (m *pgMember) ID() int64 { return m.id }

func (m *pgMember) Claim(ctx context.Context, gen int) (store.Claim, bool, error) {
	var c store.Claim
	var ok bool
	err := pgx.BeginFunc(ctx, m.p.pool, func(tx pgx.Tx) error {
		// Claims of a generation take its plan's row first: one at a time.
		if _, err := tx.Exec(ctx, "SELECT 1 FROM teacher_plans WHERE gen = $1 FOR UPDATE", gen); err != nil {
			return err
		}
		var err error
		c, ok, err = claim.Next(ctx, pgClaimer{tx}, gen, m.id)
		return err
	})
	return c, ok, m.p.wrap(fmt.Sprintf("claim teacher games of generation %d in", gen), err)
}

// Lead takes the lead lock once (a session lock taken twice would need
// two unlocks).
func (m *pgMember) Lead(ctx context.Context) (bool, error) {
	if m.leading {
		return true, nil
	}
	err := m.conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", int32(pgLeadLock), m.lead).Scan(&m.leading)
	return m.leading, m.p.wrap("lead the loop of", err)
}

func (m *pgMember) Unlead(ctx context.Context) error {
	if !m.leading {
		return nil
	}
	_, err := m.conn.Exec(ctx, "SELECT pg_advisory_unlock($1, $2)", int32(pgLeadLock), m.lead)
	if err == nil {
		m.leading = false
	}
	return m.p.wrap("give up the lead of the loop of", err)
}

// Leave releases the member's locks and gives its connection back; if
// that fails the connection is closed, which releases them too.
func (m *pgMember) Leave() error {
	m.p.mu.Lock()
	delete(m.p.members, m)
	m.p.mu.Unlock()
	if m.conn == nil {
		return nil
	}
	ctx := context.Background()
	if _, err := m.conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		m.conn.Conn().Close(ctx)
	}
	m.conn.Release()
	m.conn = nil
	return nil
}

// pgClaimer is claimer over a PostgreSQL transaction.
type pgClaimer struct{ tx pgx.Tx }

// dollars numbers the ? placeholders of a query written for both
// backends: $1, $2, …
func dollars(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// noRows maps pgx's "no rows" to database/sql's, which claim tests.
type noRows struct{ r pgx.Row }

func (n noRows) Scan(dest ...any) error {
	err := n.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return sql.ErrNoRows
	}
	return err
}

func (c pgClaimer) QueryRow(ctx context.Context, q string, args ...any) claim.Scanner {
	return noRows{c.tx.QueryRow(ctx, dollars(q), args...)}
}

func (c pgClaimer) Exec(ctx context.Context, q string, args ...any) error {
	_, err := c.tx.Exec(ctx, dollars(q), args...)
	return err
}

func (c pgClaimer) Query(ctx context.Context, q string, args ...any) ([][2]int64, error) {
	rows, err := c.tx.Query(ctx, dollars(q), args...)
	if err != nil {
		return nil, err
	}
	var out [][2]int64
	var r [2]int64
	_, err = pgx.ForEachRow(rows, []any{&r[0], &r[1]}, func() error { out = append(out, r); return nil })
	return out, err
}

func (c pgClaimer) Ints(ctx context.Context, q string, args ...any) ([]int, error) {
	rows, err := c.tx.Query(ctx, dollars(q), args...)
	if err != nil {
		return nil, err
	}
	var out []int
	var v int32
	_, err = pgx.ForEachRow(rows, []any{&v}, func() error { out = append(out, int(v)); return nil })
	return out, err
}

// alive tries the member's lock for the transaction: free means gone.
func (c pgClaimer) Alive(ctx context.Context, member int64) (bool, error) {
	var free bool
	err := c.tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1, $2)", int32(pgMemberLock), int32(member)).Scan(&free)
	return !free, err
}
