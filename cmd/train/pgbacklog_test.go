package main

import (
	"bufio"
	"io"
	"regexp"
	"strings"
	"testing"

	"ocvist/internal/pgtest"
)

// TestPostgresBacklogBound: with the server gone from the first merge on
// and -backlog 1B, the worker is held after its first shard (one warning
// line), so one shard at most ever waits; when the server is back (the
// test restores it once both warnings are out) the run goes on and every
// game is stored exactly once. Nothing here depends on timing: the cut
// follows the first COPY, the restore follows the coordinator's lines,
// and the bound is a handshake.
func TestPostgresBacklogBound(t *testing.T) {
	// The server goes away at the first merge (its COPY), and comes back
	// when the test restores it.
	u := pgtest.SchemaURL(t)
	proxy, pu := pgtest.NewProxy(t, u)
	proxy.CutAt("COPY young")
	dir := t.TempDir()
	cmd := trainCmd(t, "run", "-db", pu, "-workers", "1", "-games", "4000", "-shard-games", "1000",
		"-flush-every", "1h", "-backlog", "1B", "-seed", "5")
	cmd.Dir = dir
	var out, errOut syncBuffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitLines(io.TeeReader(stderr, &errOut), "workers pause after their next shard", "warning: store: merge")
	proxy.Restore()
	io.Copy(&errOut, stderr)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, out.String(), errOut.String())
	}
	if n := strings.Count(errOut.String(), "workers pause"); n != 1 {
		t.Errorf("%d pause warnings, want 1:\n%s", n, errOut.String())
	}
	for _, want := range []string{"(1 shards at most)", "games this run 4000:", "backlog: workers were held "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary without %q:\n%s", want, out.String())
		}
	}
	if st, _, code := trainIn(t, dir, "stats", "-db", u, "-json"); code != 0 || !regexp.MustCompile(`"games":\s*4000\b`).MatchString(st) {
		t.Errorf("stats after the run: exit %d\n%s", code, st)
	}
}

// waitLines reads r until it has seen a line containing each of wants (in
// any order) or r ends.
func waitLines(r io.Reader, wants ...string) {
	sc := bufio.NewScanner(r)
	for len(wants) > 0 && sc.Scan() {
		for i, w := range wants {
			if strings.Contains(sc.Text(), w) {
				wants = append(wants[:i], wants[i+1:]...)
				break
			}
		}
	}
}
