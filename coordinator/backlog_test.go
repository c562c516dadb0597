package coordinator

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"4096": 4096, "0": 0, "1B": 1, "64KiB": 64 << 10, "500MiB": 500 << 20, "2GiB": 2 << 30,
		"1.5GiB": 3 << 29, "1GB": 1e9, "3 MB": 3e6, "1TiB": 1 << 40,
	} {
		var b ByteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "-1", "GiB", "2 GiBs", "NaN", "Inf", "1e30", "2XB"} {
		var b ByteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, b)
		}
	}
}

// gateJob is a job of n workers whose go-aheads are written to bufs,
// with the backlog bound given.
func gateJob(n int, bound ByteSize) (*job, []*bytes.Buffer, *bytes.Buffer) {
	log := &bytes.Buffer{}
	j := &job{cfg: Config{Backlog: bound}, log: log, shards: make(chan string, 100)}
	j.kind = selfPlay{j}
	var bufs []*bytes.Buffer
	for i := range n {
		b := &bytes.Buffer{}
		bufs = append(bufs, b)
		j.workers = append(j.workers, &worker{index: i, gate: b})
	}
	return j, bufs, log
}

// publish is worker i's "published" line for a shard of size bytes.
func publish(j *job, i int, size int64) {
	j.handle(event{w: j.workers[i], line: fmt.Sprintf("published s%d 10 %d", i, size)})
}

// merged is the merger's side of a merged shard of size bytes.
func merged(j *job, size int64) {
	j.st.backlogBytes.Add(-size)
	j.throttle()
}

// TestBacklogGate: under the bound every shard gets its go-ahead at once;
// a shard that reaches it holds its worker (one warning, however many
// holds), the others play on until their next shard; all go on when the
// merges have brought the backlog to half the bound, not before.
func TestBacklogGate(t *testing.T) {
	j, gates, log := gateJob(2, 100)
	goes := func() string {
		return fmt.Sprintf("%d %d", strings.Count(gates[0].String(), "go\n"), strings.Count(gates[1].String(), "go\n"))
	}
	steps := []struct {
		name string
		do   func()
		want string // go-aheads so far, worker 0 and 1
		held int
	}{
		{"w0 publishes 60", func() { publish(j, 0, 60) }, "1 0", 0},
		{"w1 publishes 60: at the bound", func() { publish(j, 1, 60) }, "1 0", 1},
		{"w0 publishes 30: held too", func() { publish(j, 0, 30) }, "1 0", 2},
		{"a merge leaves 90", func() { merged(j, 60) }, "1 0", 2},
		{"a merge leaves 30: under half", func() { merged(j, 60) }, "2 1", 0},
		{"w1 publishes 80: over again", func() { publish(j, 1, 80) }, "2 1", 1},
		{"the job stops: all go", func() { j.stopping = true; j.throttle() }, "2 2", 0},
		{"stopping: no more holds", func() { publish(j, 0, 500) }, "3 2", 0},
	}
	for _, s := range steps {
		s.do()
		if got := goes(); got != s.want || j.holding() != s.held {
			t.Fatalf("%s: go-aheads %s, %d held; want %s, %d", s.name, got, j.holding(), s.want, s.held)
		}
	}
	if n := strings.Count(log.String(), "warning:"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, log.String())
	}
	if j.pauses != 2 || !strings.HasPrefix(j.backlogSummary(), "backlog: workers were held 2 time(s)") {
		t.Errorf("pauses %d, summary %q; want 2", j.pauses, j.backlogSummary())
	}
}

// TestBacklogGateOff: -backlog 0 sends nothing and holds no one; a held
// worker that exits is no longer held.
func TestBacklogGateOff(t *testing.T) {
	j, gates, _ := gateJob(1, 0)
	publish(j, 0, 1<<40)
	if gates[0].Len() != 0 || j.holding() != 0 {
		t.Errorf("-backlog 0: wrote %q, %d held", gates[0].String(), j.holding())
	}
	j, _, _ = gateJob(1, 1)
	publish(j, 0, 10)
	j.exited(j.workers[0])
	if j.holding() != 0 || !j.workers[0].done {
		t.Errorf("an exited worker is still held")
	}
}

// TestBacklogBound: -backlog auto is 2 GiB, or half the free disk when
// that is less (at least 64 MiB); a size given is kept.
func TestBacklogBound(t *testing.T) {
	var b ByteSize
	if err := b.Set("auto"); err != nil || b != BacklogAuto || b.String() != "auto" {
		t.Fatalf("Set(auto) = %d (%s), %v", b, b.String(), err)
	}
	for _, c := range []struct {
		b          ByteSize
		free, want int64
	}{
		{BacklogAuto, 100 << 30, 2 << 30}, {BacklogAuto, 1 << 30, 512 << 20}, {BacklogAuto, 10 << 20, 64 << 20},
		{BacklogAuto, -1, 64 << 20}, {5 << 30, 1 << 30, 5 << 30}, {0, 1 << 30, 0},
	} {
		if got := backlogBound(c.b, c.free); int64(got) != c.want {
			t.Errorf("backlogBound(%d, %d) = %d, want %d", c.b, c.free, got, c.want)
		}
	}
}
