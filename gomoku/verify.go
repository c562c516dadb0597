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
	if r.stones != b.stones {
		return fmt.Errorf("stone set differs")
	}
	var near [NumCells]bool // within the radius of a stone, cell by cell
	for _, q := range b.History() {
		for y := max(q.Y()-b.radius, 0); y <= min(q.Y()+b.radius, Size-1); y++ {
			for x := max(q.X()-b.radius, 0); x <= min(q.X()+b.radius, Size-1); x++ {
				near[Pt(x, y)] = true
			}
		}
	}
	cand := b.CandidateSet()
	for p := Point(0); p < NumCells; p++ {
		want := near[p] && b.cells[p] == Empty
		if cand.Has(p) != want || b.IsCandidate(p) != want {
			return fmt.Errorf("candidate bit of %v is wrong", p)
		}
	}
	return nil
}
