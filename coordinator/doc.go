// Package coordinator runs the trainer's jobs of worker processes: every
// game the trainer plays is played by a worker, published as a sealed
// shard in the job's own folder and merged into the store exactly once,
// whoever plays it. One job machinery (job.go: workers, their lines, the
// merger, the backlog bound, the progress line, stops) serves two kinds
// of workers:
//
//   - Run is the training job of "train run": self-play workers (Work)
//     whose shards of statistics it merges as they come, pruning and
//     concluding; it keeps nothing from being lost or counted twice when
//     it is stopped, killed or loses its database server;
//   - PlayTeacher is one machine's share of a generation of the learning
//     loop (package loop): teacher workers (TeacherConfig) that ask for
//     games ("claim") and get a block's games at a time, claimed in the
//     database by the loop's member (store.LoopMember), and publish them
//     as teacher shards.
//
// A job that dies leaves its folder; the next job, "train prune" or the
// loop adopts it (AdoptShards) and merges what it holds.
//
// It is the one library that starts processes; its goroutines (one reader
// per worker process and the merger) end before Run or PlayTeacher
// returns.
package coordinator
