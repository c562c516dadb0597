package sqlite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"ocvist/store"
	"ocvist/store/storetest"
)

// crashChildEnv makes the test binary a child that merges shards forever.
const crashChildEnv = "OCVIST_STORE_CRASH_CHILD"

const crashGamesPerShard = 50

// TestCrashChild is the child process of TestKill9DuringMerges; it does
// nothing in a normal run.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("child process of TestKill9DuringMerges")
	}
	d := mustOpen(t, path)
	dir := filepath.Join(filepath.Dir(path), "shards")
	b := storetest.MustBatch(t, storetest.RandomGames(77, crashGamesPerShard))
	for i := 0; ; i++ { // until the parent kills this process
		p, err := b.WriteShard(context.Background(), dir, storetest.Config, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Merge(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if i%7 == 6 {
			if _, err := d.Prune(context.Background(), store.PruneConfig{MinGames: 2, Age: 1 << 40}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestKill9DuringMerges kills a process merging and pruning with SIGKILL,
// wherever it is: the database passes its integrity check and holds a
// whole number of shards, row by row — no merge or prune half-done — and
// the dead writer's lock is gone.
func TestKill9DuringMerges(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "shards"), 0o755)
	path := filepath.Join(dir, "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute) // generous: CI runs beside other work
	for gamesIn(path) < 20*crashGamesPerShard {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("child merged too little in 5 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	d := mustOpen(t, path) // the writer lock died with the child
	if err := d.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Games%crashGamesPerShard != 0 {
		t.Fatalf("%d games: not a whole number of %d-game shards", s.Games, crashGamesPerShard)
	}
	ref := storetest.NewReference()
	for range s.Games / crashGamesPerShard {
		ref.Add(storetest.RandomGames(77, crashGamesPerShard))
	}
	ref.Check(t, d)
	t.Logf("killed after %d shards", s.Games/crashGamesPerShard)
}

// gamesIn reads the game count of path read-only, or 0.
func gamesIn(path string) int64 {
	d, err := OpenReadOnly(path)
	if err != nil {
		return 0
	}
	defer d.Close()
	s, err := d.Stats(context.Background())
	if err != nil {
		return 0
	}
	return s.Games
}
