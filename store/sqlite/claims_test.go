package sqlite

import (
	"context"
	"errors"
	"testing"

	"ocvist/store"
	"ocvist/store/storetest"
)

func TestClaims(t *testing.T) {
	d := mustOpen(t, tempPath(t, "c.db"))
	join := func() store.LoopMember {
		m, err := d.JoinLoop(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	storetest.CheckClaims(t, d, join, func(m store.LoopMember) { m.Leave() })
	ro, err := OpenReadOnly(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.JoinLoop(context.Background()); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("join read-only: %v", err)
	}
}

// TestRecordRun: a job's runs numbered one after another (one writer per
// SQLite file: jobs at once are PostgreSQL's, TestPGRecordRun).
func TestRecordRun(t *testing.T) {
	storetest.CheckRecordRun(t, []store.Store{mustOpen(t, tempPath(t, "r.db"))}, 12)
}
