//go:build unix

package sentinelcmd

import (
	"fmt"
	"os"
	"syscall"
)

const exeSuffix = ""

// execProgram replaces this process with path run with args.
func execProgram(path string, args []string) error {
	if err := syscall.Exec(path, append([]string{path}, args...), os.Environ()); err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	return nil // not reached: Exec returns only on failure
}
