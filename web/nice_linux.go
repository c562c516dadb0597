package web

import (
	"runtime"
	"syscall"
)

// lowerPriority runs the calling goroutine on its own OS thread at
// niceness nice (when above 0). The thread is never unlocked, so when the
// goroutine ends the runtime ends the thread (or, for the main thread,
// parks it for good), and its priority never reaches other work; threads
// the runtime starts meanwhile come from its template thread, at the
// process's priority (checked: after a search only the thread it ran on
// is niced).
func lowerPriority(nice int) {
	if nice <= 0 {
		return
	}
	runtime.LockOSThread()
	syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice) // best effort: at worst the search runs at the process's priority
}
