package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Merge adds the sealed run file at path (a worker's shard or a sealed
// export) exactly once; see PG.
func (p *PG) Merge(ctx context.Context, path string) (MergeResult, error) {
	res, err := p.merge(ctx, path)
	return res, p.wrap("merge "+path+" into", err)
}

func (p *PG) merge(ctx context.Context, path string) (MergeResult, error) {
	r, err := openRun(path)
	if err != nil {
		return MergeResult{}, err
	}
	defer r.close()
	if r.h.kind == kindYoung {
		return MergeResult{}, fmt.Errorf("%w: a young run of a database: merge the database itself", ErrNotOcvist)
	}
	if err := compatible(p.cfg, header{cfg: r.h.cfg}); err != nil {
		return MergeResult{}, err
	}
	// A shard merged before (by this or another coordinator) is skipped
	// without reading it; a race on it is settled by the ledger row below.
	if seal, err := p.mergedSeal(ctx, r.h.id); err != nil || seal != "" {
		if err == nil {
			err = p.sameSeal(r.h.id, seal, verifySeal(path))
		}
		return MergeResult{ShardID: r.h.id, AlreadyMerged: err == nil}, err
	}
	if r.h.kind == kindTeacher {
		return p.mergeTeacher(ctx, r, path)
	}
	err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error { return p.mergeTx(ctx, tx, r, path) })
	if errors.Is(err, errAlready) {
		return MergeResult{ShardID: r.h.id, AlreadyMerged: true}, nil
	}
	return MergeResult{ShardID: r.h.id, Games: r.foot.games, Moves: r.foot.rows, Positions: r.foot.positions}, err
}

