package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput: each case gives one error
// line, a non-zero exit, and leaves existing files byte-identical.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	mustTrain(t, "run", "-db", good, "-games", "30", "-workers", "1", "-seed", "1")
	std := filepath.Join(dir, "std.db")
	mustTrain(t, "run", "-db", std, "-games", "30", "-workers", "1", "-seed", "1", "-rule", "standard")
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("this is not a database\n"), 0o644)
	shard := filepath.Join(dir, "shard-cut.db")
	whole, _ := os.ReadFile(std)
	os.WriteFile(shard, whole[:len(whole)/2], 0o644)
	sealed := filepath.Join(dir, "good.run")
	mustTrain(t, "export", "-db", good, "-sealed", sealed)

	for _, tc := range []struct {
		name string
		args []string
		want string // a fragment of the error line
		code int
	}{
		{"NotSQLite", []string{"run", "-db", text, "-games", "5", "-workers", "1"}, "not an Ocvist database", 1},
		{"OtherRule", []string{"run", "-db", std, "-games", "5", "-workers", "1"}, "rule", 1},
		{"MergeOtherRule", []string{"merge", "-db", good, std}, "rule", 1},
		{"MergeTruncated", []string{"merge", "-db", good, shard}, "corrupt", 1},
		{"MergeText", []string{"merge", "-db", good, text}, "not an Ocvist database", 1},
		{"DirectoryAsDB", []string{"run", "-db", dir, "-games", "5"}, "is a directory", 2},
		{"StatsDirectory", []string{"stats", "-db", dir}, "", 1},
		{"StatsMissing", []string{"stats", "-db", filepath.Join(dir, "none.db")}, "no such file", 1},
		{"BadWorkers", []string{"run", "-db", good, "-games", "5", "-workers", "0"}, "-workers 0", 2},
		{"BadRule", []string{"run", "-db", good, "-games", "5", "-rule", "caro"}, "caro", 2},
		{"NegativeGames", []string{"run", "-db", good, "-games", "-3"}, "-games -3", 2},
		{"BadRadius", []string{"run", "-db", good, "-games", "5", "-radius", "9"}, "-radius 9", 2},
		{"UnknownFlag", []string{"run", "-db", good, "-bogus"}, "bogus", 2},
		{"NotANumber", []string{"run", "-db", good, "-games", "many"}, "many", 2},
		{"UnknownCommand", []string{"frobnicate"}, "unknown command", 2},
		{"PruneZero", []string{"prune", "-db", good, "-min", "0"}, "-min 0", 2},
		{"MergeNothing", []string{"merge", "-db", good}, "at least one", 2},
		{"WebNice", []string{"web", "-db", good, "-nice", "20"}, "train web: -nice 20: want 0 to 19", 2},
		{"WebAddr", []string{"web", "-db", good, "-addr", "localhost"}, `train web: -addr "localhost": want HOST:PORT`, 2},
		{"OddGateGames", []string{"run", "-db", good, "-games", "5", "-generations", "1", "-gate-games", "7"}, "-gate-games 7: want an even number", 2},
		{"ValueNoTarget", []string{"value", "-db", good, "-o", filepath.Join(dir, "v.ocf")}, "want 1 <= -from <= -to and -o", 2},
		{"ValueBadSet", []string{"value", "-db", good, "-to", "1", "-o", filepath.Join(dir, "v.ocf"), "-value-set", "4"}, "value feature set 4", 2},
		{"ValueBadTarget", []string{"value", "-db", good, "-to", "1", "-o", filepath.Join(dir, "v.ocf"), "-value-target", "1.5"}, "value target 1.5", 2},
		{"ValueBadTD", []string{"value", "-db", good, "-to", "1", "-o", filepath.Join(dir, "v.ocf"), "-value-td", "1"}, "value TD weight 1 out of range [0, 1) (-value-td)", 2},
		{"ValueNoGames", []string{"value", "-db", good, "-to", "1", "-o", filepath.Join(dir, "v.ocf")}, "no value rows", 1},
		{"RescoreFewNodes", []string{"value", "-db", good, "-to", "1", "-o", filepath.Join(dir, "v.ocf"), "-rescore-nodes", "50"}, "-rescore-nodes 50: want 0 or at least 100", 2},
		{"RescoreModelsAlone", []string{"value", "-db", good, "-to", "1", "-o", filepath.Join(dir, "v.ocf"), "-rescore-value", "v.ocf"}, "need -rescore-nodes", 2},
		{"RescoreNoModel", []string{"value", "-db", good, "-to", "1", "-o", filepath.Join(dir, "v.ocf"), "-rescore-nodes", "1000", "-rescore-policy", filepath.Join(dir, "none.ocf")}, "none.ocf", 1},
		{"RescoreRenjuValue", []string{"value", "-db", good, "-to", "1", "-o", filepath.Join(dir, "v.ocf"), "-rescore-nodes", "1000", "-rescore-value", "../../data/value-renju.ocf"}, "fitted for renju, not freestyle", 1},
		{"CheckText", []string{"check", "-db", text}, "not an Ocvist database", 1},
		{"CheckShard", []string{"check", "-db", sealed}, "a shard (run file), not a database", 1},
		{"CheckTruncatedFile", []string{"check", "-db", shard}, "corrupt", 1},
		{"CheckMissing", []string{"check", "-db", filepath.Join(dir, "none.db")}, "no such file", 1},
		{"CheckPostgres", []string{"check", "-db", "postgres://ocvist@localhost/ocvist"}, "SQLite database files only", 1},
		{"RepairText", []string{"check", "-repair", "-db", text}, "not an Ocvist database", 1},
		{"RepairShard", []string{"check", "-repair", "-db", sealed}, "a shard (run file), not a database", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string][32]byte{}
			for _, f := range []string{good, std, text, shard, sealed} {
				before[f] = fileHash(t, f)
			}
			_, errOut, code := train(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (%s)", code, tc.code, errOut)
			}
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "train: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one line starting \"train: \" containing %q", errOut, tc.want)
			}
			for f, h := range before {
				if fileHash(t, f) != h {
					t.Errorf("%s changed", filepath.Base(f))
				}
			}
		})
	}
	if got := stats(t, good).Games; got != 30 {
		t.Errorf("good database has %d games after the refusals, want 30", got)
	}
}

func TestHelp(t *testing.T) {
	for _, sub := range []string{"run", "merge", "prune", "conclude", "stats", "export", "fit", "loop", "report", "model", "check", "web"} {
		_, errOut, code := train(t, sub, "-h")
		if code != 0 || !strings.Contains(errOut, "Usage: train "+sub) || !strings.Contains(errOut, "-db") {
			t.Errorf("%s -h: exit %d\n%s", sub, code, errOut)
		}
		// A default is printed once, by the flag package.
		for _, line := range strings.Split(errOut, "\n") {
			if strings.Count(line, "default") > 1 {
				t.Errorf("%s -h prints a default twice: %q", sub, line)
			}
		}
		// Flags the text names exist.
		if strings.Contains(errOut, " -seed ") && sub == "fit" {
			t.Errorf("fit -h names -seed, which fit does not have")
		}
	}
	out, _, code := train(t, "help")
	if code != 0 || !strings.Contains(out, "merge") || strings.Contains(out, "worker") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
}
