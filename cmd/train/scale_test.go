package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"ocvist/gomoku"
	"ocvist/selfplay"
	"ocvist/store"
	"ocvist/store/shard"
	"ocvist/store/sqlite"
)

// trainIn runs the command in dir and returns its output and exit code.
func trainIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := trainCmd(t, args...)
	cmd.Dir = dir
	var o, e syncBuffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(interface{ ExitCode() int }); ok && err != nil {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// treeHash hashes every file under the given paths.
func treeHash(t *testing.T, paths ...string) string {
	t.Helper()
	h := sha256.New()
	for _, root := range paths {
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			h.Write([]byte(p))
			h.Write(b)
			return nil
		})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func oneLine(t *testing.T, what, errOut, want string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "train: ") || !strings.Contains(lines[0], want) {
		t.Errorf("%s: stderr %q: want one line starting \"train: \" containing %q", what, errOut, want)
	}
}

// TestBlacklistSurvivesPrune: on a real run.
// The same games pruned of every young position (-prune-age 0) and not
// pruned at all keep exactly the same blacklisted moves, those of dropped
// positions included; and the next run's workers get them.
func TestBlacklistSurvivesPrune(t *testing.T) {
	dir := t.TempDir()
	pruned, kept := filepath.Join(dir, "pruned.db"), filepath.Join(dir, "kept.db")
	for db, age := range map[string]string{pruned: "0", kept: "100000000"} {
		mustTrain(t, "run", "-db", db, "-games", "400", "-workers", "2", "-seed", "9", "-shard-games", "50", "-prune-age", age)
	}
	sp, sk := stats(t, pruned), stats(t, kept)
	if sp.Games != 400 || sk.Games != 400 || sp.BlackWins != sk.BlackWins || sp.Draws != sk.Draws {
		t.Fatalf("not the same games: %+v, %+v", sp, sk)
	}
	if sp.Positions >= sk.Positions || sp.Young != 0 || sp.PrunedBlack == 0 {
		t.Fatalf("prune dropped nothing: pruned %+v, kept %+v", sp, sk)
	}
	if sp.Blacklisted != sk.Blacklisted || sp.Blacklisted == 0 {
		t.Fatalf("blacklisted moves: %d after pruning, %d without (%d kept from pruned positions)", sp.Blacklisted, sk.Blacklisted, sp.PrunedBlack)
	}
	t.Logf("%d blacklisted moves of %d decisive games, %d of them in pruned positions", sp.Blacklisted, sp.BlackWins+sp.WhiteWins, sp.PrunedBlack)
	db, err := sqlite.OpenReadOnly(pruned)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bl, err := db.Blacklist(context.Background())
	if err != nil || int64(bl.Len()) != sp.Blacklisted {
		t.Fatalf("a worker would load %d blacklisted moves (%v), want %d", bl.Len(), err, sp.Blacklisted)
	}
}

// TestRemergeGrownRefused: a database
// merged, then grown, is refused when merged again (exit 1, one line,
// nothing changed), not reported as already merged.
func TestRemergeGrownRefused(t *testing.T) {
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a.db"), filepath.Join(dir, "c.db")
	mustTrain(t, "run", "-db", a, "-games", "100", "-workers", "1", "-seed", "1")
	mustTrain(t, "merge", "-db", c, a)
	if out := mustTrain(t, "merge", "-db", c, a); !strings.Contains(out, "already merged") {
		t.Errorf("same state merged again said: %s", out)
	}
	mustTrain(t, "run", "-db", a, "-games", "50", "-workers", "1", "-seed", "2")
	before := treeHash(t, c)
	_, errOut, code := train(t, "merge", "-db", c, a)
	if code != 1 {
		t.Errorf("merge of a grown database: exit %d", code)
	}
	oneLine(t, "merge grown", errOut, "changed since")
	if treeHash(t, c) != before || stats(t, c).Games != 100 {
		t.Error("the refused merge changed the target")
	}
}

