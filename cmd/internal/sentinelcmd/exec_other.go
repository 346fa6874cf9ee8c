//go:build !unix

package sentinelcmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

const exeSuffix = ".exe"

// execProgram runs path with args as a child with this process's standard streams, and exits
// with its status: without exec(2), the closest to running it in this process's place.
func execProgram(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt) // the child, in the same console, gets it and decides
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	os.Exit(0)
	return nil
}
