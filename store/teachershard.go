package store

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"ocvist/gomoku"
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
func WriteTeacherShard(ctx context.Context, dir string, cfg Config, games []TeacherGame, meta map[string]string) (string, error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	if len(games) == 0 {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	order := make([]*TeacherGame, len(games))
	var t totals
	for i := range games {
		g := &games[i]
		if err := g.check(); err != nil {
			return "", fmt.Errorf("store: write teacher shard in %q: %w", dir, err)
		}
		order[i] = g
		t.add(resultTotals(winnerResult(g.Winner)))
	}
	slices.SortFunc(order, func(a, b *TeacherGame) int { return cmp.Or(cmp.Compare(a.Gen, b.Gen), cmp.Compare(a.Game, b.Game)) })
	id := newID()
	path := filepath.Join(dir, shardPrefix+id+runSuffix)
	w, err := createRun(path, runHeader{kind: kindTeacher, cfg: cfg, id: id, meta: meta})
	if err != nil {
		return "", fmt.Errorf("store: write teacher shard in %q: %w", dir, err)
	}
	for _, g := range order {
		if err := w.teacher(g); err != nil {
			w.abort()
			return "", fmt.Errorf("store: write teacher shard %q: %w: %w", path, ErrCorrupt, err)
		}
	}
	if _, _, err := w.seal(t); err != nil {
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
	Games []TeacherGame
}

// ReadTeacherShard reads the teacher shard at path through, checking it
// as Merge does, and returns its games.
func ReadTeacherShard(path string) (TeacherShardInfo, error) {
	r, err := openRun(path)
	if err != nil {
		return TeacherShardInfo{}, fmt.Errorf("store: read teacher shard %q: %w", path, err)
	}
	defer r.close()
	info := TeacherShardInfo{ID: r.h.id, Meta: r.h.meta}
	if r.h.kind != kindTeacher {
		return info, fmt.Errorf("store: read teacher shard %q: %w: a run of kind %q", path, ErrNotOcvist, r.h.kind)
	}
	for {
		g, err := r.nextTeacher()
		if err != nil {
			return info, fmt.Errorf("store: read teacher shard %q: %w", path, err)
		}
		if g == nil {
			info.Seal = r.seal()
			return info, nil
		}
		info.Games = append(info.Games, *g)
	}
}

// ledgerTeacher is the kind of a teacher shard in the merge ledger
// (merged_shards.kind): its games are teacher games, not statistics, so a
// sealed export, which carries statistics, leaves it out of its ledger.
const ledgerTeacher = "teacher"

// mergeTeacher merges the teacher shard at abs: its games go into
// teacher_games (a (Gen, Game) stored before is left as it is and counted
// as a duplicate), and the shard into the ledger, in one transaction. The
// run is read once, checked as it is read; nothing is committed unless
// its checksum and counts are right.
func (d *DB) mergeTeacher(ctx context.Context, abs string, h runHeader) (MergeResult, error) {
	res := MergeResult{ShardID: h.id}
	if d.schema < schemaTeacherShards {
		return res, fmt.Errorf("%w: the database has schema %d; teacher shards need %d (open it for writing once to migrate it)", ErrSchemaVersion, d.schema, schemaTeacherShards)
	}
	ms := mergeSource{id: h.id, path: abs, verify: func() (string, error) {
		_, _, _, seal, err := verifyRun(abs)
		return seal, err
	}}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer tx.Rollback()
	switch again, err := mergedBefore(ctx, tx, ms); {
	case err != nil:
		return res, err
	case again:
		res.AlreadyMerged = true
		return res, nil
	}
	r, err := openRun(abs)
	if err != nil {
		return res, err
	}
	defer r.close()
	if res.TeacherGames, res.Duplicates, err = insertTeacher(ctx, tx, r.nextTeacher); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO merged_shards (shard_id, path, games, merged_at, via, seal, kind) VALUES (?, ?, ?, ?, '', ?, ?)",
		h.id, abs, r.foot.games, now(), r.seal(), ledgerTeacher); err != nil {
		return res, err
	}
	if err := tx.Commit(); err != nil {
		return res, err
	}
	return res, nil
}
