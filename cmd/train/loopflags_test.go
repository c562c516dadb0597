package main

import (
	"path/filepath"
	"strings"
	"testing"

	"ocvist/loop"
)

// TestLoopGameCounts: train loop refuses odd gate and anchor game counts
// (games are played in pairs) with one usage line, before any work.
func TestLoopGameCounts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "l.db")
	for _, args := range [][]string{{"-gate-games", "61"}, {"-anchor-games", "5"}, {"-gate-games", "-2"}, {"-anchor-games", "0"}} {
		_, errOut, code := train(t, append([]string{"loop", "-db", db}, args...)...)
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], "want even numbers, at least 2 (games are played in pairs") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, errOut)
		}
	}
}

// TestLoopGateWarning: a gate too small for its SPRT to decide is said at
// the start of train loop, in one line (here before the run fails on its
// -start file); the recipe's gates say nothing.
func TestLoopGateWarning(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := train(t, "loop", "-db", filepath.Join(dir, "l.db"), "-gate-games", "40", "-start", filepath.Join(dir, "none.ocf"))
	want := "train loop: -gate-games 40 leaves the gate's SPRT 20 pairs, under the 30 it needs to decide: each gate will be decided by its pair score's 95% interval (adopted when above 50%); use -gate-games 60 or more for the SPRT"
	if lines := strings.Split(errOut, "\n"); code != 1 || lines[0] != want {
		t.Errorf("exit %d, stderr %q; want 1 and first line %q", code, errOut, want)
	}
	for _, games := range []int{60, 600, 800} {
		g := loop.DefaultConfig().Gate
		g.MaxGames = games
		if w := gateWarning(g); w != "" {
			t.Errorf("-gate-games %d: warning %q", games, w)
		}
	}
}
