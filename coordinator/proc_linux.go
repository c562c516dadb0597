package coordinator

import (
	"syscall"
	"time"
)

// workerProcAttr makes the kernel send SIGTERM to a worker when the
// coordinator dies (even by kill -9), so the worker publishes and exits.
func workerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// peakRSS is the peak resident memory of this process and of its largest
// finished child (a worker), in bytes.
func peakRSS() (self, children int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = ru.Maxrss << 10
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = ru.Maxrss << 10
	}
	return self, children
}

// cpuTimes is the CPU time (user and system) of this process and of its
// finished children (the workers).
func cpuTimes() (self, children time.Duration) {
	var ru syscall.Rusage
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = tv(ru.Utime) + tv(ru.Stime)
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = tv(ru.Utime) + tv(ru.Stime)
	}
	return self, children
}
