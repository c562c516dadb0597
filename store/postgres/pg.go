package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"ocvist/gomoku"
	"ocvist/store"
	"ocvist/store/internal/meta"
	"ocvist/store/shard"
)

// DB is the PostgreSQL backend of the store (README.md, "One job on many machines"):
// many coordinators on many machines merge their sealed shards into one
// server. Like the SQLite store it has a young tier, so that the many
// positions seen once never enter a B-tree: a merge appends the shard's
// rows to the young table by COPY (no index to update, so its cost is the
// shard's, not the database's) with the ledger row and the totals in the
// same transaction; Prune promotes and expires young runs by age (see
// DB.Prune); readers see moves and young together, as sqlite.DB's do. Keys are
// stored in the run files' packed encoding. Its methods are safe for
// concurrent use, by goroutines and by coordinators on other machines.
type DB struct {
	pool *pgxpool.Pool
	url  string // with the password masked, for messages
	cfg  store.Config
	id   string
	// batchRows bounds the young rows of one prune transaction
	// (pgPruneBatchRows; tests set it lower).
	batchRows int64
	mu        sync.Mutex
	members   map[*pgMember]bool // joined, not left: each holds a connection
}

var _ store.Store = (*DB)(nil)

//go:embed migrations/*.sql
var pgMigrationFS embed.FS

// SchemaVersion is the schema the PostgreSQL migrations build.
const SchemaVersion = 5

// Open connects to the server at rawURL and opens its Ocvist store:
// it applies the embedded migrations (recorded in schema_migrations, under
// an advisory lock so that coordinators starting together migrate once),
// creates the meta of an empty database for want, and refuses one of
// another rule, key version, board size or schema (the errors of Open).
// It gives up after 10 seconds without a server (ErrServer).
func Open(ctx context.Context, rawURL string, want store.Config) (*DB, error) {
	if err := want.Validate(); err != nil {
		return nil, err
	}
	return openPG(ctx, rawURL, want)
}

// OpenExisting opens the Ocvist store of the server at rawURL with the
// configuration it was created with; a database without one (never used
// by Ocvist) is refused with ErrNotOcvist.
func OpenExisting(ctx context.Context, rawURL string) (*DB, error) {
	return openPG(ctx, rawURL, store.Config{})
}

func openPG(ctx context.Context, rawURL string, want store.Config) (*DB, error) {
	p := &DB{url: redact(rawURL), cfg: want, batchRows: pgPruneBatchRows}
	pcfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", p.url, err)
	}
	pcfg.MaxConns = 4
	stoppable(pcfg)
	if p.pool, err = pgxpool.NewWithConfig(ctx, pcfg); err != nil {
		return nil, fmt.Errorf("store: %s: %w", p.url, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.pool.Ping(cctx); err != nil {
		p.pool.Close()
		return nil, fmt.Errorf("store: %s: %w", p.url, connectError(err))
	}
	if err := p.setup(cctx); err != nil {
		p.pool.Close()
		return nil, fmt.Errorf("store: %s: %w", p.url, err)
	}
	return p, nil
}

// stoppable makes a cancelled context stop the server's work, not just
// the client's wait: pgx's default closes the socket and leaves the
// statement running (a prune went on for minutes holding the maintenance
// lock). A cancel request goes to the server at once; the socket is closed
// a second later if the server has not answered. And the server checks
// every second that its client is still there (PostgreSQL 14 and later;
// older servers ignore it), so a client killed with SIGKILL does not
// leave its statement running and its locks held.
func stoppable(c *pgxpool.Config) {
	c.ConnConfig.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: time.Second}
	}
	c.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "SET client_connection_check_interval = 1000")
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42704" { // undefined_object: before PostgreSQL 14
			err = nil
		}
		return err
	}
}

// connectError is a failed connection in one line: the server's refusal
// (a wrong password, no such role or database), which waiting will not
// mend, or ErrServer with the network's reason (refused, timed out, no
// such host). pgx's own text repeats each address it tried, over lines.
func connectError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && !serverGone(pe) {
		return fmt.Errorf("the server refused the connection: %s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("%w: %v", store.ErrServer, dns)
	case errors.As(err, &op):
		return fmt.Errorf("%w: %v", store.ErrServer, op)
	case pgconn.Timeout(err):
		return fmt.Errorf("%w: no answer in time", store.ErrServer)
	}
	return fmt.Errorf("%w: %s", store.ErrServer, strings.Join(strings.Fields(err.Error()), " "))
}

