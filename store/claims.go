package store

import (
	"context"
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

func (p TeacherPlan) Validate() error {
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
