package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ocvist/canon"
	"ocvist/internal/pgtest"
	"ocvist/store"

	"github.com/jackc/pgx/v5"
)

// TestPGYoungLikeSQLite: the same shards merged, pruned by age (in
// batches, then all at once) and concluded in the same order into
// PostgreSQL and SQLite give, after every step, the same export, counts
// (positions, moves, young, young runs, blacklisted) and blacklist; a
// prune that promotes conserves the counts of everything it keeps. The
// PostgreSQL prune expires its due runs in one transaction, then in one
// transaction a run.
func TestPGYoungLikeSQLite(t *testing.T) {
	for _, rows := range []int64{pgPruneBatchRows, 1} {
		t.Run(fmt.Sprintf("batches of %d rows", rows), func(t *testing.T) { pgYoungLikeSQLite(t, rows) })
	}
}

func pgYoungLikeSQLite(t *testing.T, batchRows int64) {
	ctx := context.Background()
	p := mustPG(t, pgtest.SchemaURL(t))
	p.batchRows = batchRows
	d := mustOpen(t, filepath.Join(t.TempDir(), "twin.db"))
	shards := pgShards(t, t.TempDir(), 500, 8, 300)
	both := func(step string, fn func(s store.Store) error) {
		t.Helper()
		for _, s := range []store.Store{d, p} {
			if err := fn(s); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
		}
		sameStore(t, step, p, d)
	}
	merge := func(from, to int) func(store.Store) error {
		return func(s store.Store) error {
			for _, sh := range shards[from:to] {
				if _, err := s.Merge(ctx, sh); err != nil {
					return err
				}
			}
			return nil
		}
	}
	prune := func(c store.PruneConfig) func(store.Store) error {
		return func(s store.Store) error { _, err := s.Prune(ctx, c); return err }
	}
	both("merge 0-3", merge(0, 3))
	both("prune age 600, batch 2", prune(store.PruneConfig{MinGames: 2, Age: 600, Batch: 2}))
	both("merge 3-6", merge(3, 6))
	both("prune age 600", prune(store.PruneConfig{MinGames: 2, Age: 600}))
	both("conclude", func(s store.Store) error {
		_, err := s.Conclude(ctx, store.ConcludeConfig{MinGames: 2, Margin: 0.5, MaxMean: 0})
		return err
	})
	both("merge 6-8", merge(6, 8))
	both("prune age 300", prune(store.PruneConfig{MinGames: 2, Age: 300}))
	both("prune all", prune(store.PruneConfig{MinGames: 2}))
	if st := statsOf(t, p); st.YoungRuns != 0 || st.Young != 0 {
		t.Errorf("after the last prune: %d young runs, %d young positions, want none", st.YoungRuns, st.Young)
	}
}

// sameStore compares what a reader sees of two stores.
func sameStore(t *testing.T, step string, got, want store.Store) {
	t.Helper()
	if g, w := exportOf(t, got), exportOf(t, want); g != w {
		t.Fatalf("%s: export differs from SQLite's (%d and %d bytes)", step, len(g), len(w))
	}
	g, w := statsOf(t, got), statsOf(t, want)
	if g.Games != w.Games || g.Positions != w.Positions || g.Moves != w.Moves || g.Young != w.Young ||
		g.YoungRuns != w.YoungRuns || g.Blacklisted != w.Blacklisted || g.PrunedBlack != w.PrunedBlack || g.MergedShards != w.MergedShards {
		t.Fatalf("%s: stats %+v\nwant %+v", step, g, w)
	}
	gb, err1 := got.Blacklist(context.Background())
	wb, err2 := want.Blacklist(context.Background())
	if err1 != nil || err2 != nil || !slices.Equal(gb.Entries(), wb.Entries()) {
		t.Fatalf("%s: blacklist of %d moves, want %d (%v, %v)", step, gb.Len(), wb.Len(), err1, err2)
	}
}

// TestPGPrunePromotes: a prune that expires runs moves the promoted
// positions' rows into moves (the young table holds none of them after
// a prune of everything) with the same totals of games and weights.
func TestPGPrunePromotes(t *testing.T) {
	ctx := context.Background()
	u := pgtest.SchemaURL(t)
	p := mustPG(t, u)
	for _, s := range pgShards(t, t.TempDir(), 600, 3, 200) {
		if _, err := p.Merge(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	before := exportOf(t, p)
	res, err := p.Prune(ctx, store.PruneConfig{MinGames: 1})
	if err != nil || res.Runs != 3 || res.Positions != 0 || res.Updated == 0 {
		t.Fatalf("prune with threshold 1: %+v, %v; want 3 runs expired, everything promoted", res, err)
	}
	if after := exportOf(t, p); after != before {
		t.Fatal("promoting everything changed the export")
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var young, runs int
	conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM young), (SELECT count(*) FROM young_runs)").Scan(&young, &runs)
	if young != 0 || runs != 0 {
		t.Errorf("%d young rows and %d runs left after expiring everything", young, runs)
	}
}

// TestPGMigrateSchema1: a database of schema 1 (keys as text, no young
// tier) is migrated on opening: its rows become mature rows with packed
// keys, and the export is unchanged.
func TestPGMigrateSchema1(t *testing.T) {
	ctx := context.Background()
	u := pgtest.SchemaURL(t)
	shards := pgShards(t, t.TempDir(), 700, 2, 150)
	want, _ := sqliteTwin(t, shards)
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema1(t, conn, want)
	p := mustPG(t, u)
	if got := exportOf(t, p); got != want {
		t.Fatalf("export after migrating schema 1 differs (%d and %d bytes)", len(got), len(want))
	}
	if st := statsOf(t, p); st.SchemaVersion != SchemaVersion || st.YoungRuns != 0 {
		t.Errorf("migrated stats %+v", st)
	}
}

// schema1 builds a schema-1 database holding the rows of an export, as
// the landed schema-1 code left them.
func schema1(t *testing.T, conn *pgx.Conn, export string) {
	t.Helper()
	ctx := context.Background()
	init, err := os.ReadFile("migrations/001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)",
		string(init), "INSERT INTO schema_migrations VALUES (1, '001_init.sql', '')",
		`INSERT INTO meta VALUES ('schema_version', '1'), ('key_version', '1'), ('rule', 'freestyle'),
			('board_size', '15'), ('created', '2026-01-01T00:00:00Z'), ('db_id', 'abc'), ('kind', 'db')`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(export), "\n")[1:] {
		f := strings.Split(line, ",")
		n := make([]int64, 4)
		for i := range n {
			n[i], _ = strconv.ParseInt(f[i+1], 10, 64)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO moves VALUES ($1, $2, $3, $4, $5, $6, $7)",
			canon.ID(f[0]), f[0], int16(n[0]), int16(n[1]), n[2], n[3], f[5] == "1"); err != nil {
			t.Fatal(err)
		}
	}
}
