package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MergeResult reports what Merge did.
type MergeResult struct {
	ShardID       string // the source's db_id
	AlreadyMerged bool   // the source was in the ledger: nothing changed
	Games         int64  // games added
	Moves         int64  // (key, move) rows read from the source and added
	Positions     int64  // distinct positions (keys) among the source's move rows
}

// Statements of a merge; the source is attached as schema "src". The WHERE
// true resolves SQLite's INSERT ... SELECT ... ON CONFLICT parsing ambiguity.
const (
	mergeMoves = "INSERT INTO main.moves " + moveCols +
		" SELECT key, mx, my, wsum, games, blacklisted FROM src.moves WHERE true" + moveConflict
	mergePositions = "SELECT count(*) FROM (SELECT key FROM src.moves GROUP BY key)"
	mergeTotals    = `UPDATE main.totals SET
		games = games + (SELECT games FROM src.totals),
		black_wins = black_wins + (SELECT black_wins FROM src.totals),
		white_wins = white_wins + (SELECT white_wins FROM src.totals),
		draws = draws + (SELECT draws FROM src.totals) WHERE id = 1`
	mergeOverlap = `SELECT shard_id FROM src.merged_shards
		WHERE shard_id = ? OR shard_id IN (SELECT shard_id FROM main.merged_shards) LIMIT 1`
	mergeLedger      = "INSERT INTO main.merged_shards (shard_id, path, games, merged_at, via) VALUES (?, ?, ?, ?, '')"
	mergeLedgerNests = `INSERT INTO main.merged_shards (shard_id, path, games, merged_at, via)
		SELECT shard_id, path, games, merged_at, ? FROM src.merged_shards`
)

// Merge adds the counts of another Ocvist database — normally a published
// shard, but any database of the same rule, key version, board size and
// schema version — exactly, in one transaction together with its entry in
// the merged-shards ledger. A source already in the ledger is skipped
// (AlreadyMerged, nothing changed). Otherwise, and with nothing changed, Merge
// refuses: a temporary or unpublished shard (ErrUnpublished); a file that is
// not an Ocvist database (ErrNotOcvist); another configuration
// (ErrRuleMismatch, ErrKeyVersion, ErrBoardSize, ErrSchemaVersion); a
// truncated or damaged file (ErrCorrupt); a source that is this database or
// contains a shard already merged here (ErrOverlap). The source is read-only
// and never modified; sources' own ledgers are copied, so a shard merged into
// a merged database is never counted twice. Guarded by BenchmarkMerge.
func (d *DB) Merge(ctx context.Context, path string) (MergeResult, error) {
	if err := d.writable("merge into"); err != nil {
		return MergeResult{}, err
	}
	res, err := d.merge(ctx, path)
	if err != nil {
		return MergeResult{}, fmt.Errorf("store: merge shard %q into %q: %w", path, d.path, err)
	}
	return res, nil
}

func (d *DB) merge(ctx context.Context, path string) (MergeResult, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return MergeResult{}, err
	}
	if IsTempShard(abs) {
		return MergeResult{}, fmt.Errorf("%w: temporary name", ErrUnpublished)
	}
	h, err := d.checkSource(ctx, abs)
	if err != nil {
		return MergeResult{}, err
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return MergeResult{}, err
	}
	defer conn.Close()
	if err := tuneMerge(ctx, conn); err != nil {
		return MergeResult{}, err
	}
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS src", roURI(abs)); err != nil {
		return MergeResult{}, classify(err)
	}
	defer detach(conn)
	if err := quickCheck(ctx, conn, "src"); err != nil {
		return MergeResult{}, err
	}
	res, err := mergeAttached(ctx, conn, h, abs, d.id)
	return res, classify(err)
}

// Merge tuning of the main database's connection. Measured with
// BenchmarkMergeLarge (3M-row database, 150k-row shards): a 256 MiB cache
// merges ~80k rows/s against ~72k with 64 MiB; on a run's 8 GiB database
// 1 GiB gained only a few percent more, so the cap stays at 256 MiB. The
// source is already read in primary-key order (no ORDER BY needed); the WAL
// is checkpointed as usual, keeping it small.
var (
	mergeCacheKiB  int64 = 256 << 10 // page cache cap, KiB
	mergeMmapBytes int64 = 0         // memory-mapped I/O size
	mergeAutoCkpt  int64 = 1000      // wal_autocheckpoint, pages
)

