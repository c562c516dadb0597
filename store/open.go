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
		return OpenPG(ctx, path, cfg)
	}
	return Open(path, cfg)
}

// OpenExistingAt opens a database that must exist (never creating one)
// for writing: it takes the writer lock and refuses a shard.
func OpenExistingAt(ctx context.Context, path string) (Store, error) {
	if IsURL(path) {
		return OpenPGExisting(ctx, path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return OpenExisting(path)
}

// OpenReadOnlyAt opens a database that must exist for reading only.
func OpenReadOnlyAt(ctx context.Context, path string) (Store, error) {
	if IsURL(path) {
		return OpenPGExisting(ctx, path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return OpenReadOnly(path)
}
