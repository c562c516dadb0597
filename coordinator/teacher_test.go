package coordinator

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/openings"
	"ocvist/selfplay"
	"ocvist/store"
	"ocvist/store/sqlite"
)

// teacherConfig is a cheap teacher of generation 1 over the shipped
// generation-0 policy and n generated openings, whose files it writes in
// dir.
func teacherConfig(t testing.TB, dir string, n int) TeacherConfig {
	t.Helper()
	policy := filepath.Join(dir, "gen-000.policy.ocf")
	if err := os.WriteFile(policy, data.Model20261121, 0o644); err != nil {
		t.Fatal(err)
	}
	ops, err := openings.Generate(3, n, gomoku.Freestyle)
	if err != nil {
		t.Fatal(err)
	}
	opsFile := filepath.Join(dir, "gen-001.openings")
	if err := WriteOpenings(opsFile, ops, "test"); err != nil {
		t.Fatal(err)
	}
	back, err := openings.ReadFile(opsFile)
	if err != nil || len(back) != n {
		t.Fatalf("openings read back: %d, %v", len(back), err)
	}
	for i := range ops {
		if !reflect.DeepEqual(back[i].Moves, ops[i].Moves) {
			t.Fatalf("opening %d: wrote %v, read %v", i, ops[i].Moves, back[i].Moves)
		}
	}
	return TeacherConfig{Rule: gomoku.Freestyle, Radius: 2, Nodes: 300, Explore: 2, Margin: 30, Openings: opsFile,
		Seed: 7, Gen: 1, Policy: policy, PriorDepth: 4, ValueScale: 300}
}

// teacherJob plays generation 1's games of plan as member m of db, with
// two workers, and returns what PlayTeacher did.
func teacherJob(t *testing.T, db store.Store, m store.LoopMember, plan store.TeacherPlan, tc TeacherConfig, root string) (TeacherResult, error, string) {
	t.Helper()
	var log syncBuffer
	res, err := PlayTeacher(context.Background(), TeacherJob{DB: db, ShardRoot: root, Workers: 2, Game: tc,
		Claim: func(ctx context.Context) ([]int, bool, error) {
			c, ok, err := m.Claim(ctx, plan.Gen)
			return c.Games, ok, err
		},
		Backlog: BacklogAuto, Progress: time.Hour, Log: &log, Label: "gen 1", Quota: int64(plan.Games)})
	return res, err, log.String()
}

// TestTeacherJob: teacher workers play exactly the games their claims
// name, each as (seed, generation, game) alone gives it, and the job
// merges every one of them once; workers killed in their second block
// (one game played and not published) fail the job, and a second job
// replays only the games that are missing: the generation ends with every
// game stored once, none merged twice, none left on disk.
func TestTeacherJob(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tc := teacherConfig(t, dir, 4)
	plan := store.TeacherPlan{Gen: 1, Games: 10, Block: 3}
	teacher, err := tc.NewTeacher()
	if err != nil {
		t.Fatal(err)
	}
	var want []store.TeacherGame
	for i := range plan.Games {
		g := teacher.Play(rand.New(rand.NewPCG(selfplay.TeacherSeed(tc.Seed, tc.Gen, i), 0)))
		want = append(want, g.Stored(1, i))
	}
	for _, kill := range []bool{false, true} {
		db, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"), store.DefaultConfig(0))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.PlanTeacher(ctx, plan); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(dir, "shards")
		m, _ := db.JoinLoop(ctx)
		if kill {
			t.Setenv("OCVIST_TEST_WORKER", "die-at-played=4")
			res, err, log := teacherJob(t, db, m, plan, tc, root)
			if err == nil || !strings.Contains(err.Error(), "worker 0: signal: killed") || res.Merged >= 10 || res.Duplicates != 0 {
				t.Fatalf("killed workers: %+v, %v\n%s", res, err, log)
			}
			m.Leave()
			m, _ = db.JoinLoop(ctx)
			os.Unsetenv("OCVIST_TEST_WORKER")
		}
		res, err, log := teacherJob(t, db, m, plan, tc, root)
		if err != nil || res.Duplicates != 0 {
			t.Fatalf("kill %v: %+v, %v\n%s", kill, res, err, log)
		}
		var got []store.TeacherGame
		db.TeacherGames(ctx, 0, 9, func(g store.TeacherGame) error { got = append(got, g); return nil })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("kill %v: the stored games are not those (seed, generation, game) give", kill)
		}
		st, err := db.Stats(ctx)
		if err != nil || st.TeacherGames != 10 || st.TeacherShardGames != 10 {
			t.Fatalf("kill %v: stats %+v, %v: want 10 teacher games, merged once each", kill, st, err)
		}
		if left, _ := os.ReadDir(root); len(left) != 0 {
			t.Errorf("kill %v: %d entries left in the shard root", kill, len(left))
		}
	}
}
