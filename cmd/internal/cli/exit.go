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
// on stderr, and returns the exit code for os.Exit. A command marked Instant gets a context
// that is never cancelled, and the default signal handling (the signal ends the process).
func Main(root *cobra.Command, args []string, stderr io.Writer) int {
	ctx := context.Background()
	if !isInstant(root, args) {
		c, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		ctx = c
	}
	root.SetArgs(args)
	root.SilenceErrors = true
	root.SilenceUsage = true
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", root.Name(), err)
	}
	return ExitCode(err)
}

// instantAnnotation is the cobra annotation Instant sets.
const instantAnnotation = "sentinel.instant"

// Instant marks cmd, and the commands under it, as finishing in milliseconds with nothing to
// close or flush: it prints and exits. Main installs no SIGINT/SIGTERM handler for it, so
// Ctrl-C ends it at once, the default way. Installing the handler is not free: os/signal
// starts a goroutine that blocks in the runtime and a locked thread, three OS threads in all,
// about 0.7 ms of CPU in a `sentinel version` that costs 5 (docs/performance.md). A command
// that stores, serves or scans keeps the handler, so it can stop cleanly.
func Instant(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[instantAnnotation] = "true"
	return cmd
}

// isInstant reports whether args name a command that is, or is under, one marked Instant.
// Anything Find cannot place (a typo, a flag before the command, cobra's help and completion
// commands, which exist only once Execute has added them) keeps the signal handler.
func isInstant(root *cobra.Command, args []string) bool {
	cmd, _, err := root.Find(args)
	if err != nil {
		return false
	}
	for c := cmd; c != nil && c != root; c = c.Parent() {
		if c.Annotations[instantAnnotation] != "" {
			return true
		}
	}
	return false
}
