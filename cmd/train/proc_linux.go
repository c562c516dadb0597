package main

import "syscall"

// workerProcAttr makes the kernel send SIGTERM to a worker when the
// coordinator dies (even by kill -9), so the worker publishes and exits.
func workerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
