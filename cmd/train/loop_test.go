package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"ocvist/store"
	"ocvist/store/sqlite"
)

// smallLoop are the flags of a small, quick learning loop on two workers.
func smallLoop(db string, games string) []string {
	return []string{"loop", "-db", db, "-gens", "1", "-games", games, "-block", "4", "-nodes", "300", "-openings", "4",
		"-gate-games", "8", "-anchor-games", "4", "-gate-nodes", "300", "-trees", "4", "-depth", "6", "-workers", "2", "-seed", "5"}
}

// teacherState reads a database's teacher games and stats.
func teacherState(t *testing.T, db string) ([]store.TeacherGame, store.Stats) {
	t.Helper()
	games, st, err := readTeacherState(db)
	if err != nil {
		t.Fatal(err)
	}
	return games, st
}

func readTeacherState(db string) ([]store.TeacherGame, store.Stats, error) {
	d, err := sqlite.OpenReadOnly(db)
	if err != nil {
		return nil, store.Stats{}, err
	}
	defer d.Close()
	var games []store.TeacherGame
	if err := d.TeacherGames(context.Background(), 0, 99, func(g store.TeacherGame) error { games = append(games, g); return nil }); err != nil {
		return nil, store.Stats{}, err
	}
	st, err := d.Stats(context.Background())
	return games, st, err
}

// TestTeacherGamesLine: stats counts the loop's games by the generations
// recorded, apart from those of a generation not recorded yet, and leaves
// "train run"'s generations (no details) out.
func TestTeacherGamesLine(t *testing.T) {
	loopGen := func(g int, games int64) store.Generation {
		return store.Generation{Gen: g, Games: games, Details: `{"gen":1}`}
	}
	runGen := store.Generation{Gen: 1, Games: 5000}
	for _, c := range []struct {
		total int64
		gens  []store.Generation
		want  string
	}{
		{0, nil, ""},
		{0, []store.Generation{runGen}, ""},
		{12, []store.Generation{loopGen(1, 12)}, "12 (the learning loop's, in 1 generation; not in games)"},
		{63534, []store.Generation{loopGen(1, 30000), loopGen(2, 30000)},
			"63534 (the learning loop's: 60000 in 2 generations, 3534 of a generation under way or stopped, not recorded yet; not in games)"},
		{3534, []store.Generation{runGen}, "3534 (the learning loop's, of a generation under way or stopped, not recorded yet; not in games)"},
		{100, []store.Generation{loopGen(1, 80), loopGen(2, 80)}, "100 (the learning loop's, over 2 generations; not in games)"},
	} {
		if got := teacherGamesLine(c.total, c.gens); got != c.want {
			t.Errorf("teacherGamesLine(%d, %d generations) = %q, want %q", c.total, len(c.gens), got, c.want)
		}
	}
}

// TestLoopStopResume: train loop's workers are processes whose teacher
// shards are merged as they come; stopped (SIGTERM) once two are in, it
// exits 0 saying so, and run again with the same flags it ends where an
// uninterrupted loop ends: the same games, each merged once, and the same
// model files. -duration stops it as a stop does.
func TestLoopStopResume(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.db")
	if _, errOut, code := train(t, smallLoop(ref, "80")...); code != 0 || !strings.Contains(errOut, "gen 1: teacher games") ||
		!strings.Contains(errOut, ", 1 generation (1), 2 workers, seed 5,") {
		t.Fatalf("loop: exit %d\n%s", code, errOut)
	}
	refGames, _ := teacherState(t, ref)
	// Run again, -gens counts from the generation recorded: the header
	// says so, and a limit reached at once adds nothing.
	out, errOut, code := train(t, append(smallLoop(ref, "80"), "-gens", "3", "-duration", "1ns")...)
	if games, st := teacherState(t, ref); code != 0 || !strings.Contains(errOut, ", 3 generations (2 to 4) or 1ns, resuming after generation 1, 2 workers,") ||
		!reflect.DeepEqual(games, refGames) || st.Generations != 1 {
		t.Fatalf("the loop run again: exit %d, %d games, %d generations\n%s\n%s", code, len(games), st.Generations, out, errOut)
	}

	db := filepath.Join(dir, "l.db")
	cmd := trainCmd(t, smallLoop(db, "80")...)
	var o, e syncBuffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		// The loop creates the database meanwhile: one not readable yet
		// is read again.
		if _, st, err := readTeacherState(db); err == nil && st.TeacherShards >= 2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no two teacher shards merged in two minutes:\n%s", e.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("stopped loop: %v\n%s\n%s", err, o.String(), e.String())
	}
	_, st := teacherState(t, db)
	if st.Generations == 0 && !strings.Contains(o.String(), "stopped: finished games are merged; run again to continue") {
		t.Errorf("a loop stopped before its record does not say so:\n%s", o.String())
	}
	// stats tells the stopped generation's games from a recorded one's.
	want := fmt.Sprintf("teacher games   %d (the learning loop's, of a generation under way or stopped, not recorded yet; not in games)\n", st.TeacherGames)
	if st.Generations == 1 {
		want = "teacher games   80 (the learning loop's, in 1 generation; not in games)\n"
	}
	if out := mustTrain(t, "stats", "-db", db); !strings.Contains(out, want) {
		t.Errorf("stats of the stopped loop (%d teacher games, %d generations), want %q:\n%s", st.TeacherGames, st.Generations, want, out)
	}
	if _, errOut, code := train(t, smallLoop(db, "80")...); code != 0 {
		t.Fatalf("resumed loop: exit %d\n%s", code, errOut)
	}
	games, st := teacherState(t, db)
	if !reflect.DeepEqual(games, refGames) || st.TeacherShardGames != 80 || st.Generations != 1 {
		t.Fatalf("after the resume: %d games (the reference's: %v), stats %+v", len(games), reflect.DeepEqual(games, refGames), st)
	}
	for _, role := range []string{"policy", "value"} {
		a, err1 := os.ReadFile(filepath.Join(dir, "ref.models", "gen-001."+role+".ocf"))
		b, err2 := os.ReadFile(filepath.Join(dir, "l.models", "gen-001."+role+".ocf"))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("generation 1's %s model differs from the uninterrupted loop's (%v, %v)", role, err1, err2)
		}
	}
	// train value refits generation 1's value model as the loop did.
	v := filepath.Join(dir, "v.ocf")
	out, errOut, code = train(t, "value", "-db", ref, "-to", "1", "-seed", "5", "-o", v)
	a, err1 := os.ReadFile(filepath.Join(dir, "ref.models", "gen-001.value.ocf"))
	b, err2 := os.ReadFile(v)
	if code != 0 || !strings.Contains(out, "value model "+v+": set 3, target 1.00") || err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("train value: exit %d, the loop's model %v (%v, %v)\n%s\n%s", code, bytes.Equal(a, b), err1, err2, out, errOut)
	}
	out, errOut, code = train(t, append(smallLoop(filepath.Join(dir, "d.db"), "80"), "-duration", "1ns")...)
	if code != 0 || !strings.Contains(out, "-duration 1ns reached: finished games are merged; run again to continue") {
		t.Errorf("-duration 1ns: exit %d\n%s\n%s", code, out, errOut)
	}
}
