package coordinator

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
)

// WorkerAbout is the help of the worker command (its flags are those
// workerArgs and teacherArgs write).
const WorkerAbout = `
Internal: one worker, started by "train run" (self-play) or "train loop"
(teacher games). A self-play worker loads the blacklist and the model,
prints "playing" and plays games (for -duration from then, or -games),
aggregates them in memory, and publishes them as sealed shard files in
-dir, printing "published PATH GAMES BYTES" for each and "played N" as it
goes. Without -dir it plays in memory only (storing off). With -gate it
waits after each published shard for a line on stdin, the coordinator's
go-ahead (the backlog bound), or for the end of stdin. With -teacher it is
a teacher worker: it loads the models, prints "playing", and then prints
"claim" and plays the games the answer on stdin names ("play I J …"; "done"
or the end of stdin ends it), publishing them as a teacher shard in -dir,
"played N" after each game. On SIGTERM or SIGINT, or when its parent dies,
it publishes the games it finished and exits 0.`

// WorkerFlags registers the worker command's flags on fs; once they are
// parsed, the returned function checks them and gives the worker's
// configuration (ErrWorkerUsage for a bad command line) and whether it
// reads the coordinator's lines on stdin (started with -gate, or a
// teacher worker): its command then passes them as WorkerConfig.In. The
// coordinator's workerArgs and teacherArgs write these flags: both ends
// are here.
func WorkerFlags(fs *flag.FlagSet) func() (WorkerConfig, bool, error) {
	var (
		w             WorkerConfig
		conf, teacher string
		gate          bool
	)
	fs.StringVar(&w.DB, "db", "", "main database (read for the blacklist)")
	fs.StringVar(&w.Dir, "dir", "", "shard directory (none: storing off)")
	fs.StringVar(&conf, "config", "", "game configuration (JSON)")
	fs.StringVar(&teacher, "teacher", "", "a teacher worker's configuration (JSON)")
	fs.Uint64Var(&w.Seed, "seed", 0, "seed")
	fs.IntVar(&w.Index, "index", 0, "worker index")
	fs.IntVar(&w.Games, "games", 0, "games to play (0: for -duration)")
	fs.DurationVar(&w.Duration, "duration", 0, "play this long, from the first game (0: no limit)")
	fs.BoolVar(&gate, "gate", false, "after each published shard, wait for a line on stdin")
	return func() (WorkerConfig, bool, error) {
		if teacher != "" {
			w.Teacher = &TeacherConfig{}
			if err := json.Unmarshal([]byte(teacher), w.Teacher); err != nil {
				return w, true, fmt.Errorf("%w: -teacher: %v", ErrWorkerUsage, err)
			}
			if err := w.Teacher.Validate(); err != nil {
				return w, true, fmt.Errorf("%w: %v", ErrWorkerUsage, err)
			}
			if w.Dir == "" {
				return w, true, fmt.Errorf("%w: a teacher worker needs -dir", ErrWorkerUsage)
			}
			return w, true, nil
		}
		if err := json.Unmarshal([]byte(conf), &w.Game); err != nil {
			return w, gate, fmt.Errorf("%w: -config: %v", ErrWorkerUsage, err)
		}
		if err := w.Game.Validate(); err != nil {
			return w, gate, fmt.Errorf("%w: %v", ErrWorkerUsage, err)
		}
		if w.Games == 0 && w.Duration <= 0 {
			return w, gate, fmt.Errorf("%w: needs -games or -duration", ErrWorkerUsage)
		}
		return w, gate, nil
	}
}

// ErrWorkerUsage: the worker command's flags are wrong.
var ErrWorkerUsage = errors.New("worker")