// Redact masks the password of a URL (a file name is returned as it is).
func Redact(raw string) string {
	if !IsURL(raw) {
		return raw
	}
	return redact(raw)
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
func (p *DB) setup(ctx context.Context) error {
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
		if have > SchemaVersion {
			return fmt.Errorf("%w: the database has schema %d, this program knows up to %d", store.ErrSchemaVersion, have, SchemaVersion)
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
		err = fmt.Errorf("%w: the database has %d tables of another program", store.ErrNotOcvist, n)
	}
	return err
}

func pgMigrate(ctx context.Context, tx pgx.Tx, have int) error {
	entries, err := fs.ReadDir(pgMigrationFS, "migrations")
	if err != nil {
		return err
	}
	for i, e := range entries {
		if i+1 <= have {
			continue
		}
		sqlText, err := pgMigrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, string(sqlText)); err != nil {
			return fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		if i+1 == 2 {
			if err := pgMigrateKeys(ctx, tx); err != nil {
				return fmt.Errorf("migration %s: %w", e.Name(), err)
			}
		}
		if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations VALUES ($1, $2, $3)", i+1, e.Name(), meta.Now()); err != nil {
			return err
		}
	}
	return nil
}

// pgMigrateKeys copies schema 1's rows (keys as text) into schema 2's
// moves table (keys packed), a cursor's chunk at a time, and drops the old
// table. Schema 1 had no young tier: its rows are all mature.
func pgMigrateKeys(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "DECLARE v1 NO SCROLL CURSOR FOR SELECT pid, key, mx, my, wsum, games, blacklisted FROM moves_v1"); err != nil {
		return err
	}
	for {
		rows, err := tx.Query(ctx, "FETCH 50000 FROM v1")
		if err != nil {
			return err
		}
		var chunk [][]any
		var r pgRow
		_, err = pgx.ForEachRow(rows, []any{&r.pid, &r.key, &r.mx, &r.my, &r.wsum, &r.games, &r.bl}, func() error {
			chunk = append(chunk, []any{r.pid, shard.AppendKey(nil, []byte(r.key)), r.mx, r.my, r.wsum, r.games, r.bl})
			return nil
		})
		if err != nil {
			return err
		}
		if len(chunk) == 0 {
			break
		}
		cols := []string{"pid", "key", "mx", "my", "wsum", "games", "blacklisted"}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"moves"}, cols, pgx.CopyFromRows(chunk)); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, "CLOSE v1; DROP TABLE moves_v1")
	return err
}

// pgRow is a row of schema 1's moves table.
type pgRow struct {
	pid         int64
	key         string
	mx, my      int16
	wsum, games int64
	bl          bool
}

func (p *DB) checkMeta(ctx context.Context, tx pgx.Tx) error {
	m, err := pgMeta(ctx, tx)
	if err != nil {
		return err
	}
	if len(m) == 0 && p.cfg == (store.Config{}) {
		return fmt.Errorf("%w: the database holds no Ocvist store yet (train run or train merge creates one)", store.ErrNotOcvist)
	}
	if len(m) == 0 {
		m = map[string]string{
			meta.KeySchemaVersion: strconv.Itoa(SchemaVersion), meta.KeyKeyVersion: strconv.Itoa(p.cfg.KeyVersion),
			meta.KeyRule: p.cfg.Rule.String(), meta.KeyBoardSize: strconv.Itoa(p.cfg.BoardSize),
			meta.KeyCreated: meta.Now(), meta.KeyID: shard.NewID(), meta.KeyKind: meta.KindDB,
		}
		for k, v := range m {
			if _, err := tx.Exec(ctx, "INSERT INTO meta VALUES ($1, $2)", k, v); err != nil {
				return err
			}
		}
	}
	h, err := meta.Parse(m)
	if err != nil {
		return err
	}
	if h.Schema != SchemaVersion {
		return fmt.Errorf("%w: meta says schema %d, want %d", store.ErrSchemaVersion, h.Schema, SchemaVersion)
	}
	p.id = h.ID
	if p.cfg == (store.Config{}) {
		p.cfg = h.Config
	}
	return meta.Compatible(p.cfg, h)
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
func (p *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if serverGone(err) {
		err = fmt.Errorf("%w: %v", store.ErrServer, err)
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

// isConnErr reports a failure to reach the server or a lost connection
// (one the driver closed when it saw the server go is net.ErrClosed).
func isConnErr(err error) bool {
	var ce *pgconn.ConnectError
	s := err.Error()
	return errors.As(err, &ce) || errors.Is(err, net.ErrClosed) || strings.Contains(s, "use of closed network connection") ||
		strings.Contains(s, "connection refused") || strings.Contains(s, "conn closed") ||
		strings.Contains(s, "unexpected EOF") || strings.Contains(s, "broken pipe") || strings.Contains(s, "connection reset") ||
		strings.Contains(s, "terminating connection") || strings.Contains(s, "failed to connect")
}

// Config is the store's configuration.
func (p *DB) Config() store.Config { return p.cfg }

// ID is the database's db_id.
func (p *DB) ID() string { return p.id }

// Path is the server's URL with the password masked.
func (p *DB) Path() string { return p.url }

// Close closes the connections; members of the loop that have not left
// leave (JoinLoop).
func (p *DB) Close() error {
	p.mu.Lock()
	members := slices.Collect(maps.Keys(p.members))
	p.mu.Unlock()
	for _, m := range members {
		m.Leave()
	}
	p.pool.Close()
	return nil
}

// Checkpoint does nothing (the server manages its write-ahead log).
func (p *DB) Checkpoint(context.Context) error { return nil }

// Merged reports whether the source id is in the ledger.
func (p *DB) Merged(ctx context.Context, id string) (bool, error) {
	var n int
	err := p.pool.QueryRow(ctx, "SELECT count(*) FROM merged_shards WHERE shard_id = $1", id).Scan(&n)
	return n > 0, p.wrap("ledger of", err)
}

// Meta returns the meta table.
func (p *DB) Meta(ctx context.Context) (map[string]string, error) {
	m, err := pgMeta(ctx, p.pool)
	return m, p.wrap("meta of", err)
}

// SetMeta sets user keys (not the reserved ones).
func (p *DB) SetMeta(ctx context.Context, m map[string]string) error {
	for k := range m {
		if meta.Reserved[k] {
			return fmt.Errorf("store: set meta %q: %w", k, store.ErrReservedMeta)
		}
	}
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error { return putMeta(ctx, tx, m) })
	return p.wrap("set meta of", err)
}

// putMeta upserts m's keys in their sorted order: two transactions that
// set the same keys lock them in one order and never deadlock.
func putMeta(ctx context.Context, tx pgx.Tx, m map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if _, err := tx.Exec(ctx, "INSERT INTO meta VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", k, m[k]); err != nil {
			return err
		}
	}
	return nil
}

// RecordRun numbers a new run: the "runs" row is locked (FOR UPDATE) for
// the transaction, so a second job waits for the first's number.
func (p *DB) RecordRun(ctx context.Context, fields func(n int) map[string]string) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO meta VALUES ('runs', '0') ON CONFLICT (key) DO NOTHING"); err != nil {
			return err
		}
		var runs string
		if err := tx.QueryRow(ctx, "SELECT value FROM meta WHERE key = 'runs' FOR UPDATE").Scan(&runs); err != nil {
			return err
		}
		next, m, err := meta.NextRun(runs, fields)
		if err != nil {
			return err
		}
		n = next
		return putMeta(ctx, tx, m)
	})
	return n, p.wrap("record a run in", err)
}

