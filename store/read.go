package store

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// statsSQL reads every count in one statement, hence one consistent snapshot,
// and scans moves once (in key order: positions are its distinct keys).
const statsSQL = `SELECT t.games, t.black_wins, t.white_wins, t.draws, k.positions, k.moves, k.blacklisted,
	(SELECT count(*) FROM merged_shards),
	(SELECT count(*) FROM generations)
FROM totals t, (SELECT count(*) AS positions, coalesce(sum(n), 0) AS moves, coalesce(sum(bl), 0) AS blacklisted
	FROM (SELECT count(*) AS n, sum(blacklisted != 0) AS bl FROM moves GROUP BY key)) k
WHERE t.id = 1`

// Stats summarises the database. It scans the tables (count(*)), so it takes
// time proportional to their size.
func (d *DB) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Rule: d.cfg.Rule, KeyVersion: d.cfg.KeyVersion, SchemaVersion: SchemaVersion, BoardSize: d.cfg.BoardSize}
	err := d.db.QueryRowContext(ctx, statsSQL).Scan(&s.Games, &s.BlackWins, &s.WhiteWins, &s.Draws,
		&s.Positions, &s.Moves, &s.Blacklisted, &s.MergedShards, &s.Generations)
	if err != nil {
		return Stats{}, fmt.Errorf("store: stats %q: %w", d.path, classify(err))
	}
	for _, p := range []string{d.path, d.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			s.FileBytes += fi.Size()
		}
	}
	return s, nil
}

// moveStatSQL selects the move rows of whole positions in primary-key order
// (no sort); callers append a WHERE clause on key, or nothing.
const moveStatSQL = "SELECT key, mx, my, wsum, games, blacklisted FROM moves "

// ScanMoves calls fn with every (key, move) row with at least minGames
// games, in (key, mx, my) order, from one consistent snapshot (for building
// forest training sets). It stops at fn's first error and returns it. fn
// must not call methods of d that write (nor any method of a Shard, which has
// a single connection).
func (d *DB) ScanMoves(ctx context.Context, minGames int64, fn func(MoveStat) error) error {
	if err := d.scan(ctx, moveStatSQL+"ORDER BY key, mx, my", minGames, fn); err != nil {
		return fmt.Errorf("store: scan moves of %q: %w", d.path, err)
	}
	return nil
}

// MoveStats returns the statistics of every stored move of the position with
// key, in (mx, my) order; none for an unknown position.
func (d *DB) MoveStats(ctx context.Context, key string) ([]MoveStat, error) {
	var out []MoveStat
	err := d.scan(ctx, moveStatSQL+"WHERE key = ? ORDER BY key, mx, my", 0, func(m MoveStat) error { out = append(out, m); return nil }, key)
	if err != nil {
		return nil, fmt.Errorf("store: move stats of %q in %q: %w", key, d.path, err)
	}
	return out, nil
}

// scan runs q, which returns move rows grouped by key, and calls fn with
// those of at least minGames games, PositionGames set to the sum of the games
// of all of their position's rows (positions are derived from moves).
func (d *DB) scan(ctx context.Context, q string, minGames int64, fn func(MoveStat) error, args ...any) error {
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	var group []MoveStat // the rows of one key
	var games int64
	flush := func() error {
		for _, m := range group {
			if m.Games < minGames {
				continue
			}
			m.PositionGames = games
			if err := fn(m); err != nil {
				return err
			}
		}
		group, games = group[:0], 0
		return nil
	}
	for rows.Next() {
		var m MoveStat
		if err := rows.Scan(&m.Key, &m.Move.X, &m.Move.Y, &m.WSum, &m.Games, &m.Blacklisted); err != nil {
			return err
		}
		if len(group) > 0 && group[0].Key != m.Key {
			if err := flush(); err != nil {
				return err
			}
		}
		group = append(group, m)
		games += m.Games
	}
	if err := rows.Err(); err != nil {
		return classify(err)
	}
	return flush()
}

// Blacklist loads every blacklisted move into memory (for self-play).
func (d *DB) Blacklist(ctx context.Context) (Blacklist, error) {
	bl, err := d.blacklist(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: load blacklist of %q: %w", d.path, err)
	}
	return bl, nil
}

