package policy

import (
	"slices"

	"ocvist/gomoku"
	"ocvist/patterns"
)

// FeatureSet is the version of the move features below, the set the
// store's statistics are fitted on (train fit). A model file records the
// set it was fitted on, and a model of a set this build does not compute is
// refused (FromForest): changing a feature's meaning, order or number is a
// new set.
const FeatureSet = 1

// HistoryFeatureSet is feature set 2, the learning loop's (the search's
// prior, data/model.ocf, and the renju models'): set 1 and the
// distances to the last two moves, which teacher games record (keys of the
// statistics do not).
const HistoryFeatureSet = 2

// The features of a move, feature set 1. This table is the one place that
// documents them; Features computes them in this order. "Mover" is the side to move, who
// plays the move; "opponent" the other side. Shapes are patterns.Shape codes
// (0 none … 9 overline), an ordinal scale.
//
// The canonical key of a position records no move order, and training rows
// come from keys (DB.ScanMoves), so no feature may depend on the history:
// where one would want "distance to the last moves", the features give the
// distance to the nearest stone of each side and the threats on the board
// (which is what the last moves made). Distance to the edge and the number
// of candidates (radius candidates stop at the edge) are measured on the
// board the game is in; for training rows the position is placed with its
// box centred on the board (Placement), as it is in most real games.
var FeatureNames = [NumFeatures]string{
	"mover_shape_1", // the mover's shapes through the cell, strongest first (4 columns)
	"mover_shape_2",
	"mover_shape_3",
	"mover_shape_4",
	"block_shape_1", // the opponent's shapes through the cell, i.e. what the move blocks, strongest first
	"block_shape_2",
	"block_shape_3",
	"block_shape_4",
	"mover_fours",       // directions in which the move makes a four of any kind (or five)
	"mover_threes",      // directions in which it makes an open or broken three
	"block_fours",       // directions in which it takes an opponent's four-point
	"block_threes",      // directions in which it takes an opponent's three-point
	"filter_level",      // patterns.Level that produced the candidates
	"filter_attack",     // 1 if the candidates are the mover's threats, 0 if defence
	"candidates",        // number of candidates the filter left
	"own_near1",         // mover's stones within Chebyshev distance 1
	"opp_near1",         // opponent's stones within 1
	"own_near2",         // mover's stones within 2
	"opp_near2",         // opponent's stones within 2
	"own_near3",         // mover's stones within 3
	"opp_near3",         // opponent's stones within 3
	"edge_distance",     // cells to the nearest edge (0 on the edge)
	"own_distance",      // Chebyshev distance to the nearest own stone (15 if none)
	"opp_distance",      // Chebyshev distance to the nearest opponent stone (15 if none)
	"stones",            // stones on the board (game phase)
	"mover_black",       // 1 if the mover is Black
	"mover_four_points", // cells where the mover could make a four
	"opp_four_points",   // cells where the opponent could make a four
	"mover_three_points",
	"opp_three_points",
}

// NumFeatures is the number of feature columns of set 1.
const NumFeatures = 30

// HistoryFeatureNames are the columns of set 2: set 1's, then the
// Chebyshev distance from the move to the last move (the opponent's) and
// to the one before it (the mover's own), 15 where there is none.
var HistoryFeatureNames = [NumHistoryFeatures]string(append(FeatureNames[:NumFeatures:NumFeatures],
	"last_distance", "own_last_distance"))

// NumHistoryFeatures is the number of feature columns of set 2.
const NumHistoryFeatures = NumFeatures + 2

// ThreatFeatureSet is feature set 3, the learning loop's with -policy-set
// 3 (the shipped pure policy, data/forest.ocf): set 2's columns, then each
// side's threat cells before and after the move and the victories by
// continuous fours around it (ThreatFeatureNames). About 14 times set 2's
// cost a move (BenchmarkFeatureSets): the search keeps set 2 for its prior.
const ThreatFeatureSet = 3

// ThreatFeatureNames are the columns of set 3: set 2's; the cells of the
// classes the pattern filter keeps (win: a straight or double four; four;
// three; double: four-three or double three) of each side, before the
// move and after it; and the VCFs (patterns.VCF, VCFFeatureNodes nodes
// each): whether the move is the first of a VCF the mover has, whether
// the opponent, were it to move, has one, and whether it still has one
// after the move. Fitted on the same games, a pure policy gains 29 Elo by
// the cells and 64 more by the VCFs over set 2's (loop/TUNING.md, "The
// policy's threat features").
var ThreatFeatureNames = [NumThreatFeatures]string(append(HistoryFeatureNames[:NumHistoryFeatures:NumHistoryFeatures],
	"mover_win_points", "opp_win_points", "mover_double_points", "opp_double_points",
	"after_mover_win_points", "after_mover_four_points", "after_mover_three_points", "after_mover_double_points",
	"after_opp_win_points", "after_opp_four_points", "after_opp_three_points", "after_opp_double_points",
	"mover_vcf_first", "opp_vcf", "after_opp_vcf"))

