package store

import (
	"context"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkBatchAdd measures in-memory aggregation of games (per game).
func BenchmarkBatchAdd(b *testing.B) {
	games := randomGames(1, 4096)
	batch := NewBatch()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(games) == 0 {
			batch.Reset()
		}
		if err := batch.Add(games[i%len(games)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteBatch measures DB.Write of batches of 2,000 random games into
// one growing database; rows/s counts the upserted move and position rows.
func BenchmarkWriteBatch(b *testing.B) {
	ctx := context.Background()
	const nBatches = 8
	batches := make([]*Batch, nBatches)
	for i := range batches {
		batches[i] = mustBatch(b, randomGames(uint64(100+i), 2000))
	}
	d := mustOpen(b, filepath.Join(b.TempDir(), "bench.db"))
	var rows int64
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		bt := batches[i%nBatches]
		if err := d.Write(ctx, bt); err != nil {
			b.Fatal(err)
		}
		rows += int64(bt.Rows() + bt.Positions())
	}
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

// BenchmarkMerge measures DB.Merge of a published shard (20,000 random games)
// into a database already holding another such shard, so that many rows
// conflict; rows/s counts the merged move and position rows. The target is a
// fresh copy each iteration (outside the timer).
func BenchmarkMerge(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	shard := mustShard(b, dir, testCfg, randomGames(1, 20000), 4)
	base := filepath.Join(dir, "base.db")
	d := mustOpen(b, base)
	if _, err := d.Merge(ctx, mustShard(b, dir, testCfg, randomGames(2, 20000), 4)); err != nil {
		b.Fatal(err)
	}
	mustClose(b, d)
	var rows int64
	var elapsed time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		target := filepath.Join(dir, "target.db")
		copyFile(b, base, target)
		d, err := Open(target, testCfg)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		res, err := d.Merge(ctx, shard)
		elapsed += time.Since(start)
		if err != nil || res.AlreadyMerged {
			b.Fatal(res, err)
		}
		rows += res.Moves + res.Positions
		b.StopTimer()
		mustClose(b, d)
		os.Remove(target)
		b.StartTimer()
	}
	b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

func copyFile(b *testing.B, from, to string) {
	src, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
}

// largeRows inserts n move rows with seeded random-looking keys (about 120
// bytes, one move per key) directly into d, in key order.
func largeRows(b *testing.B, d *DB, seed uint64, n int) {
	b.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 7))
	keys := make([]string, n)
	buf := make([]byte, 60)
	for i := range keys {
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		keys[i] = hex.EncodeToString(buf)
	}
	slices.Sort(keys)
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	args := make([]any, 0, 6*rowsPerInsert)
	err = chunked(ctx, tx, n, "moves", moveCols, moveValues, moveConflict, func(i int) {
		args = append(args, keys[i], i%7, i%5, 1, 2, 0)
	}, &args)
	if err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMergeLarge measures DB.Merge of shards of 150,000 new random keys
// into a database of 3 million rows (about 1 GiB), as a long run's merges
// are: rows land all over the big B-tree. rows/s counts the merged move rows.
// The database grows with each iteration; the shards are built outside the
// timer.
func BenchmarkMergeLarge(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	d := mustOpen(b, filepath.Join(dir, "large.db"))
	largeRows(b, d, 1, 3_000_000)
	if err := d.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
	var rows int64
	var elapsed time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := CreateShard(dir, testCfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		largeRows(b, s.DB, uint64(100+i), 150_000)
		path, err := s.Publish()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		res, err := d.Merge(ctx, path)
		elapsed += time.Since(start)
		if err != nil || res.AlreadyMerged {
			b.Fatal(res, err)
		}
		rows += res.Moves
	}
	b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
}
