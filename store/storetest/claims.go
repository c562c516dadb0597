package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"ocvist/store"
)

// ClaimAll claims blocks of gen for m until none is left, returning them.
func ClaimAll(t testing.TB, m store.LoopMember, gen int) []store.Claim {
	t.Helper()
	var out []store.Claim
	for {
		c, ok, err := m.Claim(context.Background(), gen)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, c)
	}
}

// StoreGames merges the teacher games numbered games of generation gen
// into d.
func StoreGames(t testing.TB, d store.Store, gen int, games ...int) {
	t.Helper()
	var tg []store.TeacherGame
	for _, i := range games {
		g := TeacherGames(1, 1)[0]
		g.Gen, g.Game = gen, i
		tg = append(tg, g)
	}
	MergeTeacher(t, d, tg)
}

// CheckClaims is the acceptance test of the claims on either backend, with join
// making a member and gone making one disappear (its process dies, or it
// leaves): a generation's plan is the first one recorded; members claim
// its blocks in order, each once while its member lives, the last block
// short; none is left while the live members hold them; a gone member's
// incomplete block goes to the next claim with only its missing games,
// and its complete ones to nobody; one member leads at a time.
func CheckClaims(t *testing.T, d store.Store, join func() store.LoopMember, gone func(store.LoopMember)) {
	ctx := context.Background()
	if _, _, err := join().Claim(ctx, 1); !errors.Is(err, store.ErrNoPlan) {
		t.Fatalf("claim without a plan: %v, want ErrNoPlan", err)
	}
	plan := store.TeacherPlan{Gen: 1, Games: 10, Block: 4, Recipe: `{"seed":1}`}
	for _, p := range []store.TeacherPlan{plan, {Gen: 1, Games: 12, Block: 2, Recipe: "other"}} {
		if got, err := d.PlanTeacher(ctx, p); err != nil || got != plan {
			t.Fatalf("plan %+v: %+v, %v; want %+v", p, got, err, plan)
		}
	}
	if _, err := d.PlanTeacher(ctx, store.TeacherPlan{Gen: 2, Games: 0, Block: 1}); !errors.Is(err, store.ErrInvalidConfig) {
		t.Errorf("a plan of no games: %v", err)
	}
	a, b := join(), join()
	c0, ok, err := a.Claim(ctx, 1)
	if err != nil || !ok || !reflect.DeepEqual(c0, store.Claim{Gen: 1, Block: 0, Games: []int{0, 1, 2, 3}}) {
		t.Fatalf("first claim: %+v %v %v", c0, ok, err)
	}
	StoreGames(t, d, 1, 4, 6) // part of block 1, before it is claimed
	if got := ClaimAll(t, b, 1); !reflect.DeepEqual(got, []store.Claim{{Gen: 1, Block: 1, Games: []int{5, 7}}, {Gen: 1, Block: 2, Games: []int{8, 9}}}) {
		t.Fatalf("b's claims: %+v", got)
	}
	if got := ClaimAll(t, a, 1); len(got) != 0 {
		t.Fatalf("a claimed %+v of live b's blocks", got)
	}
	StoreGames(t, d, 1, 0, 1, 2, 3, 5, 7)
	gone(a) // its block complete
	gone(b) // block 1 complete, block 2 not
	c := join()
	if got := ClaimAll(t, c, 1); !reflect.DeepEqual(got, []store.Claim{{Gen: 1, Block: 2, Games: []int{8, 9}}}) {
		t.Fatalf("after a and b are gone: %+v", got)
	}
	StoreGames(t, d, 1, 8)
	gone(c)
	e := join()
	if got := ClaimAll(t, e, 1); !reflect.DeepEqual(got, []store.Claim{{Gen: 1, Block: 2, Games: []int{9}}}) {
		t.Fatalf("after c is gone: %+v", got)
	}
	if n, err := d.TeacherStored(ctx, 1); err != nil || n != 9 {
		t.Errorf("stored %d, %v; want 9", n, err)
	}
	f := join()
	for _, step := range []struct {
		m    store.LoopMember
		lead bool
	}{{e, true}, {e, true}, {f, false}} {
		if ok, err := step.m.Lead(ctx); err != nil || ok != step.lead {
			t.Fatalf("lead: %v, %v; want %v", ok, err, step.lead)
		}
	}
	if err := e.Unlead(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := f.Lead(ctx); err != nil || !ok {
		t.Fatalf("f leads after e gave it up: %v, %v", ok, err)
	}
	gone(f)
	if ok, err := e.Lead(ctx); err != nil || !ok {
		t.Fatalf("e leads after f is gone: %v, %v", ok, err)
	}
	e.Leave()
}