// mergeTeacher merges a teacher shard in one transaction: the ledger row
// first (the first coordinator to write it wins a race on the shard; the
// other waits for its commit and rolls back), then its games, streamed
// from the file as it is checked (COPY into a temporary table) and
// inserted in (gen, game) order, a game stored before left as it is (a
// duplicate). Locks are taken in that fixed order: concurrent feeders of
// one generation never deadlock.
func (p *PG) mergeTeacher(ctx context.Context, r *runReader, path string) (MergeResult, error) {
	res := MergeResult{ShardID: r.h.id}
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO merged_shards (shard_id, path, games, seal, merged_at, kind)
			VALUES ($1, $2, 0, '', $3, $4) ON CONFLICT (shard_id) DO NOTHING`, r.h.id, path, now(), ledgerTeacher)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return p.already(ctx, tx, r.h.id, verifySeal(path))
		}
		if _, err := tx.Exec(ctx, "CREATE TEMP TABLE incoming_games (LIKE teacher_games) ON COMMIT DROP"); err != nil {
			return err
		}
		cols := []string{"gen", "game", "book", "winner", "moves", "teacher", "plies"}
		var row teacherRow
		src := pgx.CopyFromFunc(func() ([]any, error) {
			g, err := r.nextTeacher()
			if err != nil || g == nil {
				return nil, err
			}
			row = rowOf(g)
			return []any{int32(row.gen), int32(row.game), int16(row.book), int16(row.winner), row.moves, row.teacher, row.plies}, nil
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
		_, err = tx.Exec(ctx, "UPDATE merged_shards SET games = $2, seal = $3 WHERE shard_id = $1", r.h.id, r.foot.games, r.seal())
		return err
	})
	if errors.Is(err, errAlready) {
		return MergeResult{ShardID: r.h.id, AlreadyMerged: true}, nil
	}
	if err != nil {
		return MergeResult{ShardID: r.h.id}, err
	}
	return res, nil
}

// mergeTx appends the run's rows to young as a new young run (COPY,
// streamed from the file as it is checked), then writes the ledger rows
// (the first coordinator to write one wins a race on a shard; the other
// waits for its commit and rolls back) and last the totals, the one row
// every merge updates, held only until the commit. Row locks are taken
// in a fixed order (ledger ids sorted, then totals): no deadlock.
func (p *PG) mergeTx(ctx context.Context, tx pgx.Tx, r *runReader, path string) error {
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
	t := r.foot.totals
	_, err := tx.Exec(ctx, `WITH t AS (UPDATE totals SET games = games + $1, black_wins = black_wins + $2,
		white_wins = white_wins + $3, draws = draws + $4 WHERE id = 1 RETURNING games)
		INSERT INTO young_runs (run, born, shard_id, rows) SELECT $5, games, $6, $7 FROM t`,
		t.games, t.black, t.white, t.draws, run, r.h.id, r.foot.rows)
	return err
}

// ledger records the run and the sources it contains (a sealed export's
// ledger), in id order.
func (p *PG) ledger(ctx context.Context, tx pgx.Tx, r *runReader, path string) error {
	seal := r.seal()
	tag, err := tx.Exec(ctx, `INSERT INTO merged_shards (shard_id, path, games, seal, merged_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (shard_id) DO NOTHING`, r.h.id, path, r.foot.games, seal, now())
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return p.already(ctx, tx, r.h.id, seal)
	}
	inner := slices.SortedFunc(slices.Values(r.ledger), func(a, b ledgerEntry) int { return strings.Compare(a.id, b.id) })
	for _, e := range inner {
		tag, err := tx.Exec(ctx, `INSERT INTO merged_shards (shard_id, path, games, seal, via, merged_at)
			VALUES ($1, '', $2, $3, $4, $5) ON CONFLICT (shard_id) DO NOTHING`, e.id, e.games, e.seal, r.h.id, now())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: the source contains shard %s, which is already merged here", ErrOverlap, e.id)
		}
	}
	return nil
}

var errAlready = errors.New("already merged")

// mergedSeal returns the ledger's seal of a source, or "" if it is not
// merged here.
func (p *PG) mergedSeal(ctx context.Context, id string) (string, error) {
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
	_, _, _, seal, err := verifyRun(path)
	if err != nil {
		return ""
	}
	return seal
}

// sameSeal tells a source merged before in the same state (nil) from one
// that changed since (ErrOverlap).
func (p *PG) sameSeal(id, old, seal string) error {
	if old == seal {
		return nil
	}
	return fmt.Errorf("%w: %s was merged here before in another state (%s, now %s)", ErrOverlap, id, old, seal)
}

// already is sameSeal inside a merge that lost the race for the ledger
// row: errAlready when the states agree.
func (p *PG) already(ctx context.Context, tx pgx.Tx, id, seal string) error {
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
	r        *runReader
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
	pos, err := c.r.next()
	if err != nil {
		return err
	}
	if pos == nil {
		c.finished = true
		c.buf = binary.BigEndian.AppendUint16(c.buf, 0xffff)
	}
	for i := 0; pos != nil && i < len(pos.moves); i++ {
		c.buf = appendYoungRow(c.buf, c.run, pos, &pos.moves[i])
	}
	c.pending = c.buf
	return nil
}

// appendYoungRow appends one tuple: 8 fields, each a length and the value
// in network byte order.
func appendYoungRow(b []byte, run int64, pos *position, m *moveRow) []byte {
	be := binary.BigEndian
	b = be.AppendUint16(b, 8)
	b = be.AppendUint64(be.AppendUint32(b, 8), uint64(run))
	b = be.AppendUint64(be.AppendUint32(b, 8), uint64(pos.id))
	b = append(be.AppendUint32(b, uint32(len(pos.enc))), pos.enc...)
	b = be.AppendUint16(be.AppendUint32(b, 2), uint16(int16(m.m.X)))
	b = be.AppendUint16(be.AppendUint32(b, 2), uint16(int16(m.m.Y)))
	b = be.AppendUint64(be.AppendUint32(b, 8), uint64(m.wsum))
	b = be.AppendUint64(be.AppendUint32(b, 8), uint64(m.games))
	bl := byte(0)
	if m.bl {
		bl = 1
	}
	return append(be.AppendUint32(b, 1), bl)
}
