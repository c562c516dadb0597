package loop

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"ocvist/gomoku"
	"ocvist/internal/pgtest"
	"ocvist/store"
	"ocvist/store/postgres"
)

// TestTwoMachines: acceptance point 3 of the issue (many machines). Two
// loops on one PostgreSQL database, each a process with its own shard
// folder and models, play two generations together: both play games of
// each generation (their claims wait for each other's first), one leads
// each fit, the other fetches the new models (generation 1 is adopted)
// and goes on. The database
// ends with the games of both, each stored once and merged once — the
// games of one machine's loop given the same seed — and models
// byte-identical to that loop's.
func TestTwoMachines(t *testing.T) {
	u := pgtest.SchemaURL(t)
	const seed, games, gens = 5, 24, 2 // seed 5 adopts generation 1
	refDir := t.TempDir()
	ref, err := newSmall(mustDB(t, filepath.Join(refDir, "r.db")), filepath.Join(refDir, "models"), seed, games)
	if err != nil {
		t.Fatal(err)
	}
	refRecs, err := ref.Run(context.Background(), gens)
	if err != nil {
		t.Fatal(err)
	}
	refGames, _, _ := stored(t, filepath.Join(refDir, "r.db"))

	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i, free := range []int{1, 0} {
		name := fmt.Sprintf("m%d", i)
		spec := childSpec{DB: u, Dir: filepath.Join(dir, name, "models"), Seed: seed, Games: games,
			Shards: filepath.Join(dir, name, "shards"), Gens: gens, Workers: 1, FreeClaims: free}
		cmd, out := childCmd(t, self, spec)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("machine %d: %v\n%s", i, err, outs[i])
		}
		// Generation 1 was adopted: both play generation 2 with its
		// models, fetched from the database by the one that did not fit.
		if !strings.Contains(outs[i].String(), "gen 2: playing teacher games with gen 1's models") {
			t.Errorf("machine %d did not play generation 2 with generation 1's models:\n%s", i, outs[i])
		}
	}
	// Without a gate (newSmall) the member that fits generation 1 adopts
	// it unjudged, and says so.
	if n := strings.Count(outs[0].String()+outs[1].String(), "gen 1: no gate: adopted"); n != 1 {
		t.Errorf("%d lines say generation 1 was adopted without a gate, want 1:\n%s\n%s", n, outs[0], outs[1])
	}
	ctx := context.Background()
	db, err := postgres.Open(ctx, u, store.DefaultConfig(gomoku.Freestyle))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got []store.TeacherGame
	if err := db.TeacherGames(ctx, 0, 100, func(g store.TeacherGame) error { got = append(got, g); return nil }); err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, refGames) || st.TeacherGames != gens*games || st.TeacherShardGames != gens*games {
		t.Fatalf("%d games (those of one machine: %v), stats %+v; want %d, each merged once\n%s\n%s",
			len(got), reflect.DeepEqual(got, refGames), st, gens*games, outs[0], outs[1])
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for g := 1; g <= gens; g++ {
		var n int
		err := conn.QueryRow(ctx, "SELECT count(DISTINCT member) FROM teacher_claims WHERE gen = $1", g).Scan(&n)
		if err != nil || n != 2 {
			t.Errorf("generation %d: %d members hold its blocks (%v), want both machines", g, n, err)
		}
	}
	for i := range 2 {
		// A shard's path in the ledger names the machine's shard folder.
		root := filepath.Join(dir, fmt.Sprintf("m%d", i), "shards")
		var n int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM merged_shards WHERE kind = 'teacher' AND path LIKE $1", root+"/%").Scan(&n)
		if err != nil || n == 0 {
			t.Errorf("machine %d merged no teacher shard (%v)\n%s", i, err, outs[i])
		}
		if left, _ := filepath.Glob(filepath.Join(root, "*")); len(left) != 0 {
			t.Errorf("machine %d left %v", i, left)
		}
	}
	recs, err := Records(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		for _, role := range []string{store.RolePolicy, store.RoleValue} {
			m, err := db.Model(ctx, recs[i].Gen, role)
			want, _ := os.ReadFile(ref.modelFile(recs[i].Gen, role))
			if err != nil || !bytes.Equal(m.Bytes, want) {
				t.Errorf("generation %d's %s model differs from one machine's (%v)", recs[i].Gen, role, err)
			}
		}
	}
	if len(recs) != gens {
		t.Fatalf("%d records", len(recs))
	}
	for i := range recs {
		a, b := refRecs[i], recs[i]
		if a.Samples != b.Samples || a.Top1 != b.Top1 || a.AUC != b.AUC || a.Gate.Score != b.Gate.Score || a.Current != b.Current || a.Games != b.Games {
			t.Errorf("gen %d: records differ:\n%+v\n%+v", a.Gen, a, b)
		}
	}
}

// childCmd is a child loop of spec, its output gathered.
func childCmd(t *testing.T, self string, spec childSpec) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	b := specJSON(spec)
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), childEnv+"="+b)
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	return cmd, out
}
