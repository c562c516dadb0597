package main

import "syscall"

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
