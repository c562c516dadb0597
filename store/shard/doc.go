// Package shard is the run (shard) file format of package store, its one
// home: the sealed, sorted, immutable files that workers publish
// ([Batch.WriteShard], [WriteTeacherShard]), that a database exports and
// keeps as young runs, and that every backend merges. It writes them
// ([Writer], [Create], [Start]), reads and checks them ([Reader], [Open],
// [Verify], [ReadShard], [ReadTeacherShard]) and combines sorted streams
// of positions ([Merger], [Source]), which the backends use to merge,
// prune and read. The format is specified in run.go, with its version.
//
// The package never prints, exits or starts goroutines. Errors wrap the
// sentinels of package store (store.ErrCorrupt, store.ErrUnpublished,
// store.ErrSchemaVersion, …).
package shard
