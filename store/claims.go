package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
)

// The learning loop's members and their claims (README.md, "The learning
// loop v2"; package loop). A generation's teacher games are numbered
// 0..Games-1 and each is played from (seed, generation, game) alone, so
// who plays a game does not change it. Its quota is cut into blocks of
// Block games. Every process of the loop that plays — on one machine, or
// on every machine of a PostgreSQL database — is a member: it claims a
// block at a time, plays the block's games on its workers and merges them
// from its own shards. A claim takes the lowest block never claimed; when
// there is none, the lowest block whose member is gone (a loop stopped or
// crashed) and whose games are not all stored, of which it returns the
// games still missing. So no game is played twice while its member lives;
// a gone member's unpublished games are played again, and its published
// shards, if its machine merges them later, add nothing (a (gen, game)
// stored before is kept, the copy counted as a duplicate: the same
// game).
//
// Whether a member lives: on PostgreSQL, a member holds a session advisory
// lock on its id on a connection of its own for as long as it lives; the
// server releases it when the process or its connection dies. A SQLite
// database has one writer process, so its only live members are those
// that process joined and has not left.
//
// One member at a time leads (Lead): the one that fits and gates a
// generation once its games are all in (a PostgreSQL session advisory
// lock, released by Unlead or with the member).

// TeacherPlan is a generation's quota of teacher games, cut into blocks
// of Block games, and the recipe every member plays it with (opaque to
// the store: package loop compares it).
type TeacherPlan struct {
	Gen    int
	Games  int // games 0..Games-1
	Block  int // games per block
	Recipe string
}

// Blocks is the number of blocks of the plan.
func (p TeacherPlan) Blocks() int { return (p.Games + p.Block - 1) / p.Block }

// Range is block b's games, lo..hi-1.
func (p TeacherPlan) Range(b int) (lo, hi int) {
	lo = b * p.Block
	return lo, min(lo+p.Block, p.Games)
}

func (p TeacherPlan) validate() error {
	if p.Gen < 0 || p.Games < 1 || p.Block < 1 {
		return fmt.Errorf("store: teacher plan of generation %d: %d games in blocks of %d: %w", p.Gen, p.Games, p.Block, ErrInvalidConfig)
	}
	return nil
}

// Claim is a block of a generation's teacher games claimed by a member:
// Games are the block's games that were not stored when it was claimed,
// in increasing order (never empty).
type Claim struct {
	Gen, Block int
	Games      []int
}

// LoopMember is one process of the learning loop taking part in a
// database's generations (see JoinLoop). Its methods are for one
// goroutine at a time.
type LoopMember interface {
	// ID is the member's id, as teacher_claims records it.
	ID() int64
	// Claim claims the next block of generation gen's plan (PlanTeacher)
	// for the member; ok is false when no block is left to claim now
	// (each is complete or claimed by a live member).
	Claim(ctx context.Context, gen int) (c Claim, ok bool, err error)
	// Lead takes the lead if no other member holds it (ok false then).
	Lead(ctx context.Context) (ok bool, err error)
	// Unlead gives the lead up.
	Unlead(ctx context.Context) error
	// Leave ends the membership: its claims that are not complete become
	// claimable by others; it leads no more.
	Leave() error
}

// ErrNoPlan: a claim was made for a generation that has no plan.
var ErrNoPlan = errors.New("no teacher plan for the generation")

const (
	planGet = "SELECT games, block, recipe FROM teacher_plans WHERE gen = ?"
	planAdd = "INSERT INTO teacher_plans (gen, games, block, recipe, created) VALUES (?, ?, ?, ?, ?) ON CONFLICT (gen) DO NOTHING"
	// claimNext is the lowest block never claimed (claims take blocks in
	// order, so the claimed ones are a prefix).
	claimNext = "SELECT coalesce(max(block) + 1, 0) FROM teacher_claims WHERE gen = ?"
	claimAdd  = "INSERT INTO teacher_claims (gen, block, member, claimed) VALUES (?, ?, ?, ?)"
	claimMove = "UPDATE teacher_claims SET member = ?, claimed = ? WHERE gen = ? AND block = ?"
	// claimOthers lists the blocks claimed by other members, in order;
	// storedBy counts the stored games of each block (args: block size,
	// gen).
	claimOthers = "SELECT block, member FROM teacher_claims WHERE gen = ? AND member != ? ORDER BY block"
	storedBy    = "SELECT game / ?, count(*) FROM teacher_games WHERE gen = ? GROUP BY 1"
	storedIn    = "SELECT game FROM teacher_games WHERE gen = ? AND game >= ? AND game < ? ORDER BY game"
)

// PlanTeacher records p as its generation's plan unless the generation
// has one, and returns the generation's plan as recorded.
func (d *DB) PlanTeacher(ctx context.Context, p TeacherPlan) (TeacherPlan, error) {
	if err := p.validate(); err != nil {
		return p, err
	}
	if err := d.writable("plan teacher games in"); err != nil {
		return p, err
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, planAdd, p.Gen, p.Games, p.Block, p.Recipe, now()); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, planGet, p.Gen).Scan(&p.Games, &p.Block, &p.Recipe)
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
func (d *DB) JoinLoop(ctx context.Context) (LoopMember, error) {
	if err := d.writable("join the loop of"); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.members == nil {
		d.members = map[int64]bool{}
	}
	id := memberID()
	for d.members[id] {
		id = memberID()
	}
	d.members[id] = true
	return &dbMember{d, id}, nil
}

