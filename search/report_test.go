package search

import (
	"context"
	"testing"
	"time"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// TestReports: a search with Limits.Report reports its best line after
// every finished iteration and every ReportEvery while one runs, with
// growing nodes, time and depth; the last report is the result's line.
// The search runs to a deadline, so the count of reports depends on the
// machine's speed: 600 ms at one every 50 ms is only asked for 3.
func TestReports(t *testing.T) {
	b := gomoku.New(gomoku.Options{})
	for _, m := range []string{"h8", "i9", "g7"} {
		q, err := gomoku.ParsePoint(m)
		if err != nil {
			t.Fatal(err)
		}
		must(t, b.Play(q))
	}
	var reps []Result
	lim := Limits{Deadline: time.Now().Add(600 * time.Millisecond), ReportEvery: 50 * time.Millisecond,
		Report: func(r Result) { reps = append(reps, r) }}
	res, err := New(DefaultConfig()).Search(context.Background(), patterns.FromBoard(b), lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) < 3 {
		t.Fatalf("%d reports in a 600 ms search reporting every 50 ms", len(reps))
	}
	var depths []int
	for i, r := range reps {
		depths = append(depths, r.Depth)
		if !r.Move.Valid() || len(r.PV) == 0 || r.PV[0] != r.Move {
			t.Errorf("report %d: move %v, pv %v", i, r.Move, r.PV)
		}
		if i > 0 && (r.Nodes < reps[i-1].Nodes || r.Elapsed < reps[i-1].Elapsed || r.Depth < reps[i-1].Depth) {
			t.Errorf("report %d goes back: nodes %d → %d, elapsed %v → %v, depth %d → %d", i,
				reps[i-1].Nodes, r.Nodes, reps[i-1].Elapsed, r.Elapsed, reps[i-1].Depth, r.Depth)
		}
	}
	last := reps[len(reps)-1]
	if last.Move != res.Move && res.Depth == last.Depth {
		t.Errorf("the last report plays %v at depth %d, the result %v", last.Move, last.Depth, res.Move)
	}
	t.Logf("%d reports, depths %v; result depth %d, %d nodes", len(reps), depths, res.Depth, res.Nodes)
}
