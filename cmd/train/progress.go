package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressState is what one progress line reports.
type progressState struct {
	played    int64         // games finished by the workers in this run
	merged    int64         // of those, merged into the database
	total     int64         // games in the database
	positions int64         // positions in the database (refreshed every 10 s)
	target    int64         // -games, or 0
	deadline  time.Duration // -duration, or 0
	elapsed   time.Duration
	dbBytes   int64
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
		fmt.Fprintf(p.w, "\r%-100s", line)
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// end finishes a live line.
func (p *progress) end() {
	if p.tty && p.shown {
		fmt.Fprintln(p.w)
	}
}

func (s progressState) String() string {
	rate := 0.0
	if sec := s.elapsed.Seconds(); sec > 0 {
		rate = float64(s.played) / sec
	}
	eta := "-"
	switch {
	case s.target > 0 && rate > 0:
		left := time.Duration(float64(s.target-s.played) / rate * float64(time.Second))
		if s.deadline > 0 {
			left = min(left, s.deadline-s.elapsed)
		}
		eta = max(left, 0).Round(time.Second).String()
	case s.deadline > 0:
		eta = max(s.deadline-s.elapsed, 0).Round(time.Second).String()
	}
	return fmt.Sprintf("games %d (merged %d, database %d)  %.0f games/s  positions %d  db %s  elapsed %s  eta %s",
		s.played, s.merged, s.total, rate, s.positions, humanBytes(s.dbBytes), s.elapsed.Round(time.Second), eta)
}

func humanBytes(n int64) string {
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