// NumThreatFeatures is the number of feature columns of set 3.
const NumThreatFeatures = NumHistoryFeatures + 15

// MaxFeatures is the most columns of any feature set.
const MaxFeatures = NumThreatFeatures

// VCFFeatureNodes is the node budget of each VCF search of set 3's
// columns (a VCF it does not find within them counts as none).
const VCFFeatureNodes = 200

// Threats is what set 3 reads of a position once for all its moves (Read):
// the first move of the mover's VCF and whether the opponent has one. The
// zero value, and a Read for sets 1 and 2, holds nothing. Its buffers are
// reused: keep one where its owner lives (a Policy, a builder), and the
// features allocate nothing.
type Threats struct {
	moverFirst gomoku.Point // NoPoint: no VCF found
	oppVCF     bool
	set        bool
	oppLine    [2 * 64]gomoku.Point // the opponent's VCF, oppLen long
	oppLen     int
	line       [2 * 64]gomoku.Point // the VCF searches' lines
}

// Read searches pos (restored) for the VCFs that set's columns read, for
// the side to move and the other; for sets 1 and 2 it only clears t.
func (t *Threats) Read(set int, pos *patterns.Position) {
	t.moverFirst, t.oppVCF, t.set, t.oppLen = gomoku.NoPoint, false, false, 0
	if set != ThreatFeatureSet {
		return
	}
	me := pos.Board().ToMove()
	t.set = true
	lim := patterns.Limits{MaxNodes: VCFFeatureNodes, Line: t.line[:0]}
	if line, ok, _ := patterns.VCF(pos, me, lim); ok && len(line) > 0 {
		t.moverFirst = line[0]
	}
	line, ok, _ := patterns.VCF(pos, me.Other(), lim)
	t.oppVCF, t.oppLen = ok, copy(t.oppLine[:], line)
}

// names are the feature names of set (1 to 3), nil for another.
func names(set int) []string {
	switch set {
	case FeatureSet:
		return FeatureNames[:]
	case HistoryFeatureSet:
		return HistoryFeatureNames[:]
	case ThreatFeatureSet:
		return ThreatFeatureNames[:]
	}
	return nil
}

// NumFeaturesOf is the number of columns of feature set set (0 for a set
// this build does not compute).
func NumFeaturesOf(set int) int { return len(names(set)) }

// FeaturesOf writes the features of move q under feature set set (1 to 3)
// into dst, which must have as many elements as the set has columns. t is
// pos's Threats (Threats.Read(set, pos), once for all its moves: set 3
// reads it and uses its buffers; nil for sets 1 and 2). pos is restored.
func FeaturesOf(set int, dst []float64, pos *patterns.Position, f *patterns.Result, t *Threats, q gomoku.Point) {
	Features(dst[:NumFeatures], pos, f, q)
	if set == FeatureSet {
		return
	}
	h := pos.Board().History()
	dst[NumFeatures], dst[NumFeatures+1] = 15, 15
	if n := len(h); n >= 1 {
		dst[NumFeatures] = float64(h[n-1].Distance(q))
		if n >= 2 {
			dst[NumFeatures+1] = float64(h[n-2].Distance(q))
		}
	}
	if set == ThreatFeatureSet {
		if t == nil || !t.set {
			panic("policy: feature set 3 without its position's Threats")
		}
		threats(dst[NumHistoryFeatures:NumThreatFeatures], pos, t, q)
	}
}

