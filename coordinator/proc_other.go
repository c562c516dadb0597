//go:build !linux

package coordinator

import (
	"syscall"
	"time"
)

// workerProcAttr: without Pdeathsig, workers notice their parent's death by
// polling their parent process id.
func workerProcAttr() *syscall.SysProcAttr { return nil }

// peakRSS is not measured here.
func peakRSS() (self, children int64) { return 0, 0 }

// cpuTimes is not measured here.
func cpuTimes() (self, children time.Duration) { return 0, 0 }
