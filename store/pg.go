package store

import (
	"context"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"ocvist/gomoku"
)

// PG is the PostgreSQL backend of the store (DESIGN.md, "Many machines"):
// many coordinators on many machines merge their sealed shards into one
// server. Each merge is one transaction that writes the ledger row first
// (a shard merged by another coordinator, even one racing on it, is
// found there and skipped), upserts the shard's rows in key order (two
// coordinators never deadlock) through COPY into a temporary table, and
// adds the totals last (the one row every merge updates is held only
// until the commit). It has no young tier: Prune deletes the positions
// below the threshold at once (PruneConfig.Age does not apply), keeping
// their blacklisted moves. Its methods are safe for concurrent use.
type PG struct {
	pool *pgxpool.Pool
	url  string // with the password masked, for messages
	cfg  Config
	id   string
}

var _ Store = (*PG)(nil)

//go:embed pgmigrations/*.sql
var pgMigrationFS embed.FS

// PGSchemaVersion is the schema the PostgreSQL migrations build.
const PGSchemaVersion = 1

// IsURL reports whether a -db argument names a PostgreSQL server
// (postgres:// or postgresql://) rather than a SQLite file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// ErrServer: the PostgreSQL server cannot be reached or refused the
// connection (wrong address, password, database), or went away.
var ErrServer = errors.New("postgres server unavailable")

// OpenPG connects to the server at rawURL and opens its Ocvist store:
// it applies the embedded migrations (recorded in schema_migrations, under
// an advisory lock so that coordinators starting together migrate once),
// creates the meta of an empty database for want, and refuses one of
// another rule, key version, board size or schema (the errors of Open).
// It gives up after 10 seconds without a server (ErrServer).
func OpenPG(ctx context.Context, rawURL string, want Config) (*PG, error) {
	if err := want.Validate(); err != nil {
		return nil, err
	}
	return openPG(ctx, rawURL, want)
}

// OpenPGExisting opens the Ocvist store of the server at rawURL with the
// configuration it was created with; a database without one (never used
// by Ocvist) is refused with ErrNotOcvist.
func OpenPGExisting(ctx context.Context, rawURL string) (*PG, error) {
	return openPG(ctx, rawURL, Config{})
}

func openPG(ctx context.Context, rawURL string, want Config) (*PG, error) {
	p := &PG{url: redact(rawURL), cfg: want}
	pcfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", p.url, err)
	}
	pcfg.MaxConns = 4
	if p.pool, err = pgxpool.NewWithConfig(ctx, pcfg); err != nil {
		return nil, fmt.Errorf("store: %s: %w", p.url, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.pool.Ping(cctx); err != nil {
		p.pool.Close()
		return nil, fmt.Errorf("store: %s: %w: %v", p.url, ErrServer, err)
	}
	if err := p.setup(cctx); err != nil {
		p.pool.Close()
		return nil, fmt.Errorf("store: %s: %w", p.url, err)
	}
	return p, nil
}

// redact masks the password of a URL.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// setup migrates and checks or writes the meta, in one transaction under
// an advisory lock.
func (p *PG) setup(ctx context.Context) error {
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(208754432)"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`); err != nil {
			return err
		}
		var have int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&have); err != nil {
			return err
		}
		if have > PGSchemaVersion {
			return fmt.Errorf("%w: the database has schema %d, this program knows up to %d", ErrSchemaVersion, have, PGSchemaVersion)
		}
		if have == 0 {
			if err := foreignTables(ctx, tx); err != nil {
				return err
			}
		}
		if err := pgMigrate(ctx, tx, have); err != nil {
			return err
		}
		return p.checkMeta(ctx, tx)
	})
}

// foreignTables refuses a database that holds other tables than ours
// before the first migration (not an Ocvist database).
func foreignTables(ctx context.Context, tx pgx.Tx) error {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'`).Scan(&n)
	if err == nil && n > 0 {
		err = fmt.Errorf("%w: the database has %d tables of another program", ErrNotOcvist, n)
	}
	return err
}

func pgMigrate(ctx context.Context, tx pgx.Tx, have int) error {
	entries, err := fs.ReadDir(pgMigrationFS, "pgmigrations")
	if err != nil {
		return err
	}
	for i, e := range entries {
		if i+1 <= have {
			continue
		}
		sqlText, err := pgMigrationFS.ReadFile("pgmigrations/" + e.Name())
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, string(sqlText)); err != nil {
			return fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations VALUES ($1, $2, $3)", i+1, e.Name(), now()); err != nil {
			return err
		}
	}
	return nil
}

