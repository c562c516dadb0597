package policy

import (
	"context"
	"fmt"

	"ocvist/gomoku"
	"ocvist/mlp"
	"ocvist/patterns"
)

// ValueFeatureSet3 is the value network's inputs (package mlp), seen from
// the side to move:
//
//   - sparse, the cells: for every empty cell where a stone of the mover
//     would make a shape in some direction, the cell's kind for the mover,
//     which is the multiset of the four shapes (NumCellKinds kinds; the
//     order of the directions does not matter), counted over the board;
//     likewise the opponent's kinds, in the next NumCellKinds columns.
//     A kind is what the cell's lines make together: a four and a three
//     (a winning double), a three and two twos (where a squeeze begins),
//     two twos crossing;
//   - sparse, the threats: one of NumThreatMasks columns, the mask of
//     which threats each side has (ThreatMask);
//   - dense: value feature set 2's columns.
//
// The network sums a learned vector per kind and threat mask, so a
// position costs a scan of the board and one vector a distinct kind
// (NetRow).
const ValueFeatureSet3 = 3

// ValueFeatureSet is the set the learning loop fits by default: the
// value network's.
const ValueFeatureSet = ValueFeatureSet3

// NumCellKinds is the number of cell kinds: multisets of four shapes of
// patterns.NumShapes, C(13, 4).
const NumCellKinds = 715

// threatBits is the number of bits of ThreatMask; NumThreatMasks = 2^that.
const (
	threatBits     = 12
	NumThreatMasks = 1 << threatBits
)

// Value feature set 3's sparse columns: the mover's cell kinds, the
// opponent's, the threat masks.
const (
	colOppKinds    = NumCellKinds
	colThreatMasks = 2 * NumCellKinds
	// NumValueNetSparse is the number of sparse columns of set 3.
	NumValueNetSparse = colThreatMasks + NumThreatMasks
)

// cellKind maps a cell's four shapes for a side, written as base-10
// digits (direction d's shape the digit d), to its kind, the index of the
// multiset of its digits: kind 0 is four Nones.
var cellKind [numCombos]uint16

// numCombos is the number of four-digit combinations; a shape is one
// digit.
const numCombos = 10000

const _ = uint(10 - patterns.NumShapes) // a shape is one decimal digit

func init() {
	var kind [10][10][10][10]uint16
	n := uint16(0)
	for a := range 10 {
		for b := a; b < 10; b++ {
			for c := b; c < 10; c++ {
				for d := c; d < 10; d++ {
					kind[a][b][c][d] = n
					n++
				}
			}
		}
	}
	for combo := range numCombos {
		s := [4]int{combo % 10, combo / 10 % 10, combo / 100 % 10, combo / 1000}
		for i := 1; i < 4; i++ { // sort the digits
			for j := i; j > 0 && s[j] < s[j-1]; j-- {
				s[j], s[j-1] = s[j-1], s[j]
			}
		}
		cellKind[combo] = kind[s[0]][s[1]][s[2]][s[3]]
	}
}

// ThreatMask is the bits of the threats each side has, for the mover me:
// bit 0 the opponent has a five-point (the mover must block), 1 the mover
// has one, 2 and 3 the mover and the opponent have a cell that makes two
// five-points (patterns.MakesWin), 4 and 5 a four-three point, 6 and 7 a
// double-threat point (patterns.MakesDouble), 8 and 9 a four point, 10
// and 11 a three point.
func ThreatMask(pos *patterns.Position, me gomoku.Player) int {
	opp := me.Other()
	m := 0
	for i, has := range [threatBits]bool{
		pos.Count(patterns.MakesFive, opp) > 0,
		pos.Count(patterns.MakesFive, me) > 0,
		pos.Count(patterns.MakesWin, me) > 0,
		pos.Count(patterns.MakesWin, opp) > 0,
		!pos.Set(patterns.MakesDouble, me).Intersect(pos.Set(patterns.MakesFour, me)).Empty(),
		!pos.Set(patterns.MakesDouble, opp).Intersect(pos.Set(patterns.MakesFour, opp)).Empty(),
		pos.Count(patterns.MakesDouble, me) > 0,
		pos.Count(patterns.MakesDouble, opp) > 0,
		pos.Count(patterns.MakesFour, me) > 0,
		pos.Count(patterns.MakesFour, opp) > 0,
		pos.Count(patterns.MakesThree, me) > 0,
		pos.Count(patterns.MakesThree, opp) > 0,
	} {
		if has {
			m |= 1 << i
		}
	}
	return m
}

// NetRow is one position's value feature set 3: its sparse columns with
// their counts and its dense inputs. Fill reuses its slices; a NetRow is
// one goroutine's.
type NetRow struct {
	Cols   []uint32
	Counts []float32
	Dense  [NumValueFeatures2]float32
	count  [colThreatMasks]uint16 // per kind column, while Fill scans
	f2     [NumValueFeatures2]float64
}