// tuneMerge applies the merge tuning to conn. The settings stay on the pooled
// connection; the cache is a fixed cap, so memory stays bounded.
func tuneMerge(ctx context.Context, conn *sql.Conn) error {
	// Integers of this package, not user input: PRAGMA takes no parameters.
	for _, p := range []string{
		fmt.Sprintf("PRAGMA main.cache_size = -%d", mergeCacheKiB),
		fmt.Sprintf("PRAGMA main.mmap_size = %d", mergeMmapBytes),
		fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", mergeAutoCkpt),
	} {
		rows, err := conn.QueryContext(ctx, p)
		if err != nil {
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// checkSource reads the source's header read-only and checks it against d.
func (d *DB) checkSource(ctx context.Context, abs string) (header, error) {
	fi, err := os.Stat(abs)
	if err != nil {
		return header{}, err
	}
	if fi.IsDir() {
		return header{}, fmt.Errorf("%w: is a directory", ErrNotOcvist)
	}
	if self, err := os.Stat(d.path); err == nil && os.SameFile(fi, self) {
		return header{}, fmt.Errorf("%w: source is the target itself", ErrOverlap)
	}
	h, empty, err := probe(ctx, abs)
	switch {
	case err != nil:
		return h, err
	case empty:
		return h, fmt.Errorf("%w: empty database", ErrNotOcvist)
	case h.kind == kindShard && !h.published:
		return h, ErrUnpublished
	case h.schema != SchemaVersion:
		return h, fmt.Errorf("%w: source has schema %d, this program %d", ErrSchemaVersion, h.schema, SchemaVersion)
	case h.id == d.id:
		return h, fmt.Errorf("%w: source has this database's id %s", ErrOverlap, h.id)
	}
	return h, compatible(d.cfg, h)
}

// mergeAttached runs the merge transaction on conn, where the source is
// attached as "src".
func mergeAttached(ctx context.Context, conn *sql.Conn, h header, abs, selfID string) (MergeResult, error) {
	res := MergeResult{ShardID: h.id}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM main.merged_shards WHERE shard_id = ?", h.id).Scan(&n); err != nil {
		return res, err
	}
	if n > 0 {
		res.AlreadyMerged = true
		return res, nil // read-only so far: nothing to commit
	}
	var dup string
	switch err := tx.QueryRowContext(ctx, mergeOverlap, selfID).Scan(&dup); {
	case err == nil:
		return res, fmt.Errorf("%w: source already contains shard %s", ErrOverlap, dup)
	case !errors.Is(err, sql.ErrNoRows):
		return res, err
	}
	if res.Moves, err = execCountArgs(ctx, tx, mergeMoves); err != nil {
		return res, err
	}
	if err := tx.QueryRowContext(ctx, mergePositions).Scan(&res.Positions); err != nil {
		return res, err
	}
	if err := tx.QueryRowContext(ctx, "SELECT games FROM src.totals WHERE id = 1").Scan(&res.Games); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, mergeTotals); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, mergeLedger, h.id, abs, res.Games, now()); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, mergeLedgerNests, h.id); err != nil {
		return res, err
	}
	return res, tx.Commit()
}

// quickCheck runs PRAGMA quick_check on the given schema and wraps
// ErrCorrupt unless it reports "ok".
func quickCheck(ctx context.Context, q querier, schema string) error {
	// schema is a constant identifier of this package, not user input.
	return checkRows(ctx, q, "PRAGMA "+schema+".quick_check")
}

// checkRows runs an integrity pragma and turns anything but "ok" into
// ErrCorrupt with the first messages.
func checkRows(ctx context.Context, q querier, pragma string) error {
	rows, err := q.QueryContext(ctx, pragma)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return classify(err)
		}
		if m != "ok" && len(msgs) < 5 {
			msgs = append(msgs, m)
		}
	}
	if err := rows.Err(); err != nil {
		return classify(err)
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(msgs, "; "))
	}
	return nil
}

// detach detaches the source; if that fails the connection is discarded so
// that no pooled connection keeps it attached.
func detach(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), "DETACH DATABASE src"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}
