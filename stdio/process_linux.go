package stdio

import "syscall"

// sysProcAttr puts the child in a process group of its own, so that a signal meant for it reaches
// whatever it forked (npx starts node, a shell script starts its server) and a Ctrl-C in the
// caller's terminal reaches it only through Stop, and asks the kernel to SIGKILL it should the
// caller die without stopping it (kill -9, a crash).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
