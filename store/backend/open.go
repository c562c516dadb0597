package backend

import (
	"context"
	"fmt"
	"os"

	"ocvist/store"
	"ocvist/store/postgres"
	"ocvist/store/sqlite"
)

// The Open…At functions open the database at path, a SQLite file or a
// PostgreSQL URL (IsURL), the same way for every command.

// OpenAt opens the database at path for cfg, creating it if needed.
func OpenAt(ctx context.Context, path string, cfg store.Config) (store.Store, error) {
	if IsURL(path) {
		return asStore(postgres.Open(ctx, path, cfg))
	}
	return asStore(sqlite.Open(path, cfg))
}

// OpenExistingAt opens a database that must exist (never creating one)
// for writing: it takes the writer lock and refuses a shard.
func OpenExistingAt(ctx context.Context, path string) (store.Store, error) {
	return openExistingAt(ctx, path, sqlite.OpenExisting)
}

// OpenReadOnlyAt opens a database that must exist for reading only.
func OpenReadOnlyAt(ctx context.Context, path string) (store.Store, error) {
	return openExistingAt(ctx, path, sqlite.OpenReadOnly)
}

// openExistingAt opens a server's database, or the SQLite file at path
// with open once it is known to exist.
func openExistingAt(ctx context.Context, path string, open func(string) (*sqlite.DB, error)) (store.Store, error) {
	if IsURL(path) {
		return asStore(postgres.OpenExisting(ctx, path))
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return asStore(open(path))
}

// asStore returns an opened backend as a Store, and a nil Store (not one
// holding a nil pointer) with an error.
func asStore[S store.Store](s S, err error) (store.Store, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// IsURL reports whether a -db argument names a PostgreSQL server
// (postgres:// or postgresql://) rather than a SQLite file.
func IsURL(s string) bool { return postgres.IsURL(s) }

// Redact is a database's path as it may be shown: a URL with its password
// masked, a file's path as it is.
func Redact(path string) string { return postgres.Redact(path) }

// OpenForMerge opens the merge target, creating it with the configuration
// of the first source when it does not exist yet.
func OpenForMerge(target, firstSource string) (store.Store, error) {
	if IsURL(target) {
		if cfg, err := sqlite.SourceConfig(firstSource); err == nil {
			return postgres.Open(context.Background(), target, cfg)
		}
		return postgres.OpenExisting(context.Background(), target)
	}
	if _, err := os.Stat(target); err == nil {
		return sqlite.OpenExisting(target)
	}
	cfg, err := sqlite.SourceConfig(firstSource)
	if err != nil {
		return nil, err
	}
	return sqlite.Open(target, cfg)
}
