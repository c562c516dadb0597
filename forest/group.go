package forest

import "math"

// Within-group metrics measure a ranking inside groups of rows, such as the
// candidate moves of one position: what a move policy must get right is
// the order of a position's moves, not how likely positions are to be won.

// GroupTop1 is the fraction of groups whose highest-scored row (the first
// of equals) is a positive one, over the groups that have exactly one
// positive row and at least one negative row. groups[i] names row i's
// group; rows of a group need not be adjacent. It returns NaN when no
// group counts, and panics if the lengths differ.
func GroupTop1(scores []float64, labels []bool, groups []int) float64 {
	hit, n := 0, 0
	for _, g := range groupRows(scores, labels, groups) {
		if g.pos != 1 || g.neg == 0 {
			continue
		}
		n++
		if labels[g.best] {
			hit++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(hit) / float64(n)
}

// GroupAUC is the mean over groups of the within-group AUC: the fraction
// of (positive, negative) row pairs of the group that the scores order
// correctly, ties counting one half. Groups without a positive or a
// negative row are skipped; NaN when none counts. It panics if the lengths
// differ.
func GroupAUC(scores []float64, labels []bool, groups []int) float64 {
	var sum float64
	n := 0
	for _, g := range groupRows(scores, labels, groups) {
		if g.pos == 0 || g.neg == 0 {
			continue
		}
		var right float64
		for _, i := range g.rows {
			if !labels[i] {
				continue
			}
			for _, j := range g.rows {
				switch {
				case labels[j]:
				case scores[i] > scores[j]:
					right++
				case scores[i] == scores[j]:
					right += 0.5
				}
			}
		}
		sum += right / float64(g.pos*g.neg)
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

type group struct {
	rows     []int
	pos, neg int
	best     int
}

// groupRows gathers the rows of each group, in order of first appearance.
func groupRows(scores []float64, labels []bool, groups []int) []*group {
	if len(scores) != len(labels) || len(scores) != len(groups) {
		panic("forest: group metric: slice length mismatch")
	}
	index := map[int]*group{}
	var out []*group
	for i, id := range groups {
		g := index[id]
		if g == nil {
			g = &group{best: i}
			index[id] = g
			out = append(out, g)
		}
		g.rows = append(g.rows, i)
		if labels[i] {
			g.pos++
		} else {
			g.neg++
		}
		if scores[i] > scores[g.best] {
			g.best = i
		}
	}
	return out
}
