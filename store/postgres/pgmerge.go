package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"

	"github.com/jackc/pgx/v5"
)

// Merge adds the sealed run file at path (a worker's shard or a sealed
// export) exactly once; see DB.
func (p *DB) Merge(ctx context.Context, path string) (store.MergeResult, error) {
	res, err := p.merge(ctx, path)
	return res, p.wrap("merge "+path+" into", err)
}

func (p *DB) merge(ctx context.Context, path string) (store.MergeResult, error) {
	r, err := shard.Open(path)
	if err != nil {
		return store.MergeResult{}, err
	}
	defer r.Close()
	if r.Header.Kind == shard.KindYoung {
		return store.MergeResult{}, fmt.Errorf("%w: a young run of a database: merge the database itself", store.ErrNotOcvist)
	}
	if err := meta.Compatible(p.cfg, meta.Header{Config: r.Header.Config}); err != nil {
		return store.MergeResult{}, err
	}
	// A shard merged before (by this or another coordinator) is skipped
	// without reading it; a race on it is settled by the ledger row below.
	if seal, err := p.mergedSeal(ctx, r.Header.ID); err != nil || seal != "" {
		if err == nil {
			err = p.sameSeal(r.Header.ID, seal, verifySeal(path))
		}
		return store.MergeResult{ShardID: r.Header.ID, AlreadyMerged: err == nil}, err
	}
	if r.Header.Kind == shard.KindTeacher {
		return p.mergeTeacher(ctx, r, path)
	}
	err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error { return p.mergeTx(ctx, tx, r, path) })
	if errors.Is(err, errAlready) {
		return store.MergeResult{ShardID: r.Header.ID, AlreadyMerged: true}, nil
	}
	return store.MergeResult{ShardID: r.Header.ID, Games: r.Footer.Games, Moves: r.Footer.Rows, Positions: r.Footer.Positions}, err
}

