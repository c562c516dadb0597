package postgres

import (
	"testing"

	"ocvist/store/sqlite"
	"ocvist/store/storetest"
)

// mustOpen opens a SQLite database of storetest.Config at path, closed when the test ends.
func mustOpen(t testing.TB, path string) *sqlite.DB {
	t.Helper()
	d, err := sqlite.Open(path, storetest.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
