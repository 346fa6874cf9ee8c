package sentinelcmd

import (
	"fmt"
	"os"
	"syscall"
)

// execProgram replaces this process with path run with args. Sentinel builds for Unix only
// (README: the stdio transport and the admin state use process groups and signals), so exec(2) is
// always there.
func execProgram(path string, args []string) error {
	if err := syscall.Exec(path, append([]string{path}, args...), os.Environ()); err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	return nil // not reached: Exec returns only on failure
}
