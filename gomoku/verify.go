package gomoku

import "fmt"

// Verify rebuilds every derived structure of b from its cells and history
// and reports the first difference from the incremental one. It is slow and
// meant for tests and debugging.
func (b *Board) Verify() error {
	r := New(b.opts)
	for _, p := range b.History() {
		if b.cells[p] == Empty {
			return fmt.Errorf("history names empty cell %v", p)
		}
		r.set(p, b.cells[p])
	}
	if r.cells != b.cells {
		return fmt.Errorf("cells differ from history")
	}
	if r.lines != b.lines {
		return fmt.Errorf("line words differ")
	}
	if r.counts != b.counts || r.n != b.n || r.hash != b.hash {
		return fmt.Errorf("counts or hash differ")
	}
	for p := Point(0); p < NumCells; p++ {
		want := 0
		for _, q := range nearCells[b.radius][p] {
			if b.cells[q] != Empty {
				want++
			}
		}
		if int(b.near[p]) != want || r.near[p] != b.near[p] {
			return fmt.Errorf("near count of %v is %d, want %d", p, b.near[p], want)
		}
		if b.IsCandidate(p) != (want > 0 && b.cells[p] == Empty) {
			return fmt.Errorf("candidate bit of %v is wrong", p)
		}
	}
	return nil
}
