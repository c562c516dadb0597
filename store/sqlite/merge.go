package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"
	"ocvist/store/sqlite/internal/sqlerr"
	"ocvist/store/sqlite/internal/young"
)

// Merge adds the games of a sealed source to the database, exactly once:
// a sealed run file (a worker's shard or a sealed export) or another Ocvist
// database that no process is writing. A teacher shard (WriteTeacherShard)
// adds its games to the teacher games instead (MergeResult.TeacherGames;
// a game of a generation already stored stays, counted in Duplicates),
// with its ledger row in the same transaction. The source becomes one new young
// run, its bytes stored in the database: a run file as it is, copied as it
// is read once (checksum, order, counts), a database as a sealed export of
// its state, written and then read once. Reading it updates the writer's
// index, where a position that reaches the prune threshold (meta
// prune_min, set by Prune) with the games the young runs hold is marked
// promoted. So a merge costs the source, not the database. The run's bytes
// and its entry in young_runs, the totals and the ledger are one
// transaction.
//
// The ledger keeps every merged source's id and seal (a run's checksum and
// size, a database's state id) and the shards it contained. Merging the same
// source in the same state again changes nothing (AlreadyMerged). With
// nothing changed, Merge refuses: a source merged before in another state,
// such as a database that has grown or been pruned since, or one containing
// a shard already merged here (ErrOverlap: its games cannot be told apart);
// this database itself (ErrOverlap); an unsealed or temporary shard
// (ErrUnpublished); a database being written (ErrInUse); a file that is not
// Ocvist's (ErrNotOcvist); another configuration (ErrRuleMismatch,
// ErrKeyVersion, ErrBoardSize, ErrSchemaVersion); a damaged file
// (ErrCorrupt). The source is never modified. Guarded by BenchmarkMerge.
func (d *DB) Merge(ctx context.Context, path string) (store.MergeResult, error) {
	if err := d.writable("merge into"); err != nil {
		return store.MergeResult{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	res, err := d.merge(ctx, path)
	if err != nil {
		return store.MergeResult{}, fmt.Errorf("store: merge %q into %q: %w", path, d.path, err)
	}
	return res, nil
}

func (d *DB) merge(ctx context.Context, path string) (store.MergeResult, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return store.MergeResult{}, err
	}
	if shard.IsTempShard(abs) {
		return store.MergeResult{}, fmt.Errorf("%w: temporary name", store.ErrUnpublished)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return store.MergeResult{}, err
	}
	if fi.IsDir() {
		return store.MergeResult{}, fmt.Errorf("%w: is a directory", store.ErrNotOcvist)
	}
	if self, err := os.Stat(d.path); err == nil && os.SameFile(fi, self) {
		return store.MergeResult{}, fmt.Errorf("%w: source is the target itself", store.ErrOverlap)
	}
	if err := d.index(ctx); err != nil {
		return store.MergeResult{}, err
	}
	if shard.IsRunFile(abs) {
		return d.mergeRun(ctx, abs)
	}
	return d.mergeDB(ctx, abs)
}

// mergeRun merges a sealed run file: it is copied into the database as it
// is, as the merge reads it.
func (d *DB) mergeRun(ctx context.Context, abs string) (store.MergeResult, error) {
	r, err := shard.Open(abs)
	if err != nil {
		return store.MergeResult{}, err
	}
	h := r.Header
	r.Close()
	if h.Kind == shard.KindTeacher {
		if err := meta.Compatible(d.cfg, meta.Header{Config: h.Config}); err != nil {
			return store.MergeResult{}, err
		}
		return d.mergeTeacher(ctx, abs, h)
	}
	if h.Kind == shard.KindYoung {
		return store.MergeResult{}, fmt.Errorf("%w: a young run of a database: merge the database itself", store.ErrNotOcvist)
	}
	if err := meta.Compatible(d.cfg, meta.Header{Config: h.Config}); err != nil {
		return store.MergeResult{}, err
	}
	ms := mergeSource{id: h.ID, path: abs, open: func(ctx context.Context, tx *sql.Tx, name string) (*shard.Reader, func() error, error) {
		w := young.NewWriter(ctx, tx, name)
		r, finish, err := shard.OpenCopying(abs, w)
		if err != nil {
			return nil, nil, err
		}
		return r, func() error {
			if err := finish(); err != nil {
				return err
			}
			return w.Flush()
		}, nil
	}}
	ms.verify = func() (string, error) {
		_, _, _, seal, err := shard.Verify(abs)
		return seal, err
	}
	return d.commitMerge(ctx, ms)
}

// mergeDB merges another database, read-only, in its current state: a
// sealed export of it becomes the young run.
func (d *DB) mergeDB(ctx context.Context, abs string) (store.MergeResult, error) {
	_, h, err := inspect(abs, modeReadOnly, &d.cfg)
	if err != nil {
		return store.MergeResult{}, err
	}
	if h.ID == d.id {
		return store.MergeResult{}, fmt.Errorf("%w: source has this database's id %s", store.ErrOverlap, h.ID)
	}
	lock, err := lockReader(abs)
	if err != nil {
		return store.MergeResult{}, err
	}
	defer unlock(lock)
	src, err := openAbs(abs, nil, modeReadOnly)
	if err != nil {
		return store.MergeResult{}, err
	}
	defer src.Close()
	st, err := src.sealedState(ctx)
	if err != nil {
		return store.MergeResult{}, err
	}
	defer st.snap.close()
	seal := "state " + st.state
	ms := mergeSource{id: h.ID, path: abs, seal: seal, open: func(ctx context.Context, tx *sql.Tx, name string) (*shard.Reader, func() error, error) {
		w, err := young.Create(ctx, tx, name, src.exportHeader(st))
		if err == nil {
			err = src.writeExport(ctx, w, st)
		}
		if err != nil {
			return nil, nil, err
		}
		data, err := young.OpenData(ctx, tx, name, -1)
		if err != nil {
			return nil, nil, err
		}
		r, err := shard.NewReader(data, data.Size(), abs)
		return r, func() error { return nil }, err
	}}
	return d.commitMerge(ctx, ms)
}

// mergeSource is what commitMerge needs of a source.
type mergeSource struct {
	id, path string
	// seal is known before reading for a database; for a run it is its
	// checksum, read with the run.
	seal string
	// open starts the young run name, in tx, from the source and returns
	// a reader of its bytes; once that has been read through, finish
	// completes the run.
	open func(ctx context.Context, tx *sql.Tx, name string) (r *shard.Reader, finish func() error, err error)
	// verify reads a run through for its seal (a run already in the ledger).
	verify func() (string, error)
}

const (
	ledgerSeal = "SELECT seal FROM merged_shards WHERE shard_id = ?"
	ledgerAdd  = "INSERT INTO merged_shards (shard_id, path, games, merged_at, via, seal) VALUES (?, ?, ?, ?, ?, ?)"
	totalsAdd  = "UPDATE totals SET games = games + ?, black_wins = black_wins + ?, white_wins = white_wins + ?, draws = draws + ? WHERE id = 1"
)

// commitMerge checks the ledger, copies the source as a young run and
// adds it, in one transaction.
func (d *DB) commitMerge(ctx context.Context, ms mergeSource) (store.MergeResult, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return store.MergeResult{ShardID: ms.id}, err
	}
	defer tx.Rollback()
	switch again, err := mergedBefore(ctx, tx, ms); {
	case err != nil:
		return store.MergeResult{ShardID: ms.id}, err
	case again:
		return store.MergeResult{ShardID: ms.id, AlreadyMerged: true}, nil
	}
	name := young.Name("young", shard.NewID())
	r, finish, err := ms.open(ctx, tx, name)
	if err != nil {
		return store.MergeResult{ShardID: ms.id}, err
	}
	defer r.Close()
	return d.addYoung(ctx, tx, ms, name, r, finish)
}

