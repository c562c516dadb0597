// Package sqlerr says what go-sqlite3's errors mean to the store: the
// SQLite backend and its young tier (store/sqlite/internal/young) map them
// to the store's sentinels here, in one place.
package sqlerr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-sqlite3"

	"ocvist/store"
)

// Classify maps SQLite's "not a database" and corruption codes (and a
// missing table) to store.ErrNotOcvist and store.ErrCorrupt; other errors,
// and nil, are returned as they are.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrNotADB:
			return fmt.Errorf("%w: %v", store.ErrNotOcvist, err)
		case sqlite3.ErrCorrupt:
			return fmt.Errorf("%w: %v", store.ErrCorrupt, err)
		}
	}
	if strings.Contains(err.Error(), "no such table") {
		return fmt.Errorf("%w: %v", store.ErrNotOcvist, err)
	}
	return err
}

// IsReadOnly reports SQLite's "attempt to write a readonly database",
// which a read-only connection meets at a hot journal.
func IsReadOnly(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrReadonly
}
