//go:build unix && !linux

package stdio

import "syscall"

// sysProcAttr puts the child in a process group of its own (see the Linux variant); other Unix
// systems have no parent-death signal, so a caller killed with SIGKILL can leave the child behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// exitedUnreaped cannot tell without reaping here; Stop then relies on the reap alone.
func exitedUnreaped(int) bool { return false }
