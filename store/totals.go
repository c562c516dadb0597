package store

// Totals are a database's game counts and its size on disk: what a job
// needs at its start and for its progress line, read without scanning the
// positions (Stats does that).
type Totals struct {
	Games, BlackWins, WhiteWins, Draws int64
	// Bytes: the database file with its WAL and young runs, or the
	// PostgreSQL database's size.
	Bytes int64
}
