// Package postgres is the PostgreSQL backend of package store, for one job
// on many machines: [Open] and [OpenExisting] connect to a server's
// database and give a [DB], which implements store.Store and
// store.ModelStore. Its schema is created and migrated from the
// migrations embedded from migrations/*.sql, recorded in the database.
package postgres
