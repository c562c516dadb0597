package web

import (
	"runtime"
	"syscall"
)

// lowerPriority runs the calling goroutine on its own OS thread at
// niceness nice (when above 0). The thread is never unlocked, so it ends
// with the goroutine and its priority never reaches other work.
func lowerPriority(nice int) {
	if nice <= 0 {
		return
	}
	runtime.LockOSThread()
	syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice) // best effort: at worst the search runs at the process's priority
}
