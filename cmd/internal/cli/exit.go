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

// ExitCoder is an error that carries its own exit code (Failed, Judge).
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

// Verdict is what a finished check concluded about its target. report.Verdict implements it;
// cli reads only these two answers, so it does not import the harness (the broker's commands
// share this package).
type Verdict interface {
	// Finished reports whether the check ran to the end; a check that did not finish (an
	// incomplete scan, a target that could not be graded) exits 2.
	Finished() bool
	// Failed reports whether the target failed: exit 1.
	Failed() bool
}

// ExitFor is the exit code of a verdict: 0 passed, 1 failed, 2 did not finish. It is the one
// place a verdict becomes an exit code.
func ExitFor(v Verdict) int {
	switch {
	case !v.Finished():
		return ExitCannotRun
	case v.Failed():
		return ExitFail
	default:
		return ExitPass
	}
}

// Judge returns nil for a passing verdict, otherwise an error with message msg whose exit code
// is ExitFor(v).
func Judge(v Verdict, msg string) error {
	code := ExitFor(v)
	if code == ExitPass {
		return nil
	}
	return &codeError{err: errors.New(msg), code: code}
}

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
