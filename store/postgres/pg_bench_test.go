package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"ocvist/internal/pgtest"
	"ocvist/store"
)

// BenchmarkPGMerge: the bulk path of the PostgreSQL store (a COPY into
// the young table with the ledger row) from one coordinator and from two
// at once (each its own connection pool, as on two machines), into an
// empty database and into a grown one (pgGrowShards shards of 2,000
// games merged and pruned with DefaultPrune before the timer starts);
// the database grows with every op. Reports merged rows/s. Needs
// OCVIST_TEST_POSTGRES.
func BenchmarkPGMerge(b *testing.B) {
	for _, grown := range []int{0, pgGrowShards} {
		for _, coordinators := range []int{1, 2} {
			name := fmt.Sprintf("%s/%s", map[int]string{0: "empty", pgGrowShards: "grown"}[grown], map[int]string{1: "one", 2: "two"}[coordinators])
			b.Run(name, func(b *testing.B) { benchPGMerge(b, coordinators, grown) })
		}
	}
}

func benchPGMerge(b *testing.B, coordinators, grown int) {
	u := pgtest.SchemaURL(b)
	pgs := make([]*DB, coordinators)
	for i := range pgs {
		pgs[i] = mustPG(b, u)
	}
	grow(b, pgs[0], grown)
	var rows atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer() // new shards each op: new ids, new games
		shards := pgShards(b, b.TempDir(), 900+uint64(n)*10, 2*coordinators, 2000)
		b.StartTimer()
		var wg sync.WaitGroup
		for i, p := range pgs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, s := range shards[2*i : 2*i+2] {
					res, err := p.Merge(context.Background(), s)
					if err != nil {
						b.Error(err)
						return
					}
					rows.Add(res.Moves)
				}
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(rows.Load())/b.Elapsed().Seconds(), "rows/s")
}

// pgGrowShards is how many shards of 2,000 games BenchmarkPGMerge merges
// before it measures: 80,000 games, about 3.5 million rows.
const pgGrowShards = 40

// grow merges n shards of 2,000 games into p and prunes it (n 0: does
// nothing).
func grow(b *testing.B, p *DB, n int) {
	if n == 0 {
		return
	}
	ctx := context.Background()
	for i := range n {
		for _, s := range pgShards(b, b.TempDir(), 5000+uint64(i), 1, 2000) {
			if _, err := p.Merge(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := p.Prune(ctx, store.DefaultPrune()); err != nil {
		b.Fatal(err)
	}
}
