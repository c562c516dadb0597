// Package backend is the one place that opens a store by its -db argument:
// a SQLite file or a PostgreSQL URL ([IsURL]). [OpenAt], [OpenExistingAt],
// [OpenReadOnlyAt] and [OpenForMerge] dispatch to package sqlite or
// package postgres; callers then use the interfaces of package store.
package backend
