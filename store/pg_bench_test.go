package store

import (
	"context"
	"sync"
	"testing"
)

// BenchmarkPGMerge: the bulk path of the PostgreSQL store (COPY into a
// temporary table, an ordered upsert) from one coordinator and from two
// at once (each its own connection pool, as on two machines), into a
// database that grows with every op; reports upserted rows/s. Needs
// OCVIST_TEST_POSTGRES.
func BenchmarkPGMerge(b *testing.B) {
	for _, coordinators := range []int{1, 2} {
		b.Run(map[int]string{1: "one", 2: "two"}[coordinators], func(b *testing.B) {
			u := pgURL(b)
			pgs := make([]*PG, coordinators)
			for i := range pgs {
				pgs[i] = mustPG(b, u)
			}
			shards := pgShards(b, b.TempDir(), 900, 2*coordinators, 2000)
			ctx := context.Background()
			var rows int64
			b.ReportAllocs()
			b.ResetTimer()
			for n := range b.N {
				if n > 0 { // the same shards again: new ids, same rows
					b.StopTimer()
					shards = pgShards(b, b.TempDir(), 900+uint64(n)*10, 2*coordinators, 2000)
					b.StartTimer()
				}
				var wg sync.WaitGroup
				var mu sync.Mutex
				for i, p := range pgs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for _, s := range shards[2*i : 2*i+2] {
							res, err := p.Merge(ctx, s)
							if err != nil {
								b.Error(err)
								return
							}
							mu.Lock()
							rows += res.Moves
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
