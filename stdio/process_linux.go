package stdio

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the child in a process group of its own, so that a signal meant for it reaches
// whatever it forked (npx starts node, a shell script starts its server) and a Ctrl-C in the
// caller's terminal reaches it only through Stop, and asks the kernel to SIGKILL it should the
// caller die without stopping it (kill -9, a crash).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// exitedUnreaped says whether the child pid has already ended, reaped or not, without reaping
// it (WNOWAIT leaves that to cmd.Wait): a child that exited on its own a moment ago is a zombie
// until the reaping goroutine runs, and on a loaded machine that can take a while.
func exitedUnreaped(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
	if errors.Is(err, unix.ECHILD) {
		return true // already reaped
	}
	return err == nil && info.Signo != 0 // Signo is SIGCHLD once a child is waitable, else untouched
}
