package shard

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"ocvist/gomoku"
	"ocvist/store"
)

// WriteTeacherShard publishes games as a new teacher shard in dir: a
// sealed run file of format 2, kind 'T' (see run.go), with a fresh random
// id and the given free-form meta entries, written under a temporary name,
// synced and then made visible as shard-<id>.run, whose path it returns.
// Merge adds its games to a database's teacher games exactly once, like
// any shard. Games are written in (Gen, Game) order (games is not
// modified); a (Gen, Game) given twice, or a malformed game, is refused
// (ErrCorrupt) with nothing written. No games write nothing and return "".
// Like Batch.WriteShard it is never cancelled halfway: ctx is checked
// once, before anything is written.
func WriteTeacherShard(ctx context.Context, dir string, cfg store.Config, games []store.TeacherGame, meta map[string]string) (string, error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	if len(games) == 0 {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	order := make([]*store.TeacherGame, len(games))
	var t Counts
	for i := range games {
		g := &games[i]
		if err := g.Validate(); err != nil {
			return "", fmt.Errorf("store: write teacher shard in %q: %w", dir, err)
		}
		order[i] = g
		t.Add(ResultCounts(winnerResult(g.Winner)))
	}
	slices.SortFunc(order, func(a, b *store.TeacherGame) int {
		return cmp.Or(cmp.Compare(a.Gen, b.Gen), cmp.Compare(a.Game, b.Game))
	})
	id := NewID()
	path := filepath.Join(dir, shardPrefix+id+Suffix)
	w, err := Create(path, Header{Kind: KindTeacher, Config: cfg, ID: id, Meta: meta})
	if err != nil {
		return "", fmt.Errorf("store: write teacher shard in %q: %w", dir, err)
	}
	for _, g := range order {
		if err := w.Teacher(g); err != nil {
			w.Abort()
			return "", fmt.Errorf("store: write teacher shard %q: %w: %w", path, store.ErrCorrupt, err)
		}
	}
	if _, _, err := w.Seal(t); err != nil {
		return "", fmt.Errorf("store: write teacher shard: %w", err)
	}
	return path, nil
}

// winnerResult is a game's result as Game.Result gives it: +1 Black won,
// −1 White, 0 a draw.
func winnerResult(w gomoku.Player) int8 {
	switch w {
	case gomoku.Black:
		return 1
	case gomoku.White:
		return -1
	}
	return 0
}

// TeacherShardInfo describes a sealed teacher shard (see ReadTeacherShard).
type TeacherShardInfo struct {
	ID    string
	Seal  string
	Meta  map[string]string
	Games []store.TeacherGame
}

// ReadTeacherShard reads the teacher shard at path through, checking it
// as Merge does, and returns its games.
func ReadTeacherShard(path string) (TeacherShardInfo, error) {
	r, err := Open(path)
	if err != nil {
		return TeacherShardInfo{}, fmt.Errorf("store: read teacher shard %q: %w", path, err)
	}
	defer r.Close()
	info := TeacherShardInfo{ID: r.Header.ID, Meta: r.Header.Meta}
	if r.Header.Kind != KindTeacher {
		return info, fmt.Errorf("store: read teacher shard %q: %w: a run of kind %q", path, store.ErrNotOcvist, r.Header.Kind)
	}
	for {
		g, err := r.NextTeacher()
		if err != nil {
			return info, fmt.Errorf("store: read teacher shard %q: %w", path, err)
		}
		if g == nil {
			info.Seal = r.Seal()
			return info, nil
		}
		info.Games = append(info.Games, *g)
	}
}

// ledgerTeacher is the kind of a teacher shard in the merge ledger
// (merged_shards.kind): its games are teacher games, not statistics, so a
// sealed export, which carries statistics, leaves it out of its ledger.
const LedgerTeacher = "teacher"
