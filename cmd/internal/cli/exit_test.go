package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/cobra"
)

// verdict is a Verdict for tests; report.Verdict is the real one (cmd/sentinel tests it end to end).
type verdict struct{ finished, failed bool }

func (v verdict) Finished() bool { return v.finished }
func (v verdict) Failed() bool   { return v.failed }

func TestExitForAndJudge(t *testing.T) {
	tests := []struct {
		name string
		v    verdict
		want int
	}{
		{"passed exits 0", verdict{finished: true}, ExitPass},
		{"failed exits 1", verdict{finished: true, failed: true}, ExitFail},
		{"unfinished exits 2", verdict{}, ExitCannotRun},
		{"unfinished with failures still exits 2", verdict{failed: true}, ExitCannotRun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExitFor(tt.v); got != tt.want {
				t.Errorf("ExitFor = %d, want %d", got, tt.want)
			}
			err := Judge(tt.v, "why")
			if got := ExitCode(fmt.Errorf("wrapped: %w", err)); (err == nil) != (tt.want == ExitPass) || (err != nil && got != tt.want) {
				t.Errorf("Judge = %v with exit %d, want exit %d", err, got, tt.want)
			}
		})
	}
	if ExitCode(errors.New("plain")) != ExitCannotRun {
		t.Error("a plain error must exit 2")
	}
}

// TestIsInstant: a command marked Instant, and one under it, runs without the signal handler;
// everything else, and whatever Find cannot place, keeps it.
func TestIsInstant(t *testing.T) {
	root := &cobra.Command{Use: "prog"}
	group := Instant(&cobra.Command{Use: "rules"})
	group.AddCommand(&cobra.Command{Use: "list", Run: func(*cobra.Command, []string) {}})
	root.AddCommand(VersionCommand("prog"), group,
		&cobra.Command{Use: "probe", Run: func(*cobra.Command, []string) {}})
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"version"}, true},
		{[]string{"rules", "list", "--format", "json"}, true},
		{[]string{"rules"}, true},
		{[]string{"probe", "--endpoint", "x"}, false},
		{[]string{"vresion"}, false}, // a typo: Find cannot place it
		{[]string{"help", "version"}, false},
		{nil, false},
	} {
		if got := isInstant(root, tt.args); got != tt.want {
			t.Errorf("isInstant(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
