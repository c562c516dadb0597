package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// TestCopiedDatabase: a database copied the way people copy files (cp
// a.db b.db, the file alone, after the job) reports the stats and export
// of the original, merges another database, and passes train check.
func TestCopiedDatabase(t *testing.T) {
	dir := t.TempDir()
	a, b, other := filepath.Join(dir, "a.db"), filepath.Join(t.TempDir(), "b.db"), filepath.Join(dir, "other.db")
	mustTrain(t, "run", "-db", a, "-games", "300", "-workers", "2", "-seed", "5", "-shard-games", "50")
	mustTrain(t, "run", "-db", other, "-games", "100", "-workers", "1", "-seed", "6")
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sa, sb := stats(t, a), stats(t, b)
	if sa != sb || sa.Games != 300 {
		t.Fatalf("copy's stats %+v, original's %+v", sb, sa)
	}
	if mustTrain(t, "export", "-db", a) != mustTrain(t, "export", "-db", b) {
		t.Fatal("the copy exports other rows")
	}
	mustTrain(t, "merge", "-db", b, other)
	if s := stats(t, b); s.Games != 400 {
		t.Fatalf("copy after merging 100 games: %+v", s)
	}
	rootGames(t, b)
	if out := mustTrain(t, "check", "-db", b); !strings.Contains(out, "ok") {
		t.Fatalf("check of the copy: %s", out)
	}
}

// TestCheckRepair: a young run cut short inside the database makes stats,
// export, merge and run refuse with one line that says to run train
// check -repair; train check finds exactly that run (exit 1); -repair
// drops exactly its games and says so; afterwards every game left is
// counted once (the root position's games equal the database's), check is
// clean and stats, export, merge and run work.
func TestCheckRepair(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	mustTrain(t, "run", "-db", db, "-games", "300", "-workers", "1", "-seed", "8", "-shard-games", "100", "-prune-age", "1000000")
	before := stats(t, db)
	if before.YoungRuns < 2 {
		t.Fatalf("want several young runs: %+v", before)
	}
	raw, err := sql.Open("sqlite3", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	var run string
	var games int64
	if err := raw.QueryRow("SELECT name, games FROM young_runs ORDER BY born DESC LIMIT 1").Scan(&run, &games); err != nil {
		t.Fatal(err)
	}
	const cut = "UPDATE young_data SET data = substr(data, 1, length(data) / 2) WHERE run = ? AND off = (SELECT max(off) FROM young_data WHERE run = ?)"
	if _, err := raw.Exec(cut, run, run); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	other := filepath.Join(dir, "other.db")
	mustTrain(t, "run", "-db", other, "-games", "20", "-workers", "1", "-seed", "9")
	for _, args := range [][]string{
		{"stats", "-db", db},
		{"export", "-db", db},
		{"merge", "-db", other, db},
		{"merge", "-db", db, other},
		{"run", "-db", db, "-games", "10", "-workers", "1"},
	} {
		_, errOut, code := train(t, args...)
		if code != 1 {
			t.Errorf("%v on the damaged database: exit %d", args, code)
		}
		oneLine(t, strings.Join(args, " "), errOut, "run `train check -repair -db "+db+"`")
	}

	out, errOut, code := train(t, "check", "-db", db)
	if code != 1 || strings.Count(out, "\n") != 1 || !strings.Contains(out, "young run "+run+": ") {
		t.Fatalf("check: exit %d, stdout %q; want one line naming %s", code, out, run)
	}
	oneLine(t, "check", errOut, "1 problem(s); run `train check -repair")
	t.Logf("check: %s%s", out, errOut)

	out = mustTrain(t, "check", "-repair", "-db", db)
	t.Logf("check -repair:\n%s", out)
	m := regexp.MustCompile(`dropped (\d+) games, (\d+) positions`).FindStringSubmatch(out)
	if m == nil || m[1] != strconv.FormatInt(games, 10) || !strings.Contains(out, "dropped young run "+run+": ") {
		t.Fatalf("check -repair said %q; want %d games of %s dropped", out, games, run)
	}
	after := stats(t, db)
	if after.Games != before.Games-games || after.YoungRuns != before.YoungRuns-1 {
		t.Fatalf("after the repair %+v, before %+v; want %d games fewer", after, before, games)
	}
	rootGames(t, db)
	if out := mustTrain(t, "check", "-db", db); !strings.Contains(out, "ok") {
		t.Fatalf("check after the repair: %s", out)
	}
	mustTrain(t, "export", "-db", db, "-o", filepath.Join(dir, "a.csv"))
	mustTrain(t, "merge", "-db", db, other)
	mustTrain(t, "run", "-db", db, "-games", "30", "-workers", "1", "-seed", "10")
	if s := stats(t, db); s.Games != after.Games+50 {
		t.Fatalf("after merging 20 and playing 30 games: %+v", s)
	}
	rootGames(t, db)
}
