package claim

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"

	"ocvist/store"
	"ocvist/store/internal/meta"
)

const (
	PlanGet = "SELECT games, block, recipe FROM teacher_plans WHERE gen = ?"
	PlanAdd = "INSERT INTO teacher_plans (gen, games, block, recipe, created) VALUES (?, ?, ?, ?, ?) ON CONFLICT (gen) DO NOTHING"
	// claimNext is the lowest block never claimed (claims take blocks in
	// order, so the claimed ones are a prefix).
	ClaimNext = "SELECT coalesce(max(block) + 1, 0) FROM teacher_claims WHERE gen = ?"
	ClaimAdd  = "INSERT INTO teacher_claims (gen, block, member, claimed) VALUES (?, ?, ?, ?)"
	ClaimMove = "UPDATE teacher_claims SET member = ?, claimed = ? WHERE gen = ? AND block = ?"
	// claimOthers lists the blocks claimed by other members, in order;
	// storedBy counts the stored games of each block (args: block size,
	// gen).
	ClaimOthers = "SELECT block, member FROM teacher_claims WHERE gen = ? AND member != ? ORDER BY block"
	StoredBy    = "SELECT game / ?, count(*) FROM teacher_games WHERE gen = ? GROUP BY 1"
	StoredIn    = "SELECT game FROM teacher_games WHERE gen = ? AND game >= ? AND game < ? ORDER BY game"
)

// claimer is what claim needs of a backend's transaction: its queries
// (with ? placeholders) and whether a member lives.
type Querier interface {
	QueryRow(ctx context.Context, q string, args ...any) Scanner
	Exec(ctx context.Context, q string, args ...any) error
	Query(ctx context.Context, q string, args ...any) ([][2]int64, error) // two integer columns
	Ints(ctx context.Context, q string, args ...any) ([]int, error)
	Alive(ctx context.Context, member int64) (bool, error)
}

type Scanner interface{ Scan(dest ...any) error }

// claim is Claim in a transaction: the lowest block never claimed that
// has games missing, else the lowest block of a gone member with games
// missing, which changes hands.
func Next(ctx context.Context, q Querier, gen int, me int64) (store.Claim, bool, error) {
	p := store.TeacherPlan{Gen: gen}
	switch err := q.QueryRow(ctx, PlanGet, gen).Scan(&p.Games, &p.Block, &p.Recipe); {
	case errors.Is(err, sql.ErrNoRows):
		return store.Claim{}, false, fmt.Errorf("generation %d: %w", gen, store.ErrNoPlan)
	case err != nil:
		return store.Claim{}, false, err
	}
	for {
		var next int
		if err := q.QueryRow(ctx, ClaimNext, gen).Scan(&next); err != nil {
			return store.Claim{}, false, err
		}
		if next >= p.Blocks() {
			break
		}
		if err := q.Exec(ctx, ClaimAdd, gen, next, me, meta.Now()); err != nil {
			return store.Claim{}, false, err
		}
		if c, err := Missing(ctx, q, p, next); err != nil || len(c.Games) > 0 {
			return c, err == nil, err
		}
	}
	others, err := q.Query(ctx, ClaimOthers, gen, me)
	if err != nil {
		return store.Claim{}, false, err
	}
	counts, err := q.Query(ctx, StoredBy, p.Block, gen)
	if err != nil {
		return store.Claim{}, false, err
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
		switch live, err := q.Alive(ctx, bm[1]); {
		case err != nil:
			return store.Claim{}, false, err
		case live:
			continue
		}
		if err := q.Exec(ctx, ClaimMove, me, meta.Now(), gen, bm[0]); err != nil {
			return store.Claim{}, false, err
		}
		c, err := Missing(ctx, q, p, int(bm[0]))
		return c, err == nil, err
	}
	return store.Claim{}, false, nil
}

// missing is block b of p with its games not stored.
func Missing(ctx context.Context, q Querier, p store.TeacherPlan, b int) (store.Claim, error) {
	lo, hi := p.Range(b)
	stored, err := q.Ints(ctx, StoredIn, p.Gen, lo, hi)
	if err != nil {
		return store.Claim{}, err
	}
	c := store.Claim{Gen: p.Gen, Block: b}
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

// memberID is a random member id: positive and under 2^31, so that it
// keys a PostgreSQL advisory lock of two int4 keys.
func MemberID() int64 {
	for {
		var b [4]byte
		rand.Read(b[:])
		if v := int64(b[0]&0x7f)<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3]); v != 0 {
			return v
		}
	}
}
