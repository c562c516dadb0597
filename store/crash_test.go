package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// crashChildEnv makes the test binary a child that writes batches forever.
const crashChildEnv = "OCVIST_STORE_CRASH_CHILD"

const crashGamesPerBatch = 50

// TestCrashChild is the child process of TestKill9DuringWrites; it does
// nothing in a normal run.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("child process of TestKill9DuringWrites")
	}
	d := mustOpen(t, path)
	b := mustBatch(t, randomGames(77, crashGamesPerBatch))
	for { // until the parent kills this process
		if err := d.Write(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKill9DuringWrites kills a process writing batches with SIGKILL: the
// database passes integrity_check and holds a whole number of batches, row by
// row — no batch half-written.
func TestKill9DuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		time.Sleep(50 * time.Millisecond)
		if n := gamesIn(path); n >= 5*crashGamesPerBatch {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("child wrote too little in 30 s")
		}
	}
	time.Sleep(time.Duration(1+os.Getpid()%40) * time.Millisecond) // land anywhere in a write
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	d := mustOpen(t, path)
	if err := d.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Games%crashGamesPerBatch != 0 {
		t.Fatalf("%d games: not a whole number of %d-game batches", s.Games, crashGamesPerBatch)
	}
	ref := newReference()
	for range s.Games / crashGamesPerBatch {
		ref.add(randomGames(77, crashGamesPerBatch))
	}
	ref.check(t, d)
	t.Logf("killed after %d batches", s.Games/crashGamesPerBatch)
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
