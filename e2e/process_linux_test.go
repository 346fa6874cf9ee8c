//go:build linux

package e2e

import (
	"os/exec"
	"syscall"
)

// configureChild makes the kernel kill a started server if the test process dies first (a go test
// timeout, a crash), so no fixture outlives the run that started it.
func configureChild(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
