package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"ocvist/data"
	"ocvist/gomoku"
	"ocvist/policy"
	"ocvist/store"
	"ocvist/store/backend"
	"ocvist/store/shard"
	"ocvist/store/sqlite"
)

// childEnv makes the test binary a loop of its own (loopChild), with the
// JSON of a childSpec: a process the tests can kill, as a machine or a
// crash kills a loop.
const childEnv = "OCVIST_TEST_LOOP"

// childSpec is what a child loop runs: gens generations of a small loop
// of seed Seed and Games games, on the SQLite database DB, models in Dir.
// It kills itself (SIGKILL) at a deterministic point: when it is about to
// merge its KillAtMerge-th teacher shard (the shard waits in its job's
// folder), or when it first reads the teacher games to fit
// (KillAtFit: every game is in, no record yet).
type childSpec struct {
	DB, Dir     string
	Seed        uint64
	Games       int
	KillAtMerge int
	KillAtFit   bool
	// For a machine of a PostgreSQL loop (DB a URL): its own shard root,
	// its generations, its workers; after FreeClaims claims of a
	// generation, each claim waits until another member has claimed in
	// it too (so that both machines play).
	Shards     string
	Gens       int
	Workers    int
	FreeClaims int
}

func loopChild() int {
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(childEnv)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	db, err := backend.OpenAt(context.Background(), spec.DB, store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	var wrapped store.Store = &killer{Store: db, spec: spec}
	if ms, ok := db.(store.ModelStore); ok {
		wrapped = machine{wrapped.(*killer), ms}
	}
	l, err := newSmall(wrapped, spec.Dir, spec.Seed, spec.Games)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if spec.Shards != "" {
		l.ShardRoot, l.cfg.Workers, l.Poll = spec.Shards, spec.Workers, 50*time.Millisecond
	}
	l.Out = os.Stderr
	l.Log = func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	if _, err := l.Run(context.Background(), max(spec.Gens, 1)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// machine is a killer that keeps models (a PostgreSQL store).
type machine struct {
	*killer
	store.ModelStore
}

// JoinLoop gives a member whose claims wait for a partner (see
// childSpec.FreeClaims) on a PostgreSQL loop.
func (k *killer) JoinLoop(ctx context.Context) (store.LoopMember, error) {
	m, err := k.Store.JoinLoop(ctx)
	if err != nil || !backend.IsURL(k.spec.DB) {
		return m, err
	}
	return &partnered{LoopMember: m, url: k.spec.DB, free: k.spec.FreeClaims, claims: map[int]int{}}, nil
}

type partnered struct {
	store.LoopMember
	url    string
	free   int
	claims map[int]int // by generation
}

func (p *partnered) Claim(ctx context.Context, gen int) (store.Claim, bool, error) {
	if p.claims[gen]++; p.claims[gen] > p.free {
		if err := p.waitPartner(ctx, gen); err != nil {
			return store.Claim{}, false, err
		}
	}
	return p.LoopMember.Claim(ctx, gen)
}

// waitPartner waits (a minute at most) until another member has a claim
// in generation gen.
func (p *partnered) waitPartner(ctx context.Context, gen int) error {
	conn, err := pgx.Connect(ctx, p.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM teacher_claims WHERE gen = $1 AND member != $2", gen, p.ID()).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
	return nil // the test sees what happened
}

// killer is a store that kills its process where its spec says.
type killer struct {
	store.Store
	spec   childSpec
	merges int
}

func (k *killer) Merge(ctx context.Context, path string) (store.MergeResult, error) {
	if info, err := shard.ReadTeacherShard(path); err == nil && len(info.Games) > 0 {
		if k.merges++; k.merges == k.spec.KillAtMerge {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	return k.Store.Merge(ctx, path)
}

func (k *killer) TeacherGames(ctx context.Context, from, to int, fn func(store.TeacherGame) error) error {
	if k.spec.KillAtFit {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return k.Store.TeacherGames(ctx, from, to, fn)
}

// newSmall is a small loop of games games a generation over db.
func newSmall(db store.Store, dir string, seed uint64, games int) (*Loop, error) {
	start, err := policy.Load(bytes.NewReader(data.Model20261121))
	if err != nil {
		return nil, err
	}
	cfg := smallConfig(seed)
	cfg.Games = games
	// No gate: every generation is adopted whatever its models' strength,
	// so the next one plays with them (fetched by every machine).
	cfg.Gate = Gate{}
	l, err := New(db, dir, start, cfg)
	if err == nil {
		l.ShardRoot = filepath.Join(filepath.Dir(dir), "shards")
	}
	return l, err
}

// runChild runs a child loop of spec with the environment env added and
// returns how it ended and what it said.
func runChild(t *testing.T, spec childSpec, env ...string) (error, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(append(os.Environ(), childEnv+"="+specJSON(spec)), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd.Run(), out.String()
}

func specJSON(spec childSpec) string {
	b, _ := json.Marshal(spec)
	return string(b)
}

// stored reads a database's teacher games, stats and records.
func stored(t *testing.T, path string) ([]store.TeacherGame, store.Stats, []Record) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var games []store.TeacherGame
	if err := db.TeacherGames(ctx, 0, 100, func(g store.TeacherGame) error { games = append(games, g); return nil }); err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := Records(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	return games, st, recs
}

// TestResume: acceptance point 3 of the issue (one machine). A loop whose
// worker is killed (kill -9) after its first game and which is killed
// itself when about to merge its third teacher shard, mid-generation,
// resumes: it merges the shards its dead job left, plays only the games
// that are missing, and ends with every game stored once (none merged
// twice) — the games, records and byte-identical models of an
// uninterrupted loop. A loop killed when its games are all in, before its
// fit, resumes without playing a game.
func TestResume(t *testing.T) {
	const seed, games = 11, 24
	refDir := t.TempDir()
	ref, err := newSmall(mustDB(t, filepath.Join(refDir, "r.db")), filepath.Join(refDir, "models"), seed, games)
	if err != nil {
		t.Fatal(err)
	}
	refRecs, err := ref.Run(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	refGames, refStats, _ := stored(t, filepath.Join(refDir, "r.db"))
	if len(refGames) != games || refStats.TeacherShardGames != games {
		t.Fatalf("reference: %d games, stats %+v", len(refGames), refStats)
	}

	for _, c := range []struct {
		name   string
		spec   childSpec
		env    []string
		shards int64 // teacher shards merged when the child died
	}{
		// Worker 0 dies after its first game (before or after the loop:
		// killed by its parent's death, it finishes that game first).
		{"mid-generation", childSpec{KillAtMerge: 3}, []string{"OCVIST_TEST_WORKER=die-at-played=1,worker=0"}, 2},
		{"before the fit", childSpec{KillAtFit: true}, nil, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := c.spec
			spec.DB, spec.Dir, spec.Seed, spec.Games = filepath.Join(dir, "l.db"), filepath.Join(dir, "models"), seed, games
			err, out := runChild(t, spec, c.env...)
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child loop was not killed: %v\n%s", err, out)
			}
			_, st, recs := stored(t, spec.DB)
			waiting, _ := filepath.Glob(filepath.Join(dir, "shards", "job-*", "shard-*.run"))
			switch {
			case len(recs) != 0:
				t.Fatalf("the killed loop recorded %d generations", len(recs))
			case c.shards >= 0 && (st.TeacherShards != c.shards || len(waiting) == 0):
				t.Fatalf("killed at its 3rd merge: %d teacher shards merged, %d waiting; want %d and some", st.TeacherShards, len(waiting), c.shards)
			case c.shards < 0 && st.TeacherGames != games:
				t.Fatalf("killed before the fit with %d of %d games in", st.TeacherGames, games)
			}
			before := st.TeacherShards
			l, err := newSmall(mustDB(t, spec.DB), spec.Dir, seed, games)
			if err != nil {
				t.Fatal(err)
			}
			var log strings.Builder
			l.Log = func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }
			l.Out = &log
			recs, err = l.Run(context.Background(), 1)
			if err != nil {
				t.Fatalf("resume: %v\n%s", err, log.String())
			}
			got, st, _ := stored(t, spec.DB)
			if !reflect.DeepEqual(got, refGames) || st.TeacherGames != games || st.TeacherShardGames != games {
				t.Fatalf("after the resume: %d games (equal to the reference: %v), stats %+v; want %d, each merged once\n%s",
					len(got), reflect.DeepEqual(got, refGames), st, games, log.String())
			}
			if c.shards >= 0 && !strings.Contains(log.String(), "shard(s) left by an earlier run") {
				t.Errorf("the resumed loop did not merge the dead job's shards:\n%s", log.String())
			}
			if c.shards < 0 && st.TeacherShards != before {
				t.Errorf("a generation whose games were all in played %d more shards", st.TeacherShards-before)
			}
			sameRecords(t, refRecs, recs, refDir, dir)
			if left, _ := filepath.Glob(filepath.Join(dir, "shards", "*")); len(left) != 0 {
				t.Errorf("left in the shard root: %v", left)
			}
		})
	}
}

func mustDB(t *testing.T, path string) store.Store {
	t.Helper()
	db, err := sqlite.Open(path, store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sameRecords checks that two runs' records give the same figures and
// byte-identical model files (each under its directory).
func sameRecords(t *testing.T, r1, r2 []Record, d1, d2 string) {
	t.Helper()
	if len(r1) != len(r2) {
		t.Fatalf("%d and %d records", len(r1), len(r2))
	}
	for i := range r1 {
		a, b := r1[i], r2[i]
		if a.Games != b.Games || a.BlackWins != b.BlackWins || a.Samples != b.Samples || a.PolicyRows != b.PolicyRows ||
			a.Top1 != b.Top1 || a.AUC != b.AUC || a.ValueAUC != b.ValueAUC || a.Gate.Score != b.Gate.Score || a.Adopted != b.Adopted || a.Current != b.Current {
			t.Errorf("gen %d: records differ:\n%+v\n%+v", a.Gen, a, b)
		}
		for _, pair := range [][2]string{{a.PolicyModel, b.PolicyModel}, {a.ValueModel, b.ValueModel}} {
			x, err1 := os.ReadFile(pair[0])
			y, err2 := os.ReadFile(pair[1])
			if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
				rel, _ := filepath.Rel(d1, pair[0])
				t.Errorf("%s: model files differ (%v, %v)", rel, err1, err2)
			}
		}
	}
}
