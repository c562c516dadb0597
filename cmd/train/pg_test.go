package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ocvist/data"
	"ocvist/internal/pgtest"
	"ocvist/loop"
	"ocvist/store/backend"
)

// TestPostgresRunAndLoop: a run against PostgreSQL stores exactly its
// games and leaves no shard behind; one generation of the learning loop
// runs end to end against it, its models in data/loop.models and in the
// database (checkModels), and stats -json lists it; an unreachable server
// is one line and exit 1 before any work.
func TestPostgresRunAndLoop(t *testing.T) {
	u := pgtest.SchemaURL(t)
	dir := t.TempDir()
	if out, errOut, code := trainIn(t, dir, "run", "-db", u, "-workers", "2", "-games", "300"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	if out, errOut, code := trainIn(t, dir, "loop", "-db", u, "-gens", "1", "-games", "12", "-nodes", "300", "-openings", "4",
		"-gate-games", "8", "-anchor-games", "4", "-trees", "4", "-depth", "6"); code != 0 {
		t.Fatalf("loop: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := trainIn(t, dir, "stats", "-db", u, "-json")
	var st struct {
		Games        int64 `json:"games"`
		TeacherGames int64 `json:"teacher_games"`
		Generations  []struct {
			Gen     int             `json:"gen"`
			Details json.RawMessage `json:"details"`
		} `json:"generation_list"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("stats: exit %d\n%s\n%s", code, out, errOut)
	}
	if st.Games != 300 || st.TeacherGames != 12 || len(st.Generations) != 1 || !strings.Contains(string(st.Generations[0].Details), `"top1"`) {
		t.Errorf("stats: %d games (want 300), %d teacher games (want 12), generations %+v", st.Games, st.TeacherGames, st.Generations)
	}
	if out := mustTrainIn(t, dir, "stats", "-db", u); !strings.Contains(out, "teacher games   12 (the learning loop's, in 1 generation; not in games)\n") {
		t.Errorf("stats does not count the loop's games:\n%s", out)
	}
	dirs, _ := os.ReadDir(dir + "/data")
	for _, d := range dirs {
		left, _ := os.ReadDir(dir + "/data/" + d.Name())
		switch {
		case strings.HasSuffix(d.Name(), ".shards") && len(left) != 0:
			t.Errorf("%d files left in %s", len(left), d.Name())
		case d.Name() == "loop.models" && len(left) != 4:
			t.Errorf("%d files in data/loop.models, want generation 0's policy and generation 1's openings (the workers read them) and its two models", len(left))
		}
	}
	checkModels(t, dir, u)
	_, errOut, code = trainIn(t, dir, "run", "-db", "postgres://ocvist:pw@127.0.0.1:1/x?connect_timeout=2", "-games", "10")
	want := "train: store: postgres://ocvist:xxxxx@127.0.0.1:1/x?connect_timeout=2: postgres server unavailable: dial tcp 127.0.0.1:1: connect: connection refused\n"
	if code != 1 || !strings.HasSuffix(errOut, want) || strings.Count(errOut, "train: ") != 1 || strings.Contains(errOut, ":pw@") {
		t.Errorf("unreachable server: exit %d, stderr %q; want exit 1 and one error line %q, password masked", code, errOut, want)
	}
}

// checkModels: after one generation of the loop, "train model" lists
// generation 0's policy and generation 1's two models, fetches each byte
// for byte as the loop wrote it (generation 0: the shipped start model),
// and "current" is the generation the loop's record names; bad requests
// are one line each.
func checkModels(t *testing.T, dir, u string) {
	t.Helper()
	out, errOut, code := trainIn(t, dir, "model", "-db", u, "-list")
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.Contains(out, "generation 0 policy:") ||
		!strings.Contains(out, "generation 1 policy:") || !strings.Contains(out, "generation 1 value:") {
		t.Fatalf("model -list: exit %d\n%s\n%s", code, out, errOut)
	}
	want := map[string][]byte{"0 policy": data.Model20261121}
	for _, role := range []string{"policy", "value"} {
		b, err := os.ReadFile(filepath.Join(dir, "data", "loop.models", "gen-001."+role+".ocf"))
		if err != nil {
			t.Fatal(err)
		}
		want["1 "+role] = b
	}
	cur := currentGen(t, u)
	want["current policy"] = want[fmt.Sprintf("%d policy", cur)]
	for req, b := range want {
		gen, role, _ := strings.Cut(req, " ")
		path := filepath.Join(dir, "fetched", gen+"."+role+".ocf")
		out, errOut, code := trainIn(t, dir, "model", "-db", u, "-gen", gen, "-role", role, "-o", path)
		got, _ := os.ReadFile(path)
		if code != 0 || !bytes.Equal(got, b) || !strings.Contains(out, fmt.Sprintf("sha256 %x", sha256.Sum256(b))) {
			t.Errorf("model -gen %s -role %s: exit %d, %d bytes (want %d)\n%s\n%s", gen, role, code, len(got), len(b), out, errOut)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "fetched", ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-db", u, "-gen", "7", "-o", "x.ocf"}, 1, "keeps no policy model of generation 7"},
		{[]string{"-db", u, "-gen", "0", "-role", "value", "-o", "x.ocf"}, 1, "keeps no value model of generation 0"},
		{[]string{"-db", u, "-gen", "last", "-o", "x.ocf"}, 2, `-gen "last"`},
		{[]string{"-db", u, "-role", "prior", "-o", "x.ocf"}, 2, `-role "prior"`},
		{[]string{"-db", u}, 2, "give -o FILE"},
		{[]string{"-db", "data/ocvist.db", "-o", "x.ocf"}, 2, "is a SQLite file"},
	} {
		_, errOut, code := trainIn(t, dir, append([]string{"model"}, c.args...)...)
		if code != c.code || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, c.msg) {
			t.Errorf("model %v: exit %d, stderr %q; want exit %d and one line with %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}

// currentGen is the loop's current generation as the database records it.
func currentGen(t *testing.T, u string) int {
	t.Helper()
	db, err := backend.OpenReadOnlyAt(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cur, err := loop.Current(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// TestPostgresRunGenerations: "train run -generations" against
// PostgreSQL: the self-play, the fit on the server's statistics, the gate
// and the record; the model lands under data/ (as the shards do) and a
// second run continues the numbering.
func TestPostgresRunGenerations(t *testing.T) {
	u := pgtest.SchemaURL(t)
	dir := t.TempDir()
	openings, err := filepath.Abs(testOpenings)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "-db", u, "-games", "300", "-workers", "2", "-seed", "21", "-generations", "1",
		"-gate-games", "8", "-gate-openings", openings, "-trees", "4"}
	for range 2 {
		if out, errOut, code := trainIn(t, dir, args...); code != 0 {
			t.Fatalf("run -generations: exit %d\n%s\n%s", code, out, errOut)
		}
	}
	out, errOut, code := trainIn(t, dir, "stats", "-db", u, "-json")
	var st struct {
		Games int64 `json:"games"`
		Gens  []struct {
			Gen   int
			Model string
		} `json:"generation_list"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("stats: exit %d\n%s\n%s", code, out, errOut)
	}
	if st.Games != 600 || len(st.Gens) != 2 || st.Gens[0].Gen != 1 || st.Gens[1].Gen != 2 {
		t.Fatalf("stats after two runs of one generation: %s", out)
	}
	for _, g := range st.Gens {
		if !strings.HasPrefix(g.Model, filepath.Join("data", "postgres-")) || !strings.HasSuffix(g.Model, fmt.Sprintf("gen-%03d.ocf", g.Gen)) {
			t.Errorf("generation %d's model at %q, want data/postgres-….models/gen-%03d.ocf", g.Gen, g.Model, g.Gen)
		}
		if _, err := os.Stat(filepath.Join(dir, g.Model)); err != nil {
			t.Errorf("model of generation %d: %v", g.Gen, err)
		}
	}
}
