//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// configureChild makes the kernel kill a started server if the test process dies first (a go test
// timeout, a crash), so no fixture outlives the run that started it.
func configureChild(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// childCPU is the user plus system time the process pid has used so far, all its threads, from
// /proc/<pid>/stat; ok is false when it cannot be read. The kernel counts it in clock ticks
// (USER_HZ, 100 a second on Linux), so it is a figure to take over many scans, not one.
func childCPU(pid int) (cpu time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: the fields are counted after it.
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14 of proc_pid_stat(5)
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const userHZ = 100
	return time.Duration(utime+stime) * time.Second / userHZ, true
}