// mergeTeacher merges a teacher shard in one transaction: the ledger row
// first (the first coordinator to write it wins a race on the shard; the
// other waits for its commit and rolls back), then its games, streamed
// from the file as it is checked (COPY into a temporary table) and
// inserted in (gen, game) order, a game stored before left as it is (a
// duplicate). Locks are taken in that fixed order: concurrent feeders of
// one generation never deadlock.
func (p *DB) mergeTeacher(ctx context.Context, r *shard.Reader, path string) (store.MergeResult, error) {
	res := store.MergeResult{ShardID: r.Header.ID}
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO merged_shards (shard_id, path, games, seal, merged_at, kind)
			VALUES ($1, $2, 0, '', $3, $4) ON CONFLICT (shard_id) DO NOTHING`, r.Header.ID, path, meta.Now(), shard.LedgerTeacher)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return p.already(ctx, tx, r.Header.ID, verifySeal(path))
		}
		if _, err := tx.Exec(ctx, "CREATE TEMP TABLE incoming_games (LIKE teacher_games) ON COMMIT DROP"); err != nil {
			return err
		}
		cols := []string{"gen", "game", "book", "winner", "moves", "teacher", "plies"}
		var row shard.TeacherRow
		src := pgx.CopyFromFunc(func() ([]any, error) {
			g, err := r.NextTeacher()
			if err != nil || g == nil {
				return nil, err
			}
			row = shard.RowOf(g)
			return []any{int32(row.Gen), int32(row.Game), int16(row.Book), int16(row.Winner), row.Moves, row.Teacher, row.Plies}, nil
		})
		n, err := tx.CopyFrom(ctx, pgx.Identifier{"incoming_games"}, cols, src)
		if err != nil {
			return err
		}
		tag, err = tx.Exec(ctx, "INSERT INTO teacher_games SELECT * FROM incoming_games ORDER BY gen, game ON CONFLICT DO NOTHING")
		if err != nil {
			return err
		}
		res.TeacherGames, res.Duplicates = tag.RowsAffected(), n-tag.RowsAffected()
		_, err = tx.Exec(ctx, "UPDATE merged_shards SET games = $2, seal = $3 WHERE shard_id = $1", r.Header.ID, r.Footer.Games, r.Seal())
		return err
	})
	if errors.Is(err, errAlready) {
		return store.MergeResult{ShardID: r.Header.ID, AlreadyMerged: true}, nil
	}
	if err != nil {
		return store.MergeResult{ShardID: r.Header.ID}, err
	}
	return res, nil
}

// mergeTx appends the run's rows to young as a new young run (COPY,
// streamed from the file as it is checked), then writes the ledger rows
// (the first coordinator to write one wins a race on a shard; the other
// waits for its commit and rolls back) and last the totals, the one row
// every merge updates, held only until the commit. Row locks are taken
// in a fixed order (ledger ids sorted, then totals): no deadlock.
func (p *DB) mergeTx(ctx context.Context, tx pgx.Tx, r *shard.Reader, path string) error {
	var run int64
	if err := tx.QueryRow(ctx, "SELECT nextval('young_run')").Scan(&run); err != nil {
		return err
	}
	src := &youngCopy{r: r, run: run}
	if _, err := tx.Conn().PgConn().CopyFrom(ctx, src, youngCopySQL); err != nil {
		return errors.Join(src.err, err)
	}
	if err := p.ledger(ctx, tx, r, path); err != nil {
		return err
	}
	t := r.Footer.Counts
	_, err := tx.Exec(ctx, `WITH t AS (UPDATE totals SET games = games + $1, black_wins = black_wins + $2,
		white_wins = white_wins + $3, draws = draws + $4 WHERE id = 1 RETURNING games)
		INSERT INTO young_runs (run, born, shard_id, rows) SELECT $5, games, $6, $7 FROM t`,
		t.Games, t.Black, t.White, t.Draws, run, r.Header.ID, r.Footer.Rows)
	return err
}

// ledger records the run and the sources it contains (a sealed export's
// ledger), in id order.
func (p *DB) ledger(ctx context.Context, tx pgx.Tx, r *shard.Reader, path string) error {
	seal := r.Seal()
	tag, err := tx.Exec(ctx, `INSERT INTO merged_shards (shard_id, path, games, seal, merged_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (shard_id) DO NOTHING`, r.Header.ID, path, r.Footer.Games, seal, meta.Now())
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return p.already(ctx, tx, r.Header.ID, seal)
	}
	inner := slices.SortedFunc(slices.Values(r.Ledger), func(a, b shard.LedgerEntry) int { return strings.Compare(a.ID, b.ID) })
	for _, e := range inner {
		tag, err := tx.Exec(ctx, `INSERT INTO merged_shards (shard_id, path, games, seal, via, merged_at)
			VALUES ($1, '', $2, $3, $4, $5) ON CONFLICT (shard_id) DO NOTHING`, e.ID, e.Games, e.Seal, r.Header.ID, meta.Now())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: the source contains shard %s, which is already merged here", store.ErrOverlap, e.ID)
		}
	}
	return nil
}

var errAlready = errors.New("already merged")

// mergedSeal returns the ledger's seal of a source, or "" if it is not
// merged here.
func (p *DB) mergedSeal(ctx context.Context, id string) (string, error) {
	var seal string
	err := p.pool.QueryRow(ctx, "SELECT seal FROM merged_shards WHERE shard_id = $1", id).Scan(&seal)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return seal, err
}

// verifySeal reads the run at path through and returns its seal ("" if
// it cannot be read).
func verifySeal(path string) string {
	_, _, _, seal, err := shard.Verify(path)
	if err != nil {
		return ""
	}
	return seal
}

// sameSeal tells a source merged before in the same state (nil) from one
// that changed since (ErrOverlap).
func (p *DB) sameSeal(id, old, seal string) error {
	if old == seal {
		return nil
	}
	return fmt.Errorf("%w: %s was merged here before in another state (%s, now %s)", store.ErrOverlap, id, old, seal)
}

// already is sameSeal inside a merge that lost the race for the ledger
// row: errAlready when the states agree.
func (p *DB) already(ctx context.Context, tx pgx.Tx, id, seal string) error {
	var old string
	if err := tx.QueryRow(ctx, "SELECT seal FROM merged_shards WHERE shard_id = $1", id).Scan(&old); err != nil {
		return err
	}
	if err := p.sameSeal(id, old, seal); err != nil {
		return err
	}
	return errAlready
}

const youngCopySQL = "COPY young (run, pid, key, mx, my, wsum, games, bl) FROM STDIN BINARY"

// youngCopy is an io.Reader of COPY's binary format over a run's rows:
// one row per move, the key in its run encoding (the bytes are passed
// through, never decoded). Writing the format here rather than through
// pgx.CopyFrom's []any rows halves the coordinator's CPU per row (no
// boxing, no type lookups). Guarded by BenchmarkPGMerge.
type youngCopy struct {
	r        *shard.Reader
	run      int64
	buf      []byte
	pending  []byte
	started  bool
	finished bool
	err      error
}

// Read fills b with whole rows; a row is written completely before it is
// handed out, so a failure of the run (ErrCorrupt) aborts the COPY.
func (c *youngCopy) Read(b []byte) (int, error) {
	for len(c.pending) == 0 {
		if c.finished {
			return 0, io.EOF
		}
		if err := c.fill(); err != nil {
			c.err = err
			return 0, err
		}
	}
	n := copy(b, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// fill encodes the next position's rows (or the header, or the trailer).
func (c *youngCopy) fill() error {
	c.buf = c.buf[:0]
	if !c.started {
		c.started = true
		c.buf = append(c.buf, "PGCOPY\n\xff\r\n\x00"...)
		c.buf = binary.BigEndian.AppendUint64(c.buf, 0) // flags, header extension
	}
	pos, err := c.r.Next()
	if err != nil {
		return err
	}
	if pos == nil {
		c.finished = true
		c.buf = binary.BigEndian.AppendUint16(c.buf, 0xffff)
	}
	for i := 0; pos != nil && i < len(pos.Moves); i++ {
		c.buf = appendYoungRow(c.buf, c.run, pos, &pos.Moves[i])
	}
	c.pending = c.buf
	return nil
}

// appendYoungRow appends one tuple: 8 fields, each a length and the value
// in network byte order.
func appendYoungRow(b []byte, run int64, pos *shard.Position, m *shard.MoveRow) []byte {
	be := binary.BigEndian
	b = be.AppendUint16(b, 8)
	b = be.AppendUint64(be.AppendUint32(b, 8), uint64(run))
	b = be.AppendUint64(be.AppendUint32(b, 8), uint64(pos.ID))
	enc := pos.Encoded()
	b = append(be.AppendUint32(b, uint32(len(enc))), enc...)
	b = be.AppendUint16(be.AppendUint32(b, 2), uint16(int16(m.Move.X)))
	b = be.AppendUint16(be.AppendUint32(b, 2), uint16(int16(m.Move.Y)))
	b = be.AppendUint64(be.AppendUint32(b, 8), uint64(m.WSum))
	b = be.AppendUint64(be.AppendUint32(b, 8), uint64(m.Games))
	bl := byte(0)
	if m.Blacklisted {
		bl = 1
	}
	return append(be.AppendUint32(b, 1), bl)
}
