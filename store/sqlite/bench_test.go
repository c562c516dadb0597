package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"ocvist/canon"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/storetest"
)

// BenchmarkBatchAdd measures in-memory aggregation of games (per game).
func BenchmarkBatchAdd(b *testing.B) {
	games := storetest.RandomGames(1, 4096)
	batch := shard.NewBatch()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%len(games) == 0 {
			batch.Reset()
		}
		if err := batch.Add(games[i%len(games)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWritePath measures a worker's whole storing cost per game:
// Batch.Add, and every 5,000 games WriteShard (sort, encode, checksum,
// write, sync, publish). The games are generated outside the timer.
func BenchmarkWritePath(b *testing.B) {
	const shardGames = 5000
	games := storetest.RandomGames(1, shardGames)
	dir := b.TempDir()
	batch := shard.NewBatch()
	var rows int64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := batch.Add(games[i%shardGames]); err != nil {
			b.Fatal(err)
		}
		if batch.Len() == shardGames {
			rows += int64(batch.Rows())
			if _, err := batch.WriteShard(context.Background(), dir, storetest.Config, nil); err != nil {
				b.Fatal(err)
			}
			batch.Reset()
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	if b.N >= shardGames {
		b.ReportMetric(float64(rows)/float64(b.N/shardGames*shardGames), "rows/game")
	}
}

// matureRows fills d's moves table with n promoted rows of random keys
// (about 60 bytes, one move per key), as a long run's database holds.
func matureRows(b *testing.B, d *DB, seed uint64, n int) {
	b.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 7))
	ps := make([]shard.Position, n)
	buf := make([]byte, 30)
	for i := range ps {
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		key := hex.EncodeToString(buf)
		ps[i] = shard.Position{ID: canon.ID(key), Moves: []shard.MoveRow{{Move: canon.Move{X: int8(i % 7), Y: int8(i % 5)}, WSum: 1, Games: 2}}}
		ps[i].SetKey([]byte(key))
	}
	slices.SortFunc(ps, func(p, q shard.Position) int { return shard.ComparePositions(&p, &q) })
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		up := newUpserter(ctx, tx)
		for i := range ps {
			if err := up.position(&ps[i]); err != nil {
				return err
			}
		}
		return up.flush()
	})
	if err != nil {
		b.Fatal(err)
	}
	d.dropIndex()
	if err := d.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMerge measures Merge of a 5,000-game shard into databases of 1
// and 10 million promoted rows: rows/s counts the shard's rows. Merge reads
// the shard once, links it in and updates the index in one sequential
// pass, so its cost does not grow with the moves table.
func BenchmarkMerge(b *testing.B) { benchLarge(b, false) }

// BenchmarkPrune measures a merge followed by a Prune that expires the new
// run at once (Age 0: its promoted positions' rows are upserted into the
// large moves table, the others dropped), into databases of 1 and 10
// million promoted rows; rows/s counts the shard's rows. This is where the
// database's size could show.
func BenchmarkPrune(b *testing.B) { benchLarge(b, true) }

func benchLarge(b *testing.B, prune bool) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("rows=%dM", n/1_000_000), func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			d := mustOpen(b, filepath.Join(dir, "large.db"))
			matureRows(b, d, 1, n)
			if err := d.index(ctx); err != nil {
				b.Fatal(err)
			}
			var rows int64
			var elapsed time.Duration
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				p := storetest.MustShard(b, dir, storetest.Config, storetest.RandomGames(uint64(100+i), 5000))
				b.StartTimer()
				start := time.Now()
				res, err := d.Merge(ctx, p)
				if err != nil || res.AlreadyMerged {
					b.Fatal(res, err)
				}
				if prune {
					if _, err := d.Prune(ctx, store.PruneConfig{MinGames: 2, Age: 0}); err != nil {
						b.Fatal(err)
					}
				}
				elapsed += time.Since(start)
				rows += res.Moves
			}
			b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
		})
	}
}

// BenchmarkYoungRead measures reading a young run of 5,000 games through,
// as prune and the readers do (seal, order, counts and checksum): from the
// database file (its chunks in young_data) and, for comparison, from a
// file of the same bytes (the layout of schema 4). MB/s counts the run's
// bytes.
func BenchmarkYoungRead(b *testing.B) {
	ctx := context.Background()
	d := mustOpen(b, filepath.Join(b.TempDir(), "y.db"))
	writeGames(b, d, storetest.RandomGames(1, 5000), 5000)
	s, err := d.snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer s.close()
	var data []byte
	if err := s.tx.QueryRow("SELECT group_concat(data, x'') FROM (SELECT data FROM young_data ORDER BY off)").Scan(&data); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "young.run")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	readAll := func(b *testing.B, open func() (*shard.Reader, error)) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			r, err := open()
			if err != nil {
				b.Fatal(err)
			}
			for {
				p, err := r.Next()
				if err != nil {
					b.Fatal(err)
				}
				if p == nil {
					break
				}
			}
			r.Close()
		}
	}
	b.Run("db", func(b *testing.B) { readAll(b, func() (*shard.Reader, error) { return s.set.Open(0) }) })
	b.Run("file", func(b *testing.B) { readAll(b, func() (*shard.Reader, error) { return shard.Open(file) }) })
}