// AddGeneration records a generation (ErrGenerationExists if recorded).
func (p *DB) AddGeneration(ctx context.Context, g store.Generation) error {
	if g.Created == "" {
		g.Created = meta.Now()
	}
	tag, err := p.pool.Exec(ctx, `INSERT INTO generations (gen, games, rows, fit_seconds, auc, score, score_low, score_high, model, seed, created, details)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (gen) DO NOTHING`,
		g.Gen, g.Games, g.Rows, g.FitSeconds, g.AUC, g.Score, g.ScoreLow, g.ScoreHigh, g.Model, g.Seed, g.Created, g.Details)
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrGenerationExists
	}
	return p.wrap(fmt.Sprintf("add generation %d to", g.Gen), err)
}

// Generations lists the generations in order.
func (p *DB) Generations(ctx context.Context) ([]store.Generation, error) {
	rows, err := p.pool.Query(ctx, `SELECT gen, games, rows, fit_seconds, auc, score, score_low, score_high, model, seed, created, details
		FROM generations ORDER BY gen`)
	if err != nil {
		return nil, p.wrap("generations of", err)
	}
	var out []store.Generation
	var g store.Generation
	_, err = pgx.ForEachRow(rows, []any{&g.Gen, &g.Games, &g.Rows, &g.FitSeconds, &g.AUC, &g.Score, &g.ScoreLow, &g.ScoreHigh,
		&g.Model, &g.Seed, &g.Created, &g.Details}, func() error { out = append(out, g); return nil })
	return out, p.wrap("generations of", err)
}

// TeacherGames calls fn with the games of generations from..to.
func (p *DB) TeacherGames(ctx context.Context, from, to int, fn func(store.TeacherGame) error) error {
	rows, err := p.pool.Query(ctx, "SELECT gen, game, book, winner, moves, teacher, plies FROM teacher_games WHERE gen BETWEEN $1 AND $2 ORDER BY gen, game", from, to)
	if err != nil {
		return p.wrap("teacher games of", err)
	}
	var r shard.TeacherRow
	var gen, game int32
	var book, winner int16
	_, err = pgx.ForEachRow(rows, []any{&gen, &game, &book, &winner, &r.Moves, &r.Teacher, &r.Plies}, func() error {
		r.Gen, r.Game, r.Book, r.Winner = int(gen), int(game), int(book), int(winner)
		g, err := r.Decode()
		if err != nil {
			return err
		}
		return fn(g)
	})
	return p.wrap("teacher games of", err)
}

// TeacherStored counts the stored teacher games of generation gen.
func (p *DB) TeacherStored(ctx context.Context, gen int) (int64, error) {
	var n int64
	err := p.pool.QueryRow(ctx, "SELECT count(*) FROM teacher_games WHERE gen = $1", gen).Scan(&n)
	return n, p.wrap(fmt.Sprintf("teacher games of generation %d in", gen), err)
}

func gomokuPlayer(v int16) gomoku.Player { return gomoku.Player(v) }
