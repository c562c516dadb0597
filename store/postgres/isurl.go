package postgres

import "strings"

// IsURL reports whether a -db argument names a PostgreSQL server
// (postgres:// or postgresql://) rather than a SQLite file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}