func (p *PG) checkMeta(ctx context.Context, tx pgx.Tx) error {
	m, err := pgMeta(ctx, tx)
	if err != nil {
		return err
	}
	if len(m) == 0 && p.cfg == (Config{}) {
		return fmt.Errorf("%w: the database holds no Ocvist store yet (train run or train merge creates one)", ErrNotOcvist)
	}
	if len(m) == 0 {
		m = map[string]string{
			metaSchemaVersion: strconv.Itoa(PGSchemaVersion), metaKeyVersion: strconv.Itoa(p.cfg.KeyVersion),
			metaRule: p.cfg.Rule.String(), metaBoardSize: strconv.Itoa(p.cfg.BoardSize),
			metaCreated: now(), metaID: newID(), metaKind: kindDB,
		}
		for k, v := range m {
			if _, err := tx.Exec(ctx, "INSERT INTO meta VALUES ($1, $2)", k, v); err != nil {
				return err
			}
		}
	}
	h, err := parseHeader(m)
	if err != nil {
		return err
	}
	if h.schema != PGSchemaVersion {
		return fmt.Errorf("%w: meta says schema %d, want %d", ErrSchemaVersion, h.schema, PGSchemaVersion)
	}
	p.id = h.id
	if p.cfg == (Config{}) {
		p.cfg = h.cfg
	}
	return compatible(p.cfg, h)
}

func pgMeta(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) (map[string]string, error) {
	rows, err := q.Query(ctx, "SELECT key, value FROM meta")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	var k, v string
	_, err = pgx.ForEachRow(rows, []any{&k, &v}, func() error { m[k] = v; return nil })
	return m, err
}

// wrap names the server in an error and marks connection failures
// ErrServer (a caller retries those).
func (p *PG) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if serverGone(err) {
		err = fmt.Errorf("%w: %v", ErrServer, err)
	}
	return fmt.Errorf("store: %s %s: %w", op, p.url, err)
}

// serverGone reports a server that is down, restarting or unreachable: a
// connection that failed or broke, or the server's own "shutting down"
// errors (SQLSTATE classes 08 and 57P).
func serverGone(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")
	}
	return !errors.Is(err, context.Canceled) && (pgconn.Timeout(err) || isConnErr(err))
}

// isConnErr reports a failure to reach the server or a lost connection.
func isConnErr(err error) bool {
	var ce *pgconn.ConnectError
	s := err.Error()
	return errors.As(err, &ce) || strings.Contains(s, "connection refused") || strings.Contains(s, "conn closed") ||
		strings.Contains(s, "unexpected EOF") || strings.Contains(s, "broken pipe") || strings.Contains(s, "connection reset") ||
		strings.Contains(s, "terminating connection") || strings.Contains(s, "failed to connect")
}

// Config is the store's configuration.
func (p *PG) Config() Config { return p.cfg }

// ID is the database's db_id.
func (p *PG) ID() string { return p.id }

// Path is the server's URL with the password masked.
func (p *PG) Path() string { return p.url }

// Close closes the connections.
func (p *PG) Close() error { p.pool.Close(); return nil }

// Checkpoint does nothing (the server manages its write-ahead log).
func (p *PG) Checkpoint(context.Context) error { return nil }