// mergedBefore reports whether the source is in the ledger with the seal
// it has now: merging it again changes nothing. In the ledger with another
// seal, it is ErrOverlap. A run's seal is read here only when the ledger
// has its id, as reading it costs a pass over the file.
func mergedBefore(ctx context.Context, tx *sql.Tx, ms mergeSource) (bool, error) {
	var seal string
	switch err := tx.QueryRowContext(ctx, ledgerSeal, ms.id).Scan(&seal); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	}
	mine := ms.seal
	if mine == "" {
		var err error
		if mine, err = ms.verify(); err != nil {
			return false, err
		}
	}
	if seal == mine {
		return true, nil
	}
	return false, fmt.Errorf("%w: %s was merged here before in another state (%s, now %s): it has changed since (grown or pruned), and its new games cannot be told apart from those already merged; merge the shards it took in since instead",
		store.ErrOverlap, ms.id, seal, mine)
}

// addYoung reads the young run name through with r once (checksum,
// order, counts) into the next index, completes it (finish), records the
// merge and commits tx; only then does the index change. What it finds
// wrong is the source's fault, not damage of the database.
func (d *DB) addYoung(ctx context.Context, tx *sql.Tx, ms mergeSource, name string, r *shard.Reader, finish func() error) (store.MergeResult, error) {
	res := store.MergeResult{ShardID: ms.id}
	r.SkipKeys = true // the checksum covers them; counting needs ids only
	next, nPromoted, err := young.Count(ctx, d.idx, r, d.minGames)
	if err != nil {
		return res, err
	}
	if err := finish(); err != nil {
		return res, err
	}
	if ms.seal == "" {
		ms.seal = r.Seal()
	}
	if err := notContained(ctx, tx, r.Ledger); err != nil {
		return res, err
	}
	if err := recordYoung(ctx, tx, ms, name, r); err != nil {
		return res, err
	}
	if err := tx.Commit(); err != nil {
		return res, err
	}
	d.idx.Replace(next)
	res.Games, res.Moves, res.Positions = r.Footer.Counts.Games, r.Footer.Rows, r.Footer.Positions
	res.Promoted = nPromoted
	return res, nil
}