// threats writes set 3's own columns of move q: the classes' cells of both
// sides before the move and after it, and the VCFs (q put for the mover
// and taken back: pos is as it was).
func threats(dst []float64, pos *patterns.Position, t *Threats, q gomoku.Point) {
	me := pos.Board().ToMove()
	opp := me.Other()
	dst[0] = float64(pos.Count(patterns.MakesWin, me))
	dst[1] = float64(pos.Count(patterns.MakesWin, opp))
	dst[2] = float64(pos.Count(patterns.MakesDouble, me))
	dst[3] = float64(pos.Count(patterns.MakesDouble, opp))
	dst[12], dst[13], dst[14] = b2f(q == t.moverFirst), b2f(t.oppVCF), 0
	if pos.PutUndo(q, me, func() {
		for i, side := range [2]gomoku.Player{me, opp} {
			for j, c := range [4]patterns.Class{patterns.MakesWin, patterns.MakesFour, patterns.MakesThree, patterns.MakesDouble} {
				dst[4+4*i+j] = float64(pos.Count(c, side))
			}
		}
		// Where the opponent has no VCF before the move it is taken to
		// have none after it: the mover's stone can only take the
		// opponent's fours away (under renju it may make a block
		// forbidden, which this leaves out).
		// Most moves leave the opponent's line as it was: it is played
		// again before a VCF is searched.
		if t.oppVCF {
			still := patterns.VCFHolds(pos, opp, t.oppLine[:t.oppLen])
			if !still {
				_, still, _ = patterns.VCF(pos, opp, patterns.Limits{MaxNodes: VCFFeatureNodes, Line: t.line[:0]})
			}
			dst[14] = b2f(still)
		}
	}) != nil {
		clear(dst[4:12])
	}
}

// Features writes the features of move q (an empty cell) for the side to
// move on pos into dst, which must have NumFeatures elements. f is the
// filter's result for this position and side (its Level, Attack and the
// number of Moves are features). It allocates nothing. Guarded by
// BenchmarkFeatures; kept in one piece, hot and the one place where the
// feature slots are numbered in order (model files depend on it).
func Features(dst []float64, pos *patterns.Position, f *patterns.Result, q gomoku.Point) {
	b := pos.Board()
	me := b.ToMove()
	opp := me.Other()
	sm, so := pos.Summary(q, me), pos.Summary(q, opp)
	own, their := sm.Shapes, so.Shapes
	slices.SortFunc(own[:], descending)
	slices.SortFunc(their[:], descending)
	for i := range 4 {
		dst[i] = float64(own[i])
		dst[4+i] = float64(their[i])
	}
	dst[8] = float64(sm.Fours + sm.Fives)
	dst[9] = float64(sm.Threes)
	dst[10] = float64(so.Fours + so.Fives)
	dst[11] = float64(so.Threes)
	dst[12] = float64(f.Level)
	dst[13] = b2f(f.Attack)
	dst[14] = float64(len(f.Moves))
	var near [4][2]int // by distance 1..3 (index 1..3), own and opponent
	ownDist, oppDist := 15, 15
	x, y := q.X(), q.Y()
	for dy := -3; dy <= 3; dy++ {
		for dx := -3; dx <= 3; dx++ {
			p := gomoku.Pt(x+dx, y+dy)
			if p == gomoku.NoPoint || b.At(p) == gomoku.Empty {
				continue
			}
			d := p.Distance(q)
			if b.At(p) == me {
				near[d][0]++
				ownDist = min(ownDist, d)
			} else {
				near[d][1]++
				oppDist = min(oppDist, d)
			}
		}
	}
	if ownDist == 15 || oppDist == 15 {
		od, pd := nearest(b, q, me)
		ownDist, oppDist = min(ownDist, od), min(oppDist, pd)
	}
	for d, k := 1, 15; d <= 3; d, k = d+1, k+2 {
		dst[k] = float64(near[d][0])
		dst[k+1] = float64(near[d][1])
	}
	// Cumulative counts: within 2 includes within 1, within 3 includes both.
	dst[17] += dst[15]
	dst[18] += dst[16]
	dst[19] += dst[17]
	dst[20] += dst[18]
	dst[21] = float64(min(x, y, gomoku.Size-1-x, gomoku.Size-1-y))
	dst[22] = float64(ownDist)
	dst[23] = float64(oppDist)
	dst[24] = float64(b.Stones())
	dst[25] = b2f(me == gomoku.Black)
	dst[26] = float64(pos.Count(patterns.MakesFour, me))
	dst[27] = float64(pos.Count(patterns.MakesFour, opp))
	dst[28] = float64(pos.Count(patterns.MakesThree, me))
	dst[29] = float64(pos.Count(patterns.MakesThree, opp))
}

// nearest scans the whole board for the nearest stone of me and of the
// other side (used only when none is within 3 cells).
func nearest(b *gomoku.Board, q gomoku.Point, me gomoku.Player) (own, opp int) {
	own, opp = 15, 15
	for _, p := range b.History() {
		d := p.Distance(q)
		if b.At(p) == me {
			own = min(own, d)
		} else {
			opp = min(opp, d)
		}
	}
	return own, opp
}

func descending(a, b patterns.Shape) int { return int(b) - int(a) }

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}