// pgRow is one row of a merge as COPY sends it.
type pgRow struct {
	pid         int64
	key         string
	mx, my      int16
	wsum, games int64
	bl          bool
}

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
	rows, err := copyRows(r)
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{ShardID: r.h.id, Games: r.foot.games, Moves: r.foot.rows, Positions: r.foot.positions}
	seal := r.seal()
	err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO merged_shards (shard_id, path, games, seal, merged_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (shard_id) DO NOTHING`, r.h.id, path, r.foot.games, seal, now())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return p.already(ctx, tx, r.h.id, seal)
		}
		for _, e := range r.ledger {
			tag, err := tx.Exec(ctx, `INSERT INTO merged_shards (shard_id, path, games, seal, via, merged_at)
				VALUES ($1, '', $2, $3, $4, $5) ON CONFLICT (shard_id) DO NOTHING`, e.id, e.games, e.seal, r.h.id, now())
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return fmt.Errorf("%w: the source contains shard %s, which is already merged here", ErrOverlap, e.id)
			}
		}
		return upsert(ctx, tx, rows, r.foot.totals)
	})
	if errors.Is(err, errAlready) {
		return MergeResult{ShardID: r.h.id, AlreadyMerged: true}, nil
	}
	return res, err
}

// copyRows reads a run through (checking it) into COPY rows.
func copyRows(r *runReader) ([][]any, error) {
	var rows [][]any
	for {
		pos, err := r.next()
		if pos == nil || err != nil {
			return rows, err
		}
		key := string(pos.text())
		for _, m := range pos.moves {
			rows = append(rows, []any{pos.id, key, int16(m.m.X), int16(m.m.Y), m.wsum, m.games, m.bl})
		}
	}
}

var errAlready = errors.New("already merged")

// already tells a shard merged before in the same state (errAlready)
// from one that changed since (ErrOverlap).
func (p *PG) already(ctx context.Context, tx pgx.Tx, id, seal string) error {
	var old string
	if err := tx.QueryRow(ctx, "SELECT seal FROM merged_shards WHERE shard_id = $1", id).Scan(&old); err != nil {
		return err
	}
	if old == seal {
		return errAlready
	}
	return fmt.Errorf("%w: %s was merged here before in another state (%s, now %s)", ErrOverlap, id, old, seal)
}

// upsert sends rows by COPY and adds them to moves in key order, then the
// totals.
func upsert(ctx context.Context, tx pgx.Tx, rows [][]any, t totals) error {
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE incoming (pid BIGINT, key TEXT, mx SMALLINT, my SMALLINT,
		wsum BIGINT, games BIGINT, bl BOOLEAN) ON COMMIT DROP`); err != nil {
		return err
	}
	cols := []string{"pid", "key", "mx", "my", "wsum", "games", "bl"}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"incoming"}, cols, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO moves (pid, key, mx, my, wsum, games, blacklisted)
		SELECT pid, key, mx, my, wsum, games, bl FROM incoming ORDER BY key, mx, my
		ON CONFLICT (key, mx, my) DO UPDATE SET wsum = moves.wsum + excluded.wsum,
			games = moves.games + excluded.games, blacklisted = moves.blacklisted OR excluded.blacklisted`); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE totals SET games = games + $1, black_wins = black_wins + $2,
		white_wins = white_wins + $3, draws = draws + $4 WHERE id = 1`, t.games, t.black, t.white, t.draws)
	return err
}

// Prune deletes, in one transaction, the positions seen in fewer than
// c.MinGames games, keeping their blacklisted moves in the blacklist
// table. Totals never change.
func (p *PG) Prune(ctx context.Context, c PruneConfig) (PruneResult, error) {
	if err := c.Validate(); err != nil {
		return PruneResult{}, err
	}
	var res PruneResult
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		const small = "SELECT key FROM moves GROUP BY key HAVING sum(games) < $1"
		tag, err := tx.Exec(ctx, `INSERT INTO blacklist (pid, key, mx, my) SELECT pid, key, mx, my FROM moves
			WHERE blacklisted AND key IN (`+small+`) ON CONFLICT DO NOTHING`, c.MinGames)
		if err != nil {
			return err
		}
		res.Blacklisted = tag.RowsAffected()
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM ("+small+") s", c.MinGames).Scan(&res.Positions); err != nil {
			return err
		}
		tag, err = tx.Exec(ctx, "DELETE FROM moves WHERE key IN ("+small+")", c.MinGames)
		if err != nil {
			return err
		}
		res.Moves = tag.RowsAffected()
		return tx.QueryRow(ctx, "SELECT count(DISTINCT key) FROM moves").Scan(&res.Mature)
	})
	return res, p.wrap("prune", err)
}

// Conclude blacklists the moves DB.Conclude does, in one statement.
func (p *PG) Conclude(ctx context.Context, c ConcludeConfig) (int64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	tag, err := p.pool.Exec(ctx, `WITH s AS (
		SELECT key, mx, my, games, blacklisted, wsum::float8 / games AS mean,
			max(CASE WHEN games >= $1 THEN wsum::float8 / games END) OVER (PARTITION BY key) AS best
		FROM moves WHERE games > 0)
		UPDATE moves m SET blacklisted = TRUE FROM s
		WHERE m.key = s.key AND m.mx = s.mx AND m.my = s.my AND s.games >= $1 AND NOT s.blacklisted
			AND s.mean < s.best - $2 AND s.mean < $3`, c.MinGames, c.Margin, c.MaxMean)
	if err != nil {
		return 0, p.wrap("conclude", err)
	}
	return tag.RowsAffected(), nil
}

