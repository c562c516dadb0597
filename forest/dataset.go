package forest

import (
	"context"
	"fmt"
	"hash/fnv"

	"gonum.org/v1/gonum/mat"

	"ocvist/canon"
	"ocvist/gomoku"
	"ocvist/internal/splitmix"
	"ocvist/patterns"
	"ocvist/store"
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
	Groups  []uint64 // hash of the position key of each sample
}

// Len is the number of samples.
func (d *Dataset) Len() int { return len(d.Labels) }

// DatasetConfig selects and splits training rows.
type DatasetConfig struct {
	Rule     gomoku.Rule
	Radius   int     // filter radius used to compute features (as in self-play)
	MinGames int64   // (key, move) rows with fewer games are left out
	Holdout  float64 // fraction of positions held out for testing (0..0.9)
	Seed     uint64  // chooses which positions are held out
}

// BuildDatasets reads (key, move) rows with scan (normally DB.ScanMoves)
// and computes each move's features on a board where the position is
// placed (see Placement). Positions are split between the training and the
// test set by a seeded hash of their key, so no position is in both.
func BuildDatasets(ctx context.Context, scan func(minGames int64, fn func(store.MoveStat) error) error, cfg DatasetConfig) (train, test *Dataset, err error) {
	var tr, te rowBuilder
	pl := newPlacer(cfg.Rule, cfg.Radius)
	err = scan(cfg.MinGames, func(m store.MoveStat) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if m.Games <= 0 {
			return nil
		}
		row, err := pl.features(m.Key, canon.Move{X: m.Move.X, Y: m.Move.Y})
		if err != nil {
			return err
		}
		g := groupOf(m.Key)
		dst := &tr
		if float64(splitmix.Mix(g^cfg.Seed)>>11)/(1<<53) < cfg.Holdout {
			dst = &te
		}
		wins := float64(m.Games+m.WSum) / 2 / float64(m.Games)
		losses := 1 - wins
		if wins > 0 {
			dst.add(row, 1, wins, g)
		}
		if losses > 0 {
			dst.add(row, 0, losses, g)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("forest: build datasets: %w", err)
	}
	return tr.dataset(), te.dataset(), nil
}

type rowBuilder struct {
	rows    []float64
	labels  []int
	weights []float64
	groups  []uint64
}

func (b *rowBuilder) add(row []float64, label int, w float64, g uint64) {
	b.rows = append(b.rows, row...)
	b.labels = append(b.labels, label)
	b.weights = append(b.weights, w)
	b.groups = append(b.groups, g)
}

func (b *rowBuilder) dataset() *Dataset {
	d := &Dataset{Labels: b.labels, Weights: b.weights, Groups: b.groups}
	if len(b.labels) > 0 {
		d.X = mat.NewDense(len(b.labels), NumFeatures, b.rows)
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

func newPlacer(rule gomoku.Rule, radius int) *placer {
	opts := gomoku.Options{Rule: rule, Radius: radius}
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

func groupOf(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}
