package coordinator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"ocvist/selfplay"
	"ocvist/store"
	"ocvist/store/sqlite"
)

// BenchmarkTeacherJob: one op is a teacher job of 20 games per worker on
// 1 and on 2 worker processes (the recipe's 5,000 nodes a move, the
// generation-0 policy, 400 generated openings), every game published in a
// teacher shard and merged into a SQLite database; reports games/s and
// samples/s (plies after the opening) end to end, and games per second
// per worker. BenchmarkTeacherInProcess plays the same games in this
// process, one core, for comparison.
func BenchmarkTeacherJob(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) { benchTeacherJob(b, w) })
	}
}

func benchTeacherJob(b *testing.B, workers int) {
	const perWorker = 20
	ctx := context.Background()
	dir := b.TempDir()
	tc := teacherConfig(b, dir, 400)
	tc.Nodes, tc.Explore = 5000, 6
	var games, samples int64
	var elapsed time.Duration
	for i := range b.N {
		db, err := sqlite.Open(filepath.Join(dir, fmt.Sprintf("b%d.db", workers)), store.DefaultConfig(0))
		if err != nil {
			b.Fatal(err)
		}
		plan := store.TeacherPlan{Gen: i + 1, Games: workers * perWorker, Block: 16}
		if _, err := db.PlanTeacher(ctx, plan); err != nil {
			b.Fatal(err)
		}
		m, _ := db.JoinLoop(ctx)
		tc.Gen = plan.Gen
		start := time.Now()
		_, err = PlayTeacher(ctx, TeacherJob{DB: db, ShardRoot: filepath.Join(dir, "shards"), Workers: workers, Game: tc,
			Claim: func(ctx context.Context) ([]int, bool, error) {
				c, ok, err := m.Claim(ctx, plan.Gen)
				return c.Games, ok, err
			}, Backlog: BacklogAuto, Progress: time.Hour, Log: &syncBuffer{}, Label: "bench"})
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		db.TeacherGames(ctx, plan.Gen, plan.Gen, func(g store.TeacherGame) error {
			games++
			samples += int64(len(g.Teacher))
			return nil
		})
		m.Leave()
		db.Close()
	}
	b.ReportMetric(float64(games)/elapsed.Seconds(), "games/s")
	b.ReportMetric(float64(samples)/elapsed.Seconds(), "samples/s")
	b.ReportMetric(float64(games)/elapsed.Seconds()/float64(workers), "games/s/worker")
}

// BenchmarkTeacherInProcess: BenchmarkTeacherJob's games (generation 1's
// first 20) in this process, on one core.
func BenchmarkTeacherInProcess(b *testing.B) {
	tc := teacherConfig(b, b.TempDir(), 400)
	tc.Nodes, tc.Explore = 5000, 6
	teacher, err := tc.NewTeacher()
	if err != nil {
		b.Fatal(err)
	}
	var games, samples int
	b.ResetTimer() // generating 400 openings takes seconds, once per generation
	for range b.N {
		for i := range 20 {
			g := teacher.Play(rand.New(rand.NewPCG(selfplay.TeacherSeed(tc.Seed, tc.Gen, i), 0)))
			games++
			samples += len(g.Teacher)
		}
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(samples)/b.Elapsed().Seconds(), "samples/s")
}
