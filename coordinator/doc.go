// Package coordinator is the training job of "train run": worker
// processes that play self-play games and publish sealed shards, and the
// coordinator that merges each shard into the store as it comes, prunes
// and concludes, shows progress and keeps nothing from being lost or
// counted twice when it is stopped, killed or loses its database server.
//
// It is the one library that starts processes; its goroutines (one reader
// per worker process and the merger) end before Run returns.
package coordinator