// Stats counts the database.
func (p *PG) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Rule: p.cfg.Rule.String(), KeyVersion: p.cfg.KeyVersion, SchemaVersion: PGSchemaVersion, BoardSize: p.cfg.BoardSize}
	err := p.pool.QueryRow(ctx, `SELECT t.games, t.black_wins, t.white_wins, t.draws,
		(SELECT count(DISTINCT key) FROM moves), (SELECT count(*) FROM moves),
		(SELECT count(*) FROM moves WHERE blacklisted), (SELECT count(*) FROM blacklist),
		(SELECT count(*) FROM merged_shards), (SELECT count(*) FROM generations),
		pg_database_size(current_database())
		FROM totals t WHERE t.id = 1`).Scan(&s.Games, &s.BlackWins, &s.WhiteWins, &s.Draws, &s.Positions, &s.Moves,
		&s.Blacklisted, &s.PrunedBlack, &s.MergedShards, &s.Generations, &s.FileBytes)
	s.Blacklisted += s.PrunedBlack
	return s, p.wrap("stats of", err)
}

// scanQuery lists move rows with their position's games, in position-id
// order, moves sorted.
const scanQuery = `SELECT key, mx, my, wsum, games, blacklisted, pgames FROM (
	SELECT pid, key, mx, my, wsum, games, blacklisted, sum(games) OVER (PARTITION BY key) AS pgames
	FROM moves %s) s WHERE games >= $1 ORDER BY pid, key, mx, my`

func (p *PG) scan(ctx context.Context, where string, minGames int64, fn func(MoveStat) error, args ...any) error {
	rows, err := p.pool.Query(ctx, fmt.Sprintf(scanQuery, where), append([]any{minGames}, args...)...)
	if err != nil {
		return err
	}
	var m MoveStat
	var mx, my int16
	_, err = pgx.ForEachRow(rows, []any{&m.Key, &mx, &my, &m.WSum, &m.Games, &m.Blacklisted, &m.PositionGames}, func() error {
		m.Move.X, m.Move.Y = int8(mx), int8(my)
		return fn(m)
	})
	return err
}

// ScanMoves calls fn with every move row of at least minGames games.
func (p *PG) ScanMoves(ctx context.Context, minGames int64, fn func(MoveStat) error) error {
	return p.wrap("scan", p.scan(ctx, "", minGames, fn))
}

// MoveStats returns the rows of one position.
func (p *PG) MoveStats(ctx context.Context, key string) ([]MoveStat, error) {
	var out []MoveStat
	err := p.scan(ctx, "WHERE key = $2", 0, func(m MoveStat) error { out = append(out, m); return nil }, key)
	return out, p.wrap("read", err)
}

// Export writes every row as DB.Export does.
func (p *PG) Export(ctx context.Context, w io.Writer) error {
	cw := csv.NewWriter(w)
	err := cw.Write(strings.Split(ExportHeader, ","))
	if err == nil {
		err = p.scan(ctx, "", 0, func(m MoveStat) error {
			return cw.Write([]string{m.Key, strconv.Itoa(int(m.Move.X)), strconv.Itoa(int(m.Move.Y)),
				strconv.FormatInt(m.WSum, 10), strconv.FormatInt(m.Games, 10), map[bool]string{false: "0", true: "1"}[m.Blacklisted],
				strconv.FormatInt(m.PositionGames, 10)})
		})
	}
	if err == nil {
		cw.Flush()
		err = cw.Error()
	}
	return p.wrap("export", err)
}

// ExportRun is not offered by the PostgreSQL backend: its data stay on
// the server (export CSV, or merge the shards into a SQLite file too).
func (p *PG) ExportRun(context.Context, string) error {
	return fmt.Errorf("store: %s: sealed exports are made from SQLite databases only: %w", p.url, ErrInvalidConfig)
}

// Blacklist loads the blacklisted moves, those of pruned positions too.
func (p *PG) Blacklist(ctx context.Context) (Blacklist, error) {
	rows, err := p.pool.Query(ctx, "SELECT pid, mx, my FROM moves WHERE blacklisted UNION ALL SELECT pid, mx, my FROM blacklist")
	if err != nil {
		return Blacklist{}, p.wrap("blacklist of", err)
	}
	var es []BlacklistEntry
	var e BlacklistEntry
	var mx, my int16
	_, err = pgx.ForEachRow(rows, []any{&e.ID, &mx, &my}, func() error {
		e.Move.X, e.Move.Y = int8(mx), int8(my)
		es = append(es, e)
		return nil
	})
	return blacklistOf(es), p.wrap("blacklist of", err)
}

