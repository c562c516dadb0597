// Package sqlite is the embedded SQLite backend of package store (the
// default): a database is one file (with DB.lock, the writer lock, beside
// it). [Open], [OpenExisting] and [OpenReadOnly] give a [DB], which
// implements store.Store; [DB.Check] and [DB.Repair] verify and mend a
// database. Its schema, migrations (embedded from migrations/*.sql) and
// design are described in package store's documentation.
package sqlite