// TestSecondWriterRefused: while a run
// writes a database, a second run, merge, prune or conclude on it is
// refused at once with one line, and the first job's counts stay exact.
func TestSecondWriterRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	cmd, errOut := startRun(t, db)
	other := filepath.Join(dir, "other.db")
	mustTrain(t, "run", "-db", other, "-games", "20", "-workers", "1", "-seed", "1")
	for _, args := range [][]string{
		{"run", "-db", db, "-games", "10", "-workers", "1"},
		{"merge", "-db", db, other},
		{"prune", "-db", db},
		{"conclude", "-db", db},
		{"merge", "-db", other, db}, // reading a database being written
	} {
		_, e, code := train(t, args...)
		if code != 1 {
			t.Errorf("%v while a run writes: exit %d", args, code)
		}
		oneLine(t, strings.Join(args, " "), e, "in use")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, errOut.String())
	}
	integrity(t, db)
	if n := rootGames(t, db); n < 50 {
		t.Errorf("first run stored %d games", n)
	}
	if stats(t, other).Games != 20 {
		t.Error("the refused merge changed the other database")
	}
}

// TestFitDefaultsKeepModel: "train fit"
// with no flags, from a directory with the shipped data/model.ocf, writes
// next to the database and leaves the shipped model byte-identical.
func TestFitDefaultsKeepModel(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile("../../data/model.ocf")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "data", "model.ocf")
	if err := os.WriteFile(model, shipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := trainIn(t, dir, "run", "-games", "300", "-workers", "2", "-seed", "3"); code != 0 {
		t.Fatalf("run with the default database: exit %d: %s", code, e)
	}
	out, e, code := trainIn(t, dir, "fit", "-trees", "4")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, e)
	}
	if got, _ := os.ReadFile(model); string(got) != string(shipped) {
		t.Error("fit with defaults changed data/model.ocf")
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "ocvist.ocf")); err != nil || !strings.Contains(out, "data/ocvist.ocf") {
		t.Errorf("fit did not write data/ocvist.ocf (%v): %s", err, out)
	}
	// From a directory without data/, the default database is refused
	// rather than a ./data/ created there.
	empty := t.TempDir()
	_, e, code = trainIn(t, empty, "run", "-games", "5", "-workers", "1")
	if code != 2 {
		t.Errorf("run without data/: exit %d", code)
	}
	oneLine(t, "run without data/", e, "no data/ directory")
	if _, err := os.Stat(filepath.Join(empty, "data")); err == nil {
		t.Error("run created ./data/")
	}
}

// TestRefuseShard: prune, conclude and run
// refuse a worker's shard with one line and leave it byte-identical.
func TestRefuseShard(t *testing.T) {
	dir := t.TempDir()
	pl := selfplay.New(selfplay.Config{}, selfplay.Uniform{}, store.Blacklist{})
	b := shard.NewBatch()
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		if err := b.Add(pl.Play(rng)); err != nil {
			t.Fatal(err)
		}
	}
	shard, err := b.WriteShard(context.Background(), dir, store.DefaultConfig(gomoku.Freestyle), nil)
	if err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)
	for _, args := range [][]string{
		{"prune", "-db", shard},
		{"conclude", "-db", shard},
		{"run", "-db", shard, "-games", "5", "-workers", "1"},
		{"stats", "-db", shard},
	} {
		_, e, code := train(t, args...)
		if code != 1 {
			t.Errorf("%v: exit %d", args, code)
		}
		oneLine(t, args[0], e, "shard")
	}
	if treeHash(t, dir) != before {
		t.Error("a refused command changed the shard's directory")
	}
	// Merged, its games count once.
	db := filepath.Join(dir, "m.db")
	mustTrain(t, "merge", "-db", db, shard)
	if st := stats(t, db); st.Games != 20 {
		t.Errorf("merged shard: %d games, want 20", st.Games)
	}
}

// TestStoringOff: -store=false plays in memory, prints the rate and
// creates no database; loop flags need -generations.
func TestStoringOff(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	out := mustTrain(t, "run", "-db", db, "-games", "100", "-workers", "2", "-store=false")
	if !strings.Contains(out, "storing off: 100 games, self-play ") {
		t.Errorf("summary: %s", out)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("storing off created the database")
	}
	_, e, code := train(t, "run", "-db", db, "-games", "5", "-holdout", "0.2")
	if code != 2 {
		t.Errorf("-holdout without -generations: exit %d", code)
	}
	oneLine(t, "-holdout", e, "only apply with -generations")
}
