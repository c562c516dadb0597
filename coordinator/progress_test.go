package coordinator

import (
	"strings"
	"testing"
	"time"
)

// TestProgressLine: the ETA of a -duration run is the play time left plus
// the shards waiting now at the merge rate so far (a 30 s run said "eta
// 1m6s" after 7 s: it extrapolated the merging of every game still to be
// played from the first seconds); positions not counted yet show as "-",
// not 0; before the workers play, the line says they are starting.
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		name string
		s    progressState
		want string
	}{
		{"early", progressState{played: 7000, merged: 1000, total: 1000, backlog: 2, backlogGames: 1000, positions: -1,
			deadline: 30 * time.Second, elapsed: 7 * time.Second, dbBytes: 5 << 20, stored: true},
			"games 7000  1000 games/s  merged 1000 (database 1000)  backlog 2 shards 0 B  positions -  db 5.0 MiB  played 7s  eta 30s"},
		{"counted", progressState{played: 7000, merged: 7000, total: 9000, positions: 1234, deadline: 30 * time.Second,
			elapsed: 7 * time.Second, stored: true},
			"games 7000  1000 games/s  merged 7000 (database 9000)  backlog 0 shards 0 B  positions 1234  db 0 B  played 7s  eta 23s"},
		{"games", progressState{played: 500, target: 1000, elapsed: 5 * time.Second},
			"games 500  100 games/s  played 5s  eta 5s"},
		{"starting", progressState{starting: true, busy: "pruning"},
			"starting: the workers load the blacklist and the model; pruning"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestProgressNotTerminal: off a terminal, whole lines without carriage
// returns.
func TestProgressNotTerminal(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, time.Second)
	p.show(progressState{played: 1, elapsed: time.Second})
	p.end()
	if got := b.String(); got != "games 1  1 games/s  played 1s  eta -\n" {
		t.Errorf("%q", got)
	}
}
