package stdio

import (
	"fmt"
	"syscall"
)

// signalGroup sends sig to the process group pgid leads.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	return syscall.Kill(-pgid, sig)
}

// signalName is the conventional name of a signal ("SIGKILL"), or its number.
func signalName(s syscall.Signal) string {
	switch s { //nolint:exhaustive // the signals a server is commonly ended by; the rest by number
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	}
	return fmt.Sprintf("signal %d", int(s))
}
