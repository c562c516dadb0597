package policy

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"

	"gonum.org/v1/gonum/mat"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/internal/splitmix"
	"ocvist/patterns"
)

// Dataset is a training or test set: one row of features per sample, the
// class (1: the mover won, 0: the mover lost) and the sample's weight.
// Each stored (position, move) gives up to two samples: label 1 weighted by
// its share of wins and label 0 by its share of losses, wins/games and
// losses/games, where wins = (games+wsum)/2 and losses = (games−wsum)/2 (a
// draw counts half each way). So every (position, move) counts once, whatever
// its number of games: weighting by games let the few opening positions,
// seen in every game, outweigh the middle game, and the policy fitted that
// way played clearly worse (measured in matches against generation 0).
type Dataset struct {
	X       *mat.Dense
	Labels  []int
	Weights []float64
	Spec    Spec // how the features were computed (the current FeatureSet)
}

// NewDataset makes a dataset of rows x (one after another, as many columns
// as spec's feature set has), labels y and unit weights.
func NewDataset(x []float64, y []int, spec Spec) *Dataset {
	return &Dataset{X: matrix(x, len(names(spec.FeatureSet))), Labels: y, Spec: spec}
}

// Len is the number of samples.
func (d *Dataset) Len() int { return len(d.Labels) }

// Stat is the stored statistics of one move in one position (a row of the
// store's moves table): Move in the canonical frame of the position with
// key Key, played in Games games whose results for the mover (+1 win, −1
// loss, 0 draw) sum to WSum.
type Stat struct {
	Key   string
	Move  canon.Move
	WSum  int64
	Games int64
}

// DatasetConfig selects and splits training rows.
type DatasetConfig struct {
	Rule     gomoku.Rule
	Radius   int     // filter radius used to compute features (as in self-play); 0 means 2
	MinGames int64   // (key, move) rows with fewer games are left out
	Holdout  float64 // fraction of positions held out for testing (0..0.9)
	Seed     uint64  // chooses which positions are held out
}

// spec is the Spec of the features a dataset of c holds.
func (c DatasetConfig) spec() Spec {
	return Spec{FeatureSet: FeatureSet, Rule: c.Rule, Radius: cmp.Or(c.Radius, 2)}
}

// BuildDatasets reads (key, move) rows with scan (which calls fn with every
// row of at least minGames games, normally through the store's ScanMoves,
// rows of one key together) and computes each move's features on a board
// where the position is placed (see Placement). Positions are split between
// the training and the test set by a seeded hash of their key, so no
// position is in both.
func BuildDatasets(ctx context.Context, scan func(minGames int64, fn func(Stat) error) error, cfg DatasetConfig) (train, test *Dataset, err error) {
	spec := cfg.spec()
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	tr, te := rowBuilder{spec: spec}, rowBuilder{spec: spec}
	pl := newPlacer(spec)
	err = scan(cfg.MinGames, func(m Stat) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if m.Games <= 0 {
			return nil
		}
		row, err := pl.features(m.Key, m.Move)
		if err != nil {
			return err
		}
		dst := &tr
		if heldOut(m.Key, cfg.Seed, cfg.Holdout) {
			dst = &te
		}
		wins := float64(m.Games+m.WSum) / 2 / float64(m.Games)
		if wins > 0 {
			dst.add(row, 1, wins)
		}
		if losses := 1 - wins; losses > 0 {
			dst.add(row, 0, losses)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("policy: build datasets: %w", err)
	}
	return tr.dataset(), te.dataset(), nil
}

// heldOut reports whether the position with key goes to the test set: a
// seeded hash of the key below the holdout fraction.
func heldOut(key string, seed uint64, holdout float64) bool {
	h := fnv.New64a()
	h.Write([]byte(key))
	return float64(splitmix.Mix(h.Sum64()^seed)>>11)/(1<<53) < holdout
}

type rowBuilder struct {
	spec    Spec
	rows    []float64
	labels  []int
	weights []float64
}

func (b *rowBuilder) add(row []float64, label int, w float64) {
	b.rows = append(b.rows, row...)
	b.labels = append(b.labels, label)
	b.weights = append(b.weights, w)
}

func (b *rowBuilder) dataset() *Dataset {
	d := &Dataset{Labels: b.labels, Weights: b.weights, Spec: b.spec}
	if len(b.labels) > 0 {
		d.X = mat.NewDense(len(b.labels), len(names(b.spec.FeatureSet)), b.rows)
	}
	return d
}

// placer turns (key, move) rows into feature rows, reusing the position
// of the previous row when the key is the same (rows come sorted by key).
type placer struct {
	opts   gomoku.Options
	pos    *patterns.Position
	empty  *gomoku.Board
	key    string
	stones []canon.Stone
	w, h   int
	ox, oy int
	filter patterns.Result
	row    [NumFeatures]float64
}

func newPlacer(spec Spec) *placer {
	opts := spec.options()
	return &placer{opts: opts, pos: patterns.NewPosition(opts), empty: gomoku.New(opts), key: "\x00"}
}

func (pl *placer) features(key string, m canon.Move) ([]float64, error) {
	if key != pl.key {
		stones, w, h, err := canon.Decode(key)
		if err != nil {
			return nil, err
		}
		pl.key, pl.stones, pl.w, pl.h = key, stones, w, h
		pl.ox, pl.oy = -1, -1
	}
	ox, oy, ok := Placement(pl.w, pl.h, int(m.X), int(m.Y))
	if !ok {
		return nil, fmt.Errorf("position %q: move %v does not fit on the board with it", key, m)
	}
	if ox != pl.ox || oy != pl.oy {
		pl.pos.Reset(pl.empty)
		for _, s := range pl.stones {
			if err := pl.pos.Put(gomoku.Pt(s.X+ox, s.Y+oy), s.P); err != nil {
				return nil, fmt.Errorf("position %q: %w", key, err)
			}
		}
		pl.ox, pl.oy = ox, oy
		pl.filter = patterns.Filter(pl.pos, pl.pos.Board().ToMove(), patterns.Config{}, pl.filter)
	}
	q := gomoku.Pt(int(m.X)+ox, int(m.Y)+oy)
	if pl.pos.Board().At(q) != gomoku.Empty {
		return nil, fmt.Errorf("position %q: move %v is on a stone", key, m)
	}
	Features(pl.row[:], pl.pos, &pl.filter, q)
	return pl.row[:], nil
}

// Placement places a w×h box of stones on the board with its corner at
// (ox, oy), centred, then shifted as little as needed to bring the move
// (mx, my), relative to the box corner, on the board. ok is false if box
// and move cannot both fit.
func Placement(w, h, mx, my int) (ox, oy int, ok bool) {
	place := func(size, m int) (int, bool) {
		o := (gomoku.Size - size) / 2
		lo, hi := min(0, m), max(size-1, m)
		if hi-lo >= gomoku.Size {
			return 0, false
		}
		o = max(o, -lo)
		o = min(o, gomoku.Size-1-hi)
		return o, true
	}
	if w == 0 { // the empty board: its frame is the board itself
		return 0, 0, gomoku.OnBoard(mx, my)
	}
	ox, okx := place(w, mx)
	oy, oky := place(h, my)
	return ox, oy, okx && oky
}
