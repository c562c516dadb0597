package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestLoopPolicySet: train loop refuses a policy feature set other than 2
// and 3 with one line naming the flag, before any work (no database made).
func TestLoopPolicySet(t *testing.T) {
	db := filepath.Join(t.TempDir(), "l.db")
	for _, set := range []string{"1", "4", "0"} {
		_, errOut, code := train(t, "loop", "-db", db, "-policy-set", set)
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], "policy feature set "+set+": want 2 or 3 (-policy-set)") {
			t.Errorf("-policy-set %s: exit %d, stderr %q; want 2 and one line", set, code, errOut)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a database was made: %v", err)
	}
}

// TestLoopGateWarning: a gate too small for its SPRT to decide is said at
// the start of train loop, in one line (here before the run fails on its
// -start file); the recipe's gates say nothing.
func TestLoopGateWarning(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := train(t, "loop", "-db", filepath.Join(dir, "l.db"), "-gate-games", "40", "-start", filepath.Join(dir, "none.ocf"))
	want := "train loop: -gate-games 40 leaves the gate's SPRT 20 pairs, under the 30 it needs to decide: each gate will be decided by its pair score's 95% interval (adopted unless below 50%); use -gate-games 60 or more for the SPRT"
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

// TestLoopGateFlags: the default gate is the non-regression gate (H0 20
// Elo weaker, H1 equal); -gate-elo above 0 alone asks for strength against
// H0 "equal"; -gate-elo0 given is kept, in either order; H0 not below H1
// is refused in one usage line. A strict gate too small for its SPRT is
// warned about with its own interval rule.
func TestLoopGateFlags(t *testing.T) {
	for _, tt := range []struct {
		args       []string
		elo0, elo1 float64
	}{
		{nil, -20, 0},
		{[]string{"-gate-elo", "20"}, 0, 20},
		{[]string{"-gate-elo", "20", "-gate-elo0", "-5"}, -5, 20},
		{[]string{"-gate-elo0", "-5", "-gate-elo", "20"}, -5, 20},
		{[]string{"-gate-elo", "-5"}, -20, -5},
		{[]string{"-gate-elo0", "-40"}, -40, 0},
	} {
		cfg := loop.DefaultConfig()
		fs := newFlags("loop", "", "", new(strings.Builder))
		registerLoopFlags(fs, &cfg)
		if err := parseNoArgs(fs, tt.args); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if err := completeLoopConfig(fs, &cfg, "freestyle", 1); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if cfg.Gate.Elo0 != tt.elo0 || cfg.Gate.Elo1 != tt.elo1 {
			t.Errorf("%v: gate H0 %v, H1 %v; want %v, %v", tt.args, cfg.Gate.Elo0, cfg.Gate.Elo1, tt.elo0, tt.elo1)
		}
	}
	db := filepath.Join(t.TempDir(), "l.db")
	_, errOut, code := train(t, "loop", "-db", db, "-gate-elo", "-30")
	if lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n"); code != 2 || len(lines) != 1 || lines[0] != "train: loop: the gate's H0, -20 Elo, must be below its H1, -30 Elo (-gate-elo0, -gate-elo)" {
		t.Errorf("-gate-elo -30: exit %d, stderr %q; want 2 and one line", code, errOut)
	}
	g := loop.Gate{MaxGames: 40, MinPairs: 30, Elo0: 0, Elo1: 20}
	if w := gateWarning(g); !strings.Contains(w, "(adopted when above 50%)") {
		t.Errorf("strict gate of 40 games: warning %q", w)
	}
}

// TestLoopLimit: the loop's first line says which generations it runs,
// -gens counted from where it resumes.
func TestLoopLimit(t *testing.T) {
	for _, c := range []struct {
		gens int
		d    time.Duration
		done int
		want string
	}{
		{4, 0, 0, "4 generations (1 to 4)"},
		{1, 0, 0, "1 generation (1)"},
		{10, 0, 5, "10 generations (6 to 15), resuming after generation 5"},
		{1, 0, 12, "1 generation (13), resuming after generation 12"},
		{10, 8 * time.Hour, 0, "10 generations (1 to 10) or 8h0m0s"},
		{math.MaxInt, 8 * time.Hour, 0, "for 8h0m0s from generation 1"},
		{math.MaxInt, time.Hour, 3, "for 1h0m0s from generation 4, resuming after generation 3"},
	} {
		if got := loopLimit(c.gens, c.d, c.done); got != c.want {
			t.Errorf("loopLimit(%d, %v, %d) = %q, want %q", c.gens, c.d, c.done, got, c.want)
		}
	}
}
