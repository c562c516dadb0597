package sqlite

import (
	"context"
	"fmt"

	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"
)

// mergeTeacher merges the teacher shard at abs: its games go into
// teacher_games (a (Gen, Game) stored before is left as it is and counted
// as a duplicate), and the shard into the ledger, in one transaction. The
// run is read once, checked as it is read; nothing is committed unless
// its checksum and counts are right.
func (d *DB) mergeTeacher(ctx context.Context, abs string, h shard.Header) (store.MergeResult, error) {
	res := store.MergeResult{ShardID: h.ID}
	if d.schema < schemaTeacherShards {
		return res, fmt.Errorf("%w: the database has schema %d; teacher shards need %d (open it for writing once to migrate it)", store.ErrSchemaVersion, d.schema, schemaTeacherShards)
	}
	ms := mergeSource{id: h.ID, path: abs, verify: func() (string, error) {
		_, _, _, seal, err := shard.Verify(abs)
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
	r, err := shard.Open(abs)
	if err != nil {
		return res, err
	}
	defer r.Close()
	if res.TeacherGames, res.Duplicates, err = insertTeacher(ctx, tx, r.NextTeacher); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO merged_shards (shard_id, path, games, merged_at, via, seal, kind) VALUES (?, ?, ?, ?, '', ?, ?)",
		h.ID, abs, r.Footer.Games, meta.Now(), r.Seal(), shard.LedgerTeacher); err != nil {
		return res, err
	}
	if err := tx.Commit(); err != nil {
		return res, err
	}
	return res, nil
}
