package web

import (
	"runtime"
	"syscall"
	"unsafe"
)

// schedIdle is Linux's SCHED_IDLE scheduling policy (sched(7)).
const schedIdle = 5

// lowerPriority runs the calling goroutine on its own OS thread at
// niceness nice (when above 0); at 19, the lowest, the thread also joins
// the idle scheduling class (SCHED_IDLE): it runs only on a core that
// nothing else wants, and any other thread that wakes preempts it. The
// thread is never unlocked, so when the goroutine ends the runtime ends
// the thread (or, for the main thread, parks it for good), and its
// priority never reaches other work; threads the runtime starts meanwhile
// come from its template thread, at the process's priority (checked:
// after a search only the thread it ran on is niced).
func lowerPriority(nice int) {
	if nice <= 0 {
		return
	}
	runtime.LockOSThread()
	tid := syscall.Gettid()
	syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice) // best effort: at worst the search runs at the process's priority
	if nice == 19 {
		var param struct{ priority int32 } // struct sched_param, 0 for SCHED_IDLE
		syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle, uintptr(unsafe.Pointer(&param)))
	}
}