// notContained refuses a source that contains a shard already merged
// here (ErrOverlap): its games cannot be told apart from those merged.
func notContained(ctx context.Context, tx *sql.Tx, ledger []shard.LedgerEntry) error {
	for _, e := range ledger {
		var s string
		switch err := tx.QueryRowContext(ctx, ledgerSeal, e.ID).Scan(&s); {
		case err == nil:
			return fmt.Errorf("%w: the source contains shard %s, which is already merged here", store.ErrOverlap, e.ID)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	return nil
}

// recordYoung writes what a merge adds besides the run's bytes: the run in
// young_runs (born at the game count it brings the database to, with its
// source and results), its games in the totals, and the source with the
// shards it contains in the ledger.
func recordYoung(ctx context.Context, tx *sql.Tx, ms mergeSource, name string, r *shard.Reader) error {
	var games int64
	if err := tx.QueryRowContext(ctx, "SELECT games FROM totals WHERE id = 1").Scan(&games); err != nil {
		return err
	}
	t, foot := r.Footer.Counts, r.Footer
	run := young.Run{Name: name, Born: games + t.Games, Games: t.Games, Positions: foot.Positions, Rows: foot.Rows, Bytes: r.Size()}
	if err := young.Add(ctx, tx, run, ms.id, t); err != nil {
		return err
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{totalsAdd, []any{t.Games, t.Black, t.White, t.Draws}},
		{ledgerAdd, []any{ms.id, ms.path, t.Games, meta.Now(), "", ms.seal}},
	}
	for _, e := range r.Ledger {
		stmts = append(stmts, struct {
			q    string
			args []any
		}{ledgerAdd, []any{e.ID, "", e.Games, meta.Now(), ms.id, e.Seal}})
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
			return err
		}
	}
	return touch(ctx, tx)
}

// dbState is a read-only database's sealed state: what merging it adds.
type dbState struct {
	snap   *snapshot
	state  string
	totals shard.Counts
	ledger []shard.LedgerEntry
}

// sealedState opens a snapshot of d and reads its state id, totals and
// ledger. The caller closes st.snap.
func (d *DB) sealedState(ctx context.Context) (*dbState, error) {
	s, err := d.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	st := &dbState{snap: s}
	err = s.tx.QueryRowContext(ctx, "SELECT t.games, t.black_wins, t.white_wins, t.draws, m.value FROM totals t, meta m WHERE t.id = 1 AND m.key = ?", meta.KeyState).
		Scan(&st.totals.Games, &st.totals.Black, &st.totals.White, &st.totals.Draws, &st.state)
	if err != nil {
		s.close()
		return nil, sqlerr.Classify(err)
	}
	// Teacher shards stay out: an export carries statistics only.
	ledger := "SELECT shard_id, seal, games FROM merged_shards ORDER BY shard_id"
	if d.schema >= schemaTeacherShards {
		ledger = "SELECT shard_id, seal, games FROM merged_shards WHERE kind = '' ORDER BY shard_id"
	}
	rows, err := s.tx.QueryContext(ctx, ledger)
	if err != nil {
		s.close()
		return nil, sqlerr.Classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var e shard.LedgerEntry
		if err := rows.Scan(&e.ID, &e.Seal, &e.Games); err != nil {
			s.close()
			return nil, err
		}
		st.ledger = append(st.ledger, e)
	}
	if err := rows.Err(); err != nil {
		s.close()
		return nil, err
	}
	return st, nil
}

// exportHeader is the header of a sealed export of st (a state of d).
func (d *DB) exportHeader(st *dbState) shard.Header {
	return shard.Header{Kind: shard.KindExport, Config: d.cfg, ID: d.id, Meta: map[string]string{"state": st.state}}
}

// writeExport writes st (a state of d) as a sealed export run with w.
func (d *DB) writeExport(ctx context.Context, w *shard.Writer, st *dbState) error {
	err := func() error {
		for _, e := range st.ledger {
			if err := w.Ledger(e); err != nil {
				return err
			}
		}
		m, done, err := st.snap.merger(ctx, true)
		defer done()
		if err != nil {
			return err
		}
		return m.Each(func(p *shard.Merged) error {
			p.Born = 0 // ages start again in the target
			return w.Position(&p.Position)
		})
	}()
	if err != nil {
		w.Abort()
		return err
	}
	_, _, err = w.Seal(st.totals)
	return err
}

// ExportRun writes the database's current state as a sealed export: a run
// file that Merge accepts anywhere (another machine, another backend) and
// counts exactly once, with the ledger of the shards it contains. path must
// not exist.
func (d *DB) ExportRun(ctx context.Context, path string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	st, err := d.sealedState(ctx)
	if err == nil {
		var w *shard.Writer
		if w, err = shard.Create(path, d.exportHeader(st)); err == nil {
			err = d.writeExport(ctx, w, st)
		}
		st.snap.close()
	}
	if err != nil {
		return fmt.Errorf("store: export run of %q to %q: %w", d.path, path, err)
	}
	return nil
}

// SourceConfig reads the configuration of a merge source, a sealed run
// file or a database, without opening it for writing (e.g. to create a
// merge target like it).
func SourceConfig(path string) (store.Config, error) {
	if shard.IsRunFile(path) {
		r, err := shard.Open(path)
		if err != nil {
			return store.Config{}, fmt.Errorf("store: read %q: %w", path, err)
		}
		defer r.Close()
		return r.Header.Config, nil
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		var h meta.Header
		if _, h, err = inspect(abs, modeReadOnly, nil); err == nil {
			return h.Config, nil
		}
	}
	return store.Config{}, fmt.Errorf("store: read %q: %w", path, err)
}

// Merged reports whether the source with the given id (a shard's, or a
// database's db_id) is in the ledger, directly or inside another source.
func (d *DB) Merged(ctx context.Context, id string) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int
	if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM merged_shards WHERE shard_id = ?", id).Scan(&n); err != nil {
		return false, fmt.Errorf("store: read ledger of %q: %w", d.path, err)
	}
	return n > 0, nil
}
