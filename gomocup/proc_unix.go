//go:build unix

package gomocup

import (
	"os/exec"
	"syscall"
)

// isolate puts the engine in its own process group, so that killing it
// also kills any helper it started (which would otherwise keep its output
// open).
func isolate(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killTree(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Process.Kill()
	}
}
