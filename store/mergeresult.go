package store

// MergeResult reports what Merge did.
type MergeResult struct {
	ShardID       string // the source's id (a shard's, or a database's db_id)
	AlreadyMerged bool   // this very source, in this state, was merged before: nothing changed
	Games         int64  // games added
	Moves         int64  // (key, move) rows in the source
	Positions     int64  // positions in the source
	Promoted      int64  // positions that reached the prune threshold with it
	// A teacher shard: the teacher games it added, and those of its games
	// already stored (the same generation's game, from another shard:
	// played again after a member of the loop was lost), left as they were.
	TeacherGames int64
	Duplicates   int64
}
