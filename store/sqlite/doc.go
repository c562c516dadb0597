// Package sqlite is the embedded SQLite backend of package store (the
// default): a database is one file (with DB.lock, the writer lock, beside
// it). [Open], [OpenExisting] and [OpenReadOnly] give a [DB], which
// implements store.Store; [DB.Check] and [DB.Repair] verify and mend a
// database. Its schema, migrations (embedded from migrations/*.sql) and
// design are described in package store's documentation.
//
// Its young tier is the internal package young: the young runs' rows
// (young_runs) and bytes (young_data, in chunks), the young folder of a
// schema-4 database, and the writer's index of position ids that merges
// and prunes update; this package decides when a run is added, expired
// or dropped, in its own transactions. The internal package sqlerr maps
// the driver's errors to store's sentinels for both.
package sqlite
