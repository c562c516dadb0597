package coordinator

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressState is what one progress line reports.
type progressState struct {
	played       int64 // games finished by the workers in this run
	merged       int64 // of those, merged into the database
	total        int64 // games in the database
	backlog      int64 // shards published and not yet merged
	backlogBytes int64
	backlogGames int64
	positions    int64 // positions in the database, as last counted (-1: not yet)
	target       int64 // -games, or 0
	deadline     time.Duration
	elapsed      time.Duration // of play (the workers' -duration)
	dbBytes      int64         // database, young runs and shards on disk
	busy         string        // what the merger is doing ("" idle)
	stored       bool          // false: storing off
	starting     bool          // no worker plays yet
	// A teacher job's: what its games are ("gen 3") and the generation's
	// quota (total is then its games stored).
	label string
	quota int64
}

// progress prints a live line on a terminal (rewritten in place each
// second) and a plain line every interval otherwise.
type progress struct {
	w     io.Writer
	tty   bool
	every time.Duration
	shown bool
}

func newProgress(w io.Writer, every time.Duration) *progress {
	p := &progress{w: w, every: every}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) interval() time.Duration {
	if p.tty {
		return time.Second
	}
	return p.every
}

func (p *progress) show(s progressState) {
	line := s.String()
	if p.tty {
		fmt.Fprintf(p.w, "\r%-120s", line)
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// end finishes a live line, so that the next message starts on its own.
func (p *progress) end() {
	if p.tty && p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

// String is the line. The ETA is the play time left (by -duration, or by
// -games at the rate so far) plus the time to merge the shards waiting now
// at the rate merging has kept.
func (s progressState) String() string {
	if s.label != "" {
		return s.teacherLine()
	}
	if s.starting {
		line := "starting: the workers load the blacklist and the model"
		if s.busy != "" {
			line += "; " + s.busy
		}
		return line
	}
	sec := s.elapsed.Seconds()
	rate := 0.0
	if sec > 0 {
		rate = float64(s.played) / sec
	}
	eta := "-"
	var play time.Duration = -1
	switch {
	case s.target > 0 && rate > 0:
		play = time.Duration(float64(s.target-s.played) / rate * float64(time.Second))
		if s.deadline > 0 {
			play = min(play, s.deadline-s.elapsed)
		}
	case s.deadline > 0:
		play = s.deadline - s.elapsed
	}
	if play >= 0 {
		left := max(play, 0)
		if s.stored && s.merged > 0 && sec > 0 {
			left += time.Duration(float64(s.backlogGames) / (float64(s.merged) / sec) * float64(time.Second))
		}
		eta = left.Round(time.Second).String()
	}
	line := fmt.Sprintf("games %d  %.0f games/s", s.played, rate)
	if s.stored {
		positions := "-"
		if s.positions >= 0 {
			positions = fmt.Sprint(s.positions)
		}
		line += fmt.Sprintf("  merged %d (database %d)  backlog %d shards %s  positions %s  db %s",
			s.merged, s.total, s.backlog, HumanBytes(s.backlogBytes), positions, HumanBytes(s.dbBytes))
		if s.busy != "" {
			line += "  " + s.busy
		}
	}
	return line + fmt.Sprintf("  played %s  eta %s", s.elapsed.Round(time.Second), eta)
}

// teacherLine is a teacher job's line: its games, the generation's games
// stored of its quota, the backlog and what the merger does.
func (s progressState) teacherLine() string {
	if s.starting {
		return s.label + ": starting: the workers load the models"
	}
	rate := 0.0
	if sec := s.elapsed.Seconds(); sec > 0 {
		rate = float64(s.played) / sec
	}
	eta := "-"
	if rate > 0 && s.target > s.played {
		eta = time.Duration(float64(s.target-s.played) / rate * float64(time.Second)).Round(time.Second).String()
	}
	line := fmt.Sprintf("%s: teacher games %d  %.2f games/s  stored %d of %d  backlog %d shards %s",
		s.label, s.played, rate, s.total, s.quota, s.backlog, HumanBytes(s.backlogBytes))
	if s.busy != "" {
		line += "  " + s.busy
	}
	return line + fmt.Sprintf("  played %s  eta %s", s.elapsed.Round(time.Second), eta)
}

func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
