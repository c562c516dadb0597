// Package meta is what both backends of package store record in their
// meta table: the reserved keys, a database's [Header] read from them and
// the check that it fits a wanted store.Config ([Compatible]).
package meta