// Fill sets the row to pos's features for the side to move.
func (r *NetRow) Fill(pos *patterns.Position) {
	me := pos.Board().ToMove()
	r.Cols, r.Counts = r.Cols[:0], r.Counts[:0]
	r.scan(pos, me)
	for _, c := range r.Cols {
		r.Counts = append(r.Counts, float32(r.count[c]))
		r.count[c] = 0
	}
	r.Cols = append(r.Cols, uint32(colThreatMasks+ThreatMask(pos, me)))
	r.Counts = append(r.Counts, 1)
	ValueFeaturesOf(ValueFeatureSet2, r.f2[:], pos)
	for j, x := range r.f2 {
		r.Dense[j] = float32(x)
	}
}

// scan counts the cell kinds of the mover me and the opponent into
// r.count, listing each kind column once in r.Cols (in the order first
// met). Hot: every evaluation of the value network.
func (r *NetRow) scan(pos *patterns.Position, me gomoku.Player) {
	si, so := 8*(me-1), 8*(2-me) // the sides' bytes in a cell's word
	for q := range gomoku.Point(gomoku.NumCells) {
		c := pos.Codes(q)
		w := uint64(c[0][0]) | uint64(c[0][1])<<8 | uint64(c[1][0])<<16 | uint64(c[1][1])<<24 |
			uint64(c[2][0])<<32 | uint64(c[2][1])<<40 | uint64(c[3][0])<<48 | uint64(c[3][1])<<56
		if w == 0 {
			continue // a stone, or a cell where neither side makes a shape
		}
		if x := w >> si & sideBytes; x != 0 {
			k := kindOfWord(x)
			if r.count[k] == 0 {
				r.Cols = append(r.Cols, uint32(k))
			}
			r.count[k]++
		}
		if x := w >> so & sideBytes; x != 0 {
			k := colOppKinds + kindOfWord(x)
			if r.count[k] == 0 {
				r.Cols = append(r.Cols, uint32(k))
			}
			r.count[k]++
		}
	}
}

// sideBytes masks one side's four shapes in a cell's word (the bytes of
// directions 0 to 3, two bytes apart).
const sideBytes = 0x00ff00ff00ff00ff

// kindOfWord is the kind of one side's four shapes held in the bytes of
// x (masked by sideBytes): their combination d0 + 10·d1 + 100·d2 +
// 1000·d3, direction d's shape in bits 16d to 16d+7, is the top 16 bits
// of x·digitWeights, one multiplication for three. Every 16-bit field of
// the product sums shapes of at most 9 times weights of at most 1,000
// each, at most 9,999, so no field carries into the next
// (TestKindOfWord).
func kindOfWord(x uint64) uint16 { return cellKind[x*digitWeights>>48] }

// digitWeights weighs direction d's byte of a side's word (bit 16d) by
// 10^d in the product's top 16 bits.
const digitWeights = 1000 | 100<<16 | 10<<32 | 1<<48

// FitValueNet fits a value network of value feature set 3 on rows (each
// Fill's columns; targets the mover's chance to win) for rule.
func FitValueNet(ctx context.Context, rows *mlp.Rows, rule gomoku.Rule, cfg mlp.Config) (*ValueModel, error) {
	cfg.Meta = map[string]string{metaValueSet: fmt.Sprint(ValueFeatureSet3), metaRule: rule.String()}
	n, err := mlp.Fit(ctx, rows, cfg)
	if err != nil {
		return nil, err
	}
	return &ValueModel{Net: n, Rule: rule, Set: ValueFeatureSet3}, nil
}

// NewValueNetRows returns empty training rows of value feature set 3.
func NewValueNetRows() *mlp.Rows { return mlp.NewRows(NumValueNetSparse, NumValueFeatures2) }

// ValueFromNet makes a network a value model, refusing (ErrModel) one of
// other inputs.
func ValueFromNet(n *mlp.Model) (*ValueModel, error) {
	meta := n.Meta()
	rule, err := gomoku.ParseRule(meta[metaRule])
	switch {
	case err != nil || meta[metaValueSet] != fmt.Sprint(ValueFeatureSet3):
		return nil, fmt.Errorf("%w: not a value network of feature set %d (metadata %v)", ErrModel, ValueFeatureSet3, meta)
	case n.Sparse() != NumValueNetSparse || n.Dense() != NumValueFeatures2:
		return nil, fmt.Errorf("%w: a value network of %d sparse and %d dense inputs, not %d and %d",
			ErrModel, n.Sparse(), n.Dense(), NumValueNetSparse, NumValueFeatures2)
	}
	return &ValueModel{Net: n, Rule: rule, Set: ValueFeatureSet3}, nil
}

// netValue is a Valuer's evaluation of a value network: the position's
// row (Fill) added to the network's accumulator.
type netValue struct {
	acc *mlp.Acc
	row NetRow
}

func (v *netValue) value(pos *patterns.Position) float64 {
	r := &v.row
	r.Fill(pos)
	v.acc.Start(r.Dense[:])
	for j, c := range r.Cols {
		v.acc.Add(int(c), r.Counts[j])
	}
	return v.acc.Prob()
}
