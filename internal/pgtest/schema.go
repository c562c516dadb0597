package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the test server's URL; .ci/run starts a server (.ci/postgres)
// and sets it.
const Env = "OCVIST_TEST_POSTGRES"

// SchemaURL returns the URL of a fresh schema, of the test's own, on the
// server that Env names (dropped when the test ends), or skips the test
// when Env is not set.
func SchemaURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	if base == "" {
		t.Skip(Env + " is not set: no PostgreSQL server to test against (.ci/run starts one)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	defer conn.Close(ctx)
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(t.Name()))
	schema := pgx.Identifier{fmt.Sprintf("t_%s_%d", name, time.Now().UnixNano())}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), base); err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", strings.Trim(schema, `"`))
	u.RawQuery = q.Encode()
	return u.String()
}