// Merged reports whether the source id is in the ledger.
func (p *PG) Merged(ctx context.Context, id string) (bool, error) {
	var n int
	err := p.pool.QueryRow(ctx, "SELECT count(*) FROM merged_shards WHERE shard_id = $1", id).Scan(&n)
	return n > 0, p.wrap("ledger of", err)
}

// Meta returns the meta table.
func (p *PG) Meta(ctx context.Context) (map[string]string, error) {
	m, err := pgMeta(ctx, p.pool)
	return m, p.wrap("meta of", err)
}

// SetMeta sets user keys (not the reserved ones).
func (p *PG) SetMeta(ctx context.Context, m map[string]string) error {
	for k := range m {
		if reservedMeta[k] {
			return fmt.Errorf("store: set meta %q: %w", k, ErrReservedMeta)
		}
	}
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		for k, v := range m {
			if _, err := tx.Exec(ctx, "INSERT INTO meta VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", k, v); err != nil {
				return err
			}
		}
		return nil
	})
	return p.wrap("set meta of", err)
}

// AddGeneration records a generation (ErrGenerationExists if recorded).
func (p *PG) AddGeneration(ctx context.Context, g Generation) error {
	if g.Created == "" {
		g.Created = now()
	}
	tag, err := p.pool.Exec(ctx, `INSERT INTO generations (gen, games, rows, fit_seconds, auc, score, score_low, score_high, model, seed, created, details)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (gen) DO NOTHING`,
		g.Gen, g.Games, g.Rows, g.FitSeconds, g.AUC, g.Score, g.ScoreLow, g.ScoreHigh, g.Model, g.Seed, g.Created, g.Details)
	if err == nil && tag.RowsAffected() == 0 {
		err = ErrGenerationExists
	}
	return p.wrap(fmt.Sprintf("add generation %d to", g.Gen), err)
}

// Generations lists the generations in order.
func (p *PG) Generations(ctx context.Context) ([]Generation, error) {
	rows, err := p.pool.Query(ctx, `SELECT gen, games, rows, fit_seconds, auc, score, score_low, score_high, model, seed, created, details
		FROM generations ORDER BY gen`)
	if err != nil {
		return nil, p.wrap("generations of", err)
	}
	var out []Generation
	var g Generation
	_, err = pgx.ForEachRow(rows, []any{&g.Gen, &g.Games, &g.Rows, &g.FitSeconds, &g.AUC, &g.Score, &g.ScoreLow, &g.ScoreHigh,
		&g.Model, &g.Seed, &g.Created, &g.Details}, func() error { out = append(out, g); return nil })
	return out, p.wrap("generations of", err)
}

// AddTeacherGames appends games once per (Gen, Game), by COPY into a
// temporary table.
func (p *PG) AddTeacherGames(ctx context.Context, games []TeacherGame) (int64, error) {
	rows := make([][]any, len(games))
	for i := range games {
		g := &games[i]
		if err := g.check(); err != nil {
			return 0, err
		}
		rows[i] = []any{int32(g.Gen), int32(g.Game), int16(g.Book), int16(g.Winner), pointBytes(g.Moves), pointBytes(g.Teacher)}
	}
	var added int64
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "CREATE TEMP TABLE incoming_games (LIKE teacher_games) ON COMMIT DROP"); err != nil {
			return err
		}
		cols := []string{"gen", "game", "book", "winner", "moves", "teacher"}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"incoming_games"}, cols, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "INSERT INTO teacher_games SELECT * FROM incoming_games ORDER BY gen, game ON CONFLICT DO NOTHING")
		added = tag.RowsAffected()
		return err
	})
	return added, p.wrap("add teacher games to", err)
}

// TeacherGames calls fn with the games of generations from..to.
func (p *PG) TeacherGames(ctx context.Context, from, to int, fn func(TeacherGame) error) error {
	rows, err := p.pool.Query(ctx, "SELECT gen, game, book, winner, moves, teacher FROM teacher_games WHERE gen BETWEEN $1 AND $2 ORDER BY gen, game", from, to)
	if err != nil {
		return p.wrap("teacher games of", err)
	}
	var g TeacherGame
	var book, winner int16
	var moves, teacher []byte
	_, err = pgx.ForEachRow(rows, []any{&g.Gen, &g.Game, &book, &winner, &moves, &teacher}, func() error {
		g.Book, g.Winner, g.Moves, g.Teacher = int(book), gomokuPlayer(winner), points(moves), points(teacher)
		if err := g.check(); err != nil {
			return err
		}
		return fn(g)
	})
	return p.wrap("teacher games of", err)
}

func gomokuPlayer(v int16) gomoku.Player { return gomoku.Player(v) }
