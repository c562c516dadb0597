package postgres

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"

	"ocvist/canon"
	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"

	"github.com/jackc/pgx/v5"
)

// allMoves is the whole database as readers see it, like the SQLite
// store's k-way merge: the rows of moves and of the young runs, added up
// per (position, move); mature marks a position with rows in moves. %[1]s
// is a condition on both sides (or nothing).
const allMoves = `SELECT pid, key, mx, my, sum(wsum)::bigint AS wsum, sum(games)::bigint AS games,
	bool_or(bl) AS bl, bool_or(mature) AS mature FROM (
		SELECT pid, key, mx, my, wsum, games, blacklisted AS bl, TRUE AS mature FROM moves %[1]s
		UNION ALL SELECT pid, key, mx, my, wsum, games, bl, FALSE FROM young %[1]s) u
	GROUP BY pid, key, mx, my`

// readTx runs fn in a read-only transaction (one snapshot for a whole
// scan) with room to sort and hash in memory.
func (p *DB) readTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '128MB'"); err != nil {
			return err
		}
		return fn(tx)
	})
}

// Stats counts the database as DB.Stats does: positions and moves of
// moves and young together; Young counts the positions with no row in
// moves and fewer games than the prune threshold.
func (p *DB) Stats(ctx context.Context) (store.Stats, error) {
	s := store.Stats{Rule: p.cfg.Rule.String(), KeyVersion: p.cfg.KeyVersion, SchemaVersion: SchemaVersion, BoardSize: p.cfg.BoardSize}
	err := p.readTx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT t.games, t.black_wins, t.white_wins, t.draws,
			(SELECT count(*) FROM merged_shards), (SELECT count(*) FROM generations), (SELECT count(*) FROM blacklist),
			(SELECT count(*) FROM young_runs), pg_database_size(current_database()), (SELECT count(*) FROM teacher_games),
			count(q.*), coalesce(sum(q.n), 0), coalesce(sum(q.nbl), 0),
			count(q.*) FILTER (WHERE NOT q.mature AND q.g < coalesce((SELECT value::bigint FROM meta WHERE key = $1), $2))
			FROM totals t LEFT JOIN (SELECT count(*) AS n, count(*) FILTER (WHERE bl) AS nbl, bool_or(mature) AS mature,
				sum(games) AS g FROM (`+fmt.Sprintf(allMoves, "")+`) a GROUP BY pid, key) q ON TRUE
			WHERE t.id = 1 GROUP BY t.id`, meta.KeyPruneMin, store.DefaultPruneMinGames).Scan(
			&s.Games, &s.BlackWins, &s.WhiteWins, &s.Draws, &s.MergedShards, &s.Generations, &s.PrunedBlack,
			&s.YoungRuns, &s.FileBytes, &s.TeacherGames, &s.Positions, &s.Moves, &s.Blacklisted, &s.Young)
		if err != nil {
			return err
		}
		return tx.QueryRow(ctx, "SELECT count(*), coalesce(sum(games), 0) FROM merged_shards WHERE kind = $1", shard.LedgerTeacher).
			Scan(&s.TeacherShards, &s.TeacherShardGames)
	})
	s.Blacklisted += s.PrunedBlack
	return s, p.wrap("stats of", err)
}

// scanQuery lists move rows with their position's games, in position
// order (id, then key), moves sorted.
const scanQuery = `SELECT pid, key, mx, my, wsum, games, bl, pgames FROM (
	SELECT pid, key, mx, my, wsum, games, bl, sum(games) OVER (PARTITION BY pid, key) AS pgames
	FROM (` + allMoves + `) a) s WHERE games >= $1 ORDER BY pid, key, mx, my`

// scan calls fn with the rows of scanQuery, keys as text. The server
// orders a position id's keys by their encoding; the rare id shared by two
// keys is reordered here by the text, as the SQLite store orders them.
func (p *DB) scan(ctx context.Context, where string, minGames int64, fn func(store.MoveStat) error, args ...any) error {
	return p.readTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, fmt.Sprintf(scanQuery, where), append([]any{minGames}, args...)...)
		if err != nil {
			return err
		}
		g := idGroup{fn: fn}
		var m store.MoveStat
		var pid int64
		var enc []byte
		var mx, my int16
		_, err = pgx.ForEachRow(rows, []any{&pid, &enc, &mx, &my, &m.WSum, &m.Games, &m.Blacklisted, &m.PositionGames}, func() error {
			m.Move.X, m.Move.Y = int8(mx), int8(my)
			return g.add(pid, enc, m)
		})
		if err == nil {
			err = g.flush()
		}
		return err
	})
}

// idGroup holds the rows of one position id until the next id.
type idGroup struct {
	fn   func(store.MoveStat) error
	pid  int64
	rows []store.MoveStat
	keys int
	last []byte // the encoding of the last key
	name string // and its text
}

func (g *idGroup) add(pid int64, enc []byte, m store.MoveStat) error {
	if len(g.rows) > 0 && pid != g.pid {
		if err := g.flush(); err != nil {
			return err
		}
	}
	if len(g.rows) == 0 || !bytes.Equal(enc, g.last) {
		g.pid, g.last, g.keys = pid, append(g.last[:0], enc...), g.keys+1
		g.name = string(shard.DecodeKey(nil, enc))
	}
	m.Key = g.name
	g.rows = append(g.rows, m)
	return nil
}

func (g *idGroup) flush() error {
	if g.keys > 1 {
		slices.SortStableFunc(g.rows, func(a, b store.MoveStat) int { return strings.Compare(a.Key, b.Key) })
	}
	for _, m := range g.rows {
		if err := g.fn(m); err != nil {
			return err
		}
	}
	g.rows, g.keys = g.rows[:0], 0
	return nil
}

// ScanMoves calls fn with every move row of at least minGames games.
func (p *DB) ScanMoves(ctx context.Context, minGames int64, fn func(store.MoveStat) error) error {
	return p.wrap("scan", p.scan(ctx, "", minGames, fn))
}

// MoveStats returns the rows of one position.
func (p *DB) MoveStats(ctx context.Context, key string) ([]store.MoveStat, error) {
	var out []store.MoveStat
	enc := shard.AppendKey(nil, []byte(key))
	err := p.scan(ctx, "WHERE pid = $2 AND key = $3", 0, func(m store.MoveStat) error { out = append(out, m); return nil },
		canon.ID(key), enc)
	return out, p.wrap("read", err)
}

// Export writes every row as DB.Export does.
func (p *DB) Export(ctx context.Context, w io.Writer) error {
	cw := csv.NewWriter(w)
	err := cw.Write(strings.Split(store.ExportHeader, ","))
	rec := make([]string, 7)
	if err == nil {
		err = p.scan(ctx, "", 0, func(m store.MoveStat) error { return cw.Write(store.ExportRecord(rec, m)) })
	}
	if err == nil {
		cw.Flush()
		err = cw.Error()
	}
	return p.wrap("export", err)
}

// ExportRun is not offered by the PostgreSQL backend: its data stay on
// the server (export CSV, or merge the shards into a SQLite file too).
func (p *DB) ExportRun(context.Context, string) error {
	return fmt.Errorf("store: %s: sealed exports are made from SQLite databases only: %w", p.url, store.ErrInvalidConfig)
}

// Blacklist loads the blacklisted moves: of moves, of the young runs and
// of dropped positions.
func (p *DB) Blacklist(ctx context.Context) (store.Blacklist, error) {
	var es []store.BlacklistEntry
	err := p.readTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT pid, mx, my FROM moves WHERE blacklisted
			UNION ALL SELECT pid, mx, my FROM young WHERE bl UNION ALL SELECT pid, mx, my FROM blacklist`)
		if err != nil {
			return err
		}
		var e store.BlacklistEntry
		var mx, my int16
		_, err = pgx.ForEachRow(rows, []any{&e.ID, &mx, &my}, func() error {
			e.Move.X, e.Move.Y = int8(mx), int8(my)
			es = append(es, e)
			return nil
		})
		return err
	})
	return store.BlacklistOf(es), p.wrap("blacklist of", err)
}
