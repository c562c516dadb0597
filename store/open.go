package store

import (
	"context"
	"fmt"
	"os"
)

// The Open…At functions open the database at path, a SQLite file or a
// PostgreSQL URL (IsURL), the same way for every command.

// OpenAt opens the database at path for cfg, creating it if needed.
func OpenAt(ctx context.Context, path string, cfg Config) (Store, error) {
	if IsURL(path) {
		return asStore(OpenPG(ctx, path, cfg))
	}
	return asStore(Open(path, cfg))
}

// OpenExistingAt opens a database that must exist (never creating one)
// for writing: it takes the writer lock and refuses a shard.
func OpenExistingAt(ctx context.Context, path string) (Store, error) {
	return openExistingAt(ctx, path, OpenExisting)
}

// OpenReadOnlyAt opens a database that must exist for reading only.
func OpenReadOnlyAt(ctx context.Context, path string) (Store, error) {
	return openExistingAt(ctx, path, OpenReadOnly)
}

// openExistingAt opens a server's database, or the SQLite file at path
// with open once it is known to exist.
func openExistingAt(ctx context.Context, path string, open func(string) (*DB, error)) (Store, error) {
	if IsURL(path) {
		return asStore(OpenPGExisting(ctx, path))
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return asStore(open(path))
}

// asStore returns an opened backend as a Store, and a nil Store (not one
// holding a nil pointer) with an error.
func asStore[S Store](s S, err error) (Store, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}