func (d *DB) blacklist(ctx context.Context) (Blacklist, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT key, mx, my FROM moves WHERE blacklisted != 0")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	bl := make(Blacklist)
	for rows.Next() {
		var km KeyMove
		if err := rows.Scan(&km.Key, &km.Move.X, &km.Move.Y); err != nil {
			return nil, err
		}
		bl[km] = struct{}{}
	}
	return bl, classify(rows.Err())
}

// ExportHeader is the first line of Export's output.
const ExportHeader = "key,mx,my,wsum,games,blacklisted,position_games"

// Export writes every move row as CSV (RFC 4180): the header ExportHeader,
// then one line per (key, move) sorted by key (bytewise), mx, my, with
// blacklisted as 0 or 1. The output depends only on the stored counts, so
// two databases with equal statistics export identical bytes.
func (d *DB) Export(ctx context.Context, w io.Writer) error {
	if err := d.export(ctx, w); err != nil {
		return fmt.Errorf("store: export %q: %w", d.path, err)
	}
	return nil
}

func (d *DB) export(ctx context.Context, w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(strings.Split(ExportHeader, ",")); err != nil {
		return err
	}
	rec := make([]string, 7)
	err := d.scan(ctx, moveStatSQL+"ORDER BY key, mx, my", 0, func(m MoveStat) error {
		rec[0] = m.Key
		rec[1] = strconv.Itoa(int(m.Move.X))
		rec[2] = strconv.Itoa(int(m.Move.Y))
		rec[3] = strconv.FormatInt(m.WSum, 10)
		rec[4] = strconv.FormatInt(m.Games, 10)
		rec[5] = "0"
		if m.Blacklisted {
			rec[5] = "1"
		}
		rec[6] = strconv.FormatInt(m.PositionGames, 10)
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// Generation is one learning-loop generation's record.
type Generation struct {
	Gen        int     // generation number, unique
	Games      int64   // self-play games of the generation
	Rows       int64   // training rows the forest was fit on
	FitSeconds float64 // forest fit wall time, seconds
	AUC        float64 // forest ROC AUC on held-out rows
	Score      float64 // match score against the previous generation, [0, 1]
	ScoreLow   float64 // 95% interval of Score
	ScoreHigh  float64
	Model      string // model file path
	Seed       int64  // seed of the generation
	Created    string // RFC 3339 UTC; set by AddGeneration when empty
}

// AddGeneration records a generation; an already recorded number gives an
// error wrapping ErrGenerationExists and changes nothing.
func (d *DB) AddGeneration(ctx context.Context, g Generation) error {
	if err := d.writable("add generation"); err != nil {
		return err
	}
	if g.Created == "" {
		g.Created = now()
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM generations WHERE gen = ?", g.Gen).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrGenerationExists
		}
		const ins = `INSERT INTO generations (gen, games, rows, fit_seconds, auc, score, score_low, score_high, model, seed, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		_, err := tx.ExecContext(ctx, ins, g.Gen, g.Games, g.Rows, g.FitSeconds, g.AUC, g.Score, g.ScoreLow, g.ScoreHigh, g.Model, g.Seed, g.Created)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: add generation %d to %q: %w", g.Gen, d.path, err)
	}
	return nil
}

// Generations returns the recorded generations in increasing order.
func (d *DB) Generations(ctx context.Context) ([]Generation, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT gen, games, rows, fit_seconds, auc, score, score_low, score_high, model, seed, created
		FROM generations ORDER BY gen`)
	if err != nil {
		return nil, fmt.Errorf("store: list generations of %q: %w", d.path, err)
	}
	defer rows.Close()
	var out []Generation
	for rows.Next() {
		var g Generation
		if err := rows.Scan(&g.Gen, &g.Games, &g.Rows, &g.FitSeconds, &g.AUC, &g.Score, &g.ScoreLow, &g.ScoreHigh, &g.Model, &g.Seed, &g.Created); err != nil {
			return nil, fmt.Errorf("store: list generations of %q: %w", d.path, err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list generations of %q: %w", d.path, err)
	}
	return out, nil
}
