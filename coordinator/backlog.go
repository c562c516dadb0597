package coordinator

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ByteSize is a size in bytes; as a flag value (flag.Value) it is written
// with an optional unit: 2GiB, 500MiB, 64KiB, 1GB, 4096.
type ByteSize int64

var byteUnits = []struct {
	suffix string
	n      int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1},
}

// BacklogAuto, as -backlog, is the default bound: 2 GiB, or half the space
// free on the shard folder's disk when that is less (see backlogBound).
const BacklogAuto ByteSize = -1

// String is the size with a binary unit ("auto" for BacklogAuto).
func (b *ByteSize) String() string {
	if *b == BacklogAuto {
		return "auto"
	}
	return HumanBytes(int64(*b))
}

// Set parses a size or "auto", one clear error for anything else.
func (b *ByteSize) Set(s string) error {
	if strings.TrimSpace(s) == "auto" {
		*b = BacklogAuto
		return nil
	}
	num, unit := strings.TrimSpace(s), int64(1)
	for _, u := range byteUnits {
		if v, ok := strings.CutSuffix(num, u.suffix); ok {
			num, unit = strings.TrimSpace(v), u.n
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v >= 0 && v*float64(unit) <= 1<<62) { // NaN too
		return fmt.Errorf("%q is not a size (e.g. 2GiB, 500MiB, 4096)", s)
	}
	*b = ByteSize(v * float64(unit))
	return nil
}

// admit answers a worker that has just published a shard (it waits for
// the answer when started with -gate, see gated): a go-ahead at once while
// the shards waiting to be merged stay under -backlog, or, at the bound,
// none until the merges have brought the backlog down to half of it (see
// throttle). So the backlog passes the bound by at most one shard per
// worker, whatever the timing, and a held worker plays nothing, keeping
// memory flat. The first hold is the one warning line; the summary counts
// them all. It runs in the main loop only.
func (j *job) admit(w *worker) {
	n, bound := j.st.backlogBytes.Load(), int64(j.cfg.Backlog)
	if bound <= 0 || n < bound || j.stopping {
		j.kind.proceed(w)
		return
	}
	if j.holding() == 0 {
		j.pauses++
		j.pausedAt = time.Now()
		if j.pauses == 1 {
			fmt.Fprintf(j.log, "\nwarning: %s of shards wait to be merged (-backlog %s): the database is away or slower than the workers; workers pause after their next shard until the backlog is under %s\n",
				HumanBytes(n), HumanBytes(bound), HumanBytes(bound/2))
		}
	}
	w.held = true
}

// throttle lets the held workers go on once the backlog is down to half
// the bound, or when the job is stopping.
func (j *job) throttle() {
	if j.holding() == 0 || (j.st.backlogBytes.Load() > int64(j.cfg.Backlog)/2 && !j.stopping) {
		return
	}
	j.pausedFor += time.Since(j.pausedAt)
	for _, w := range j.workers {
		if w.held {
			w.held = false
			j.kind.proceed(w)
		}
	}
}

// exited marks a worker done; one that was held no longer is.
func (j *job) exited(w *worker) {
	w.done = true
	if w.held {
		w.held = false
		if j.holding() == 0 {
			j.pausedFor += time.Since(j.pausedAt)
		}
	}
}

// gated reports whether the workers wait for a go-ahead after each shard.
func (j *job) gated() bool { return j.cfg.Backlog > 0 && j.shards != nil }

// holding counts the workers waiting for a go-ahead.
func (j *job) holding() (n int) {
	for _, w := range j.workers {
		if w.held {
			n++
		}
	}
	return n
}

// goAhead tells a self-play worker to play on: a line on its stdin. A
// worker that has exited meanwhile cannot read it, which does no harm.
func (w *worker) goAhead() { w.tell("go") }

// tell writes a line to the worker's stdin.
func (w *worker) tell(line string) {
	w.held = false
	io.WriteString(w.gate, line+"\n")
}

// backlogBound is the bound -backlog b sets on a disk with free bytes
// free: b, or for BacklogAuto 2 GiB or half the free space, whichever is
// less (never under 64 MiB: a few shards must be able to wait).
func backlogBound(b ByteSize, free int64) ByteSize {
	if b != BacklogAuto {
		return b
	}
	return ByteSize(max(min(2<<30, free/2), 64<<20))
}

// freeBytes is the space free for this user on the disk of path (-1 if it
// cannot be read).
func freeBytes(path string) int64 {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(path, &fs); err != nil {
		return -1
	}
	return int64(fs.Bavail) * fs.Bsize
}

// backlogText is a -backlog value as the messages show it.
func backlogText(b ByteSize) string {
	if b <= 0 {
		return "0: no bound"
	}
	return HumanBytes(int64(b))
}

// backlogSummary is the summary's line on pauses, if there were any.
func (j *job) backlogSummary() string {
	if j.pauses == 0 {
		return ""
	}
	return fmt.Sprintf("backlog: workers were held %d time(s), %s in all, waiting for merges (-backlog %s)\n",
		j.pauses, j.pausedFor.Round(100*time.Millisecond), backlogText(j.cfg.Backlog))
}
