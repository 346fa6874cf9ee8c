// Package cli holds what every Sentinel, broker and fixture command shares: the exit-code
// contract, implemented once. 0 the target passed; 1 the target failed the gate (or a verification
// found a break); 2 the program could not run (bad flags, unreachable endpoint, internal error).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// The three exit codes of the contract.
const (
	ExitPass      = 0
	ExitFail      = 1
	ExitCannotRun = 2
)

// ExitCoder is an error that carries its own exit code (report.GateError, for one).
type ExitCoder interface{ ExitCode() int }

// ExitCode maps an error to the contract: nil is 0, an ExitCoder says its own, anything else means
// the program could not run (2). This is the only place an exit code is decided.
func ExitCode(err error) int {
	var e ExitCoder
	switch {
	case err == nil:
		return ExitPass
	case errors.As(err, &e):
		return e.ExitCode()
	default:
		return ExitCannotRun
	}
}

// Failed wraps err so that it exits 1: the target (or the checked artefact) failed, the tool ran.
func Failed(err error) error { return &codeError{err: err, code: ExitFail} }

type codeError struct {
	err  error
	code int
}

func (e *codeError) Error() string { return e.err.Error() }
func (e *codeError) Unwrap() error { return e.err }
func (e *codeError) ExitCode() int { return e.code }

// Main runs a cobra root with a context cancelled on SIGINT/SIGTERM, prints the error (if any)
// on stderr, and returns the exit code for os.Exit.
func Main(root *cobra.Command, args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root.SetArgs(args)
	root.SilenceErrors = true
	root.SilenceUsage = true
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", root.Name(), err)
	}
	return ExitCode(err)
}