func (m *dbMember) ID() int64 { return m.id }

func (m *dbMember) Claim(ctx context.Context, gen int) (Claim, bool, error) {
	var c Claim
	var ok bool
	err := m.d.inTx(ctx, func(tx *sql.Tx) error {
		if !m.d.members[m.id] {
			return errors.New("the member has left")
		}
		var err error
		c, ok, err = claim(ctx, sqlClaimer{tx, m.d.members}, gen, m.id)
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

// claimer is what claim needs of a backend's transaction: its queries
// (with ? placeholders) and whether a member lives.
type claimer interface {
	queryRow(ctx context.Context, q string, args ...any) scanner
	exec(ctx context.Context, q string, args ...any) error
	query(ctx context.Context, q string, args ...any) ([][2]int64, error) // two integer columns
	ints(ctx context.Context, q string, args ...any) ([]int, error)
	alive(ctx context.Context, member int64) (bool, error)
}

type scanner interface{ Scan(dest ...any) error }

// claim is Claim in a transaction: the lowest block never claimed that
// has games missing, else the lowest block of a gone member with games
// missing, which changes hands.
func claim(ctx context.Context, q claimer, gen int, me int64) (Claim, bool, error) {
	p := TeacherPlan{Gen: gen}
	switch err := q.queryRow(ctx, planGet, gen).Scan(&p.Games, &p.Block, &p.Recipe); {
	case errors.Is(err, sql.ErrNoRows):
		return Claim{}, false, fmt.Errorf("generation %d: %w", gen, ErrNoPlan)
	case err != nil:
		return Claim{}, false, err
	}
	for {
		var next int
		if err := q.queryRow(ctx, claimNext, gen).Scan(&next); err != nil {
			return Claim{}, false, err
		}
		if next >= p.Blocks() {
			break
		}
		if err := q.exec(ctx, claimAdd, gen, next, me, now()); err != nil {
			return Claim{}, false, err
		}
		if c, err := missing(ctx, q, p, next); err != nil || len(c.Games) > 0 {
			return c, err == nil, err
		}
	}
	others, err := q.query(ctx, claimOthers, gen, me)
	if err != nil {
		return Claim{}, false, err
	}
	counts, err := q.query(ctx, storedBy, p.Block, gen)
	if err != nil {
		return Claim{}, false, err
	}
	stored := map[int64]int64{}
	for _, bc := range counts {
		stored[bc[0]] = bc[1]
	}
	for _, bm := range others {
		lo, hi := p.Range(int(bm[0]))
		if stored[bm[0]] >= int64(hi-lo) {
			continue // complete
		}
		switch live, err := q.alive(ctx, bm[1]); {
		case err != nil:
			return Claim{}, false, err
		case live:
			continue
		}
		if err := q.exec(ctx, claimMove, me, now(), gen, bm[0]); err != nil {
			return Claim{}, false, err
		}
		c, err := missing(ctx, q, p, int(bm[0]))
		return c, err == nil, err
	}
	return Claim{}, false, nil
}

// missing is block b of p with its games not stored.
func missing(ctx context.Context, q claimer, p TeacherPlan, b int) (Claim, error) {
	lo, hi := p.Range(b)
	stored, err := q.ints(ctx, storedIn, p.Gen, lo, hi)
	if err != nil {
		return Claim{}, err
	}
	c := Claim{Gen: p.Gen, Block: b}
	k := 0
	for g := lo; g < hi; g++ {
		if k < len(stored) && stored[k] == g {
			k++
			continue
		}
		c.Games = append(c.Games, g)
	}
	return c, nil
}

// sqlClaimer is claimer over a SQLite transaction.
type sqlClaimer struct {
	tx      *sql.Tx
	members map[int64]bool
}

func (s sqlClaimer) queryRow(ctx context.Context, q string, args ...any) scanner {
	return s.tx.QueryRowContext(ctx, q, args...)
}

func (s sqlClaimer) exec(ctx context.Context, q string, args ...any) error {
	_, err := s.tx.ExecContext(ctx, q, args...)
	return err
}

func (s sqlClaimer) query(ctx context.Context, q string, args ...any) ([][2]int64, error) {
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

func (s sqlClaimer) ints(ctx context.Context, q string, args ...any) ([]int, error) {
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

func (s sqlClaimer) alive(_ context.Context, member int64) (bool, error) {
	return s.members[member], nil
}

// memberID is a random member id: positive and under 2^31, so that it
// keys a PostgreSQL advisory lock of two int4 keys.
func memberID() int64 {
	for {
		var b [4]byte
		rand.Read(b[:])
		if v := int64(b[0]&0x7f)<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3]); v != 0 {
			return v
		}
	}
}
