package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ocvist/internal/pgtest"
	"ocvist/store"
	"ocvist/store/storetest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"ocvist/gomoku"
)

// The PostgreSQL tests run against the server .ci/run starts (.ci/postgres)
// and named by OCVIST_TEST_POSTGRES; each test works in a schema of its
// own (pgtest.SchemaURL). Without the variable they skip.

func mustPG(t testing.TB, u string) *DB {
	t.Helper()
	p, err := Open(context.Background(), u, storetest.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// pgShards writes n shards of games seeded from seed into dir.
func pgShards(t testing.TB, dir string, seed uint64, n, games int) []string {
	t.Helper()
	var out []string
	for i := range n {
		p, err := storetest.MustBatch(t, storetest.RandomGames(seed+uint64(i), games)).WriteShard(context.Background(), dir, storetest.Config, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// sqliteTwin merges shards into a new SQLite database and returns its
// export and stats: what the PostgreSQL database must hold.
func sqliteTwin(t *testing.T, shards []string) (string, store.Stats) {
	t.Helper()
	d := mustOpen(t, filepath.Join(t.TempDir(), "twin.db"))
	for _, s := range shards {
		if _, err := d.Merge(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return exportOf(t, d), statsOf(t, d)
}

func exportOf(t *testing.T, s store.Store) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Export(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func statsOf(t *testing.T, s store.Store) store.Stats {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// sameCounts compares the counts two stores must share.
func sameCounts(t *testing.T, got, want store.Stats) {
	t.Helper()
	if got.Games != want.Games || got.BlackWins != want.BlackWins || got.WhiteWins != want.WhiteWins || got.Draws != want.Draws ||
		got.Positions != want.Positions || got.Moves != want.Moves || got.MergedShards != want.MergedShards {
		t.Errorf("counts %+v\nwant    %+v", got, want)
	}
}

// TestPGMergeLikeSQLite: shards merged into PostgreSQL give, row by row,
// the export of the same shards merged into SQLite; a second merge of a
// shard is skipped; prune, conclude, the blacklist, generations and
// teacher games work.
func TestPGMergeLikeSQLite(t *testing.T) {
	ctx := context.Background()
	p := mustPG(t, pgtest.SchemaURL(t))
	shards := pgShards(t, t.TempDir(), 100, 4, 150)
	for _, s := range append(shards, shards[0]) {
		if _, err := p.Merge(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	wantExport, wantStats := sqliteTwin(t, shards)
	if got := exportOf(t, p); got != wantExport {
		t.Fatalf("export differs from SQLite's (%d and %d bytes)", len(got), len(wantExport))
	}
	sameCounts(t, statsOf(t, p), wantStats)
	if n, err := p.Conclude(ctx, store.ConcludeConfig{MinGames: 2, Margin: 0.5, MaxMean: 0}); err != nil || n == 0 {
		t.Fatalf("conclude: %d, %v", n, err)
	}
	bl, err := p.Blacklist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Prune(ctx, store.PruneConfig{MinGames: 1000})
	if err != nil || res.Positions == 0 {
		t.Fatalf("prune: %+v, %v", res, err)
	}
	after, err := p.Blacklist(ctx)
	if err != nil || after.Len() != bl.Len() {
		t.Errorf("blacklist of %d moves became %d after prune (%v)", bl.Len(), after.Len(), err)
	}
	if st := statsOf(t, p); st.Games != wantStats.Games {
		t.Errorf("prune changed the games: %d, want %d", st.Games, wantStats.Games)
	}
	g := store.TeacherGame{Gen: 1, Game: 0, Book: 1, Moves: []gomoku.Point{gomoku.Center, 1}, Teacher: []gomoku.Point{1}, Winner: gomoku.White}
	storetest.MergeTeacher(t, p, []store.TeacherGame{g})
	var back []store.TeacherGame
	p.TeacherGames(ctx, 1, 1, func(tg store.TeacherGame) error { back = append(back, tg); return nil })
	if len(back) != 1 || back[0].Winner != gomoku.White || len(back[0].Moves) != 2 {
		t.Errorf("teacher games read back %+v", back)
	}
	if err := p.AddGeneration(ctx, store.Generation{Gen: 1, Details: `{"x":1}`}); err != nil {
		t.Fatal(err)
	}
	if err := p.AddGeneration(ctx, store.Generation{Gen: 1}); !errors.Is(err, store.ErrGenerationExists) {
		t.Errorf("generation 1 again: %v", err)
	}
	if gens, err := p.Generations(ctx); err != nil || len(gens) != 1 || gens[0].Details != `{"x":1}` {
		t.Errorf("generations %+v, %v", gens, err)
	}
}

// The coordinator helper: when the test binary runs with
// OCVIST_PG_MERGE=url and OCVIST_PG_SHARDS=list, it merges the shards into
// the server and exits (a separate process, as on another machine).
func TestMain(m *testing.M) {
	if u := os.Getenv("OCVIST_PG_MERGE"); u != "" {
		p, err := Open(context.Background(), u, storetest.Config)
		if err == nil {
			for _, s := range strings.Split(os.Getenv("OCVIST_PG_SHARDS"), ",") {
				if _, err = p.Merge(context.Background(), s); err != nil {
					break
				}
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func coordinator(u string, shards []string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OCVIST_PG_MERGE="+u, "OCVIST_PG_SHARDS="+strings.Join(shards, ","))
	return cmd
}

// TestPGConcurrentCoordinators: three coordinator processes merge
// overlapping lists of shards (each shard offered by two of them, in
// different orders) into one database at once; every shard counts once,
// and the rows equal SQLite's.
func TestPGConcurrentCoordinators(t *testing.T) {
	u := pgtest.SchemaURL(t)
	mustPG(t, u) // create the schema once
	shards := pgShards(t, t.TempDir(), 200, 9, 80)
	lists := [][]string{
		append(append([]string{}, shards[0:3]...), shards[3:6]...),
		append(append([]string{}, shards[6:9]...), shards[0:3]...),
		append(append([]string{}, shards[3:6]...), shards[6:9]...),
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i, l := range lists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := coordinator(u, l).CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	p := mustPG(t, u)
	wantExport, wantStats := sqliteTwin(t, shards)
	if got := exportOf(t, p); got != wantExport {
		t.Fatal("the concurrent merges' export differs from SQLite's")
	}
	sameCounts(t, statsOf(t, p), wantStats)
}

// TestPGKill9Resume: a coordinator killed with SIGKILL while it merges
// (wherever the kill lands), then a new one merging the same shards: the
// counts are exact.
func TestPGKill9Resume(t *testing.T) {
	u := pgtest.SchemaURL(t)
	mustPG(t, u)
	shards := pgShards(t, t.TempDir(), 300, 12, 120)
	cmd := coordinator(u, shards)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := mustPG(t, u)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if statsOf(t, p).MergedShards > 0 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if out, err := coordinator(u, shards).CombinedOutput(); err != nil {
		t.Fatalf("resume: %v: %s", err, out)
	}
	wantExport, wantStats := sqliteTwin(t, shards)
	if got := exportOf(t, p); got != wantExport {
		t.Fatal("export after kill -9 and resume differs from SQLite's")
	}
	sameCounts(t, statsOf(t, p), wantStats)
}

// TestPGServerRestart: with the server gone (every connection closed, new
// ones refused), merges fail with ErrServer and change nothing; after it
// is back the same store merges again and nothing is lost or counted
// twice.
func TestPGServerRestart(t *testing.T) {
	ctx := context.Background()
	// The server goes away behind a proxy: stopping the test server would
	// take it from the tests of other packages too.
	proxy, u := pgtest.NewProxy(t, pgtest.SchemaURL(t))
	p := mustPG(t, u)
	shards := pgShards(t, t.TempDir(), 400, 4, 100)
	if _, err := p.Merge(ctx, shards[0]); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	_, err := p.Merge(ctx, shards[1])
	if !errors.Is(err, store.ErrServer) {
		t.Fatalf("merge with the server down: %v, want ErrServer", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error of more than one line: %q", err)
	}
	proxy.Restore()
	for _, s := range shards {
		if _, err := p.Merge(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	wantExport, wantStats := sqliteTwin(t, shards)
	if got := exportOf(t, p); got != wantExport {
		t.Fatal("export after the restart differs from SQLite's")
	}
	sameCounts(t, statsOf(t, p), wantStats)
}

// TestPGRefusals: a server that is not there, a database of another rule,
// key version or a newer schema, and one of another program are refused
// with one line, and nothing is written.
func TestPGRefusals(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "postgres://ocvist:secret@127.0.0.1:1/x?sslmode=disable&connect_timeout=2", storetest.Config); !errors.Is(err, store.ErrServer) ||
		strings.Contains(err.Error(), "secret") {
		t.Errorf("no server: %v (want ErrServer, password masked)", err)
	}
	u := pgtest.SchemaURL(t)
	mustPG(t, u).Close()
	other := storetest.Config
	other.Rule = gomoku.Standard
	if _, err := Open(ctx, u, other); !errors.Is(err, store.ErrRuleMismatch) {
		t.Errorf("other rule: %v", err)
	}
	other = storetest.Config
	other.KeyVersion = 9
	if _, err := Open(ctx, u, other); !errors.Is(err, store.ErrKeyVersion) {
		t.Errorf("other key version: %v", err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	conn.Exec(ctx, "INSERT INTO schema_migrations VALUES (99, 'future', '')")
	if _, err := Open(ctx, u, storetest.Config); !errors.Is(err, store.ErrSchemaVersion) {
		t.Errorf("newer schema: %v", err)
	}
	foreign := pgtest.SchemaURL(t)
	fc, err := pgx.Connect(ctx, foreign)
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close(ctx)
	fc.Exec(ctx, "CREATE TABLE accounts (id INTEGER)")
	if _, err := Open(ctx, foreign, storetest.Config); !errors.Is(err, store.ErrNotOcvist) {
		t.Errorf("foreign database: %v", err)
	}
	var n int
	fc.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()").Scan(&n)
	if n != 1 {
		t.Errorf("the foreign database has %d tables after the refusal, want its 1", n)
	}
}

// TestServerGone: the errors of a server that went away are ErrServer's
// (a coordinator retries them), others are not.
func TestServerGone(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("write failed: %w", &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}), true},
		{errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"), true},
		{errors.New("unexpected EOF"), true},
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "23505"}, false},
		{context.Canceled, false},
		{errors.New("syntax error"), false},
	} {
		if got := serverGone(c.err); got != c.want {
			t.Errorf("serverGone(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestPGConnectRefused: a server that refuses the connection (a wrong
// password, a database that does not exist) is one line saying so, not
// "server unavailable" (which a job waits for); an address where no
// server listens is ErrServer with the network's reason. The wrong
// password needs the ocvist_pw role that .ci/postgres makes.
func TestPGConnectRefused(t *testing.T) {
	base := os.Getenv(pgtest.Env)
	if base == "" {
		t.Skip(pgtest.Env + " is not set: no PostgreSQL server to test against (.ci/run starts one)")
	}
	with := func(user, db string) string {
		u, _ := url.Parse(base)
		if user != "" {
			u.User = url.UserPassword(user, "wrong")
		}
		if db != "" {
			u.Path = "/" + db
		}
		return u.String()
	}
	ctx := context.Background()
	for _, c := range []struct {
		name, url, want string
		server          bool
	}{
		{"wrong password", with("ocvist_pw", ""), `password authentication failed for user "ocvist_pw" (SQLSTATE 28P01)`, false},
		{"missing database", with("", "ocvist_missing"), `database "ocvist_missing" does not exist (SQLSTATE 3D000)`, false},
		{"no server", "postgres://ocvist@127.0.0.1:1/x?connect_timeout=2", "postgres server unavailable: dial tcp 127.0.0.1:1: connect: connection refused", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := OpenExisting(ctx, c.url)
			if err == nil || errors.Is(err, store.ErrServer) != c.server || !strings.Contains(err.Error(), c.want) ||
				strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "wrong") {
				t.Errorf("error %q (server unavailable: %v); want one line with %q, server unavailable: %v, password masked",
					err, errors.Is(err, store.ErrServer), c.want, c.server)
			}
		})
	}
}
