//go:build !linux

package e2e

import (
	"os/exec"
	"time"
)

// configureChild does nothing where the kernel offers no parent-death signal; t.Cleanup still
// stops every server a passing or failing test started.
func configureChild(*exec.Cmd) {}

// childCPU cannot read another process's CPU time here; ok is false.
func childCPU(int) (time.Duration, bool) { return 0, false }
