package sentinelcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
)

// LiveProgram is the name of the binary that holds the live-traffic commands. It is installed
// next to sentinel (`make build`, `go install ./cmd/...`).
const LiveProgram = "sentinel-proxy"

// LiveCommand is a top-level command that lives in LiveProgram: what `sentinel --help` lists for
// it without linking its code.
type LiveCommand struct {
	Name  string
	Short string
}

// LiveCommands are the commands sentinel hands to LiveProgram. Each one's Short is the real
// command's, which sentinel-proxy's tests hold it to (TestLiveCommandsAreListed).
var LiveCommands = []LiveCommand{
	{"proxy", "Grade live MCP traffic passively, as a reverse or forward proxy"},
	{"shim", "Sit between a desktop client and a stdio MCP server, passing bytes through unchanged"},
	{"tui", "Watch a running proxy's findings live and fire probes on demand"},
	{"findings", "List or export what `sentinel proxy` stored"},
	{"ca", "Manage the interception CA that `sentinel proxy --mitm` signs certificates with"},
}

// isLive reports whether name is a command of LiveProgram.
func isLive(name string) bool {
	return slices.ContainsFunc(LiveCommands, func(c LiveCommand) bool { return c.Name == name })
}

// Live reports whether args (without the program name) run a command of LiveProgram: the command
// itself, or help or shell completion for it (`sentinel help proxy`, what a shell sends to
// complete `sentinel proxy --`), which only the program that has the command can answer.
func Live(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if isLive(args[0]) {
		return true
	}
	switch args[0] {
	case "help", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return len(args) > 1 && isLive(args[1])
	}
	return false
}

// LiveStub is what sentinel's command tree holds for a command of LiveProgram: listed in help and
// completion with its real summary, and handing any run that reaches it to LiveProgram (main
// hands them over before a tree is built; this catches the rest, such as a root flag first).
func LiveStub(c LiveCommand) func() *cobra.Command {
	return func() *cobra.Command {
		return &cobra.Command{
			Use:                c.Name,
			Short:              c.Short,
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return ExecLive(append([]string{c.Name}, args...))
			},
		}
	}
}

// FindLive is the path of LiveProgram: next to the running executable (symbolic links resolved),
// else on PATH. The error says how to install it.
func FindLive() (string, error) {
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), LiveProgram)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(LiveProgram)
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("looking for %s: %w", LiveProgram, err)
	}
	return "", fmt.Errorf("the live-traffic commands (proxy, shim, tui, findings, ca) are in the %s program, found neither next to sentinel nor on PATH: install both with `go install github.com/mcp-sentinel/sentinel/cmd/...` or `make build`", LiveProgram)
}

// ExecLive runs LiveProgram with args in place of this process (the same process: its
// PID, signals, standard streams and exit status are the command's own, which a supervisor or
// the desktop client of `sentinel shim` relies on). It returns only on failure.
func ExecLive(args []string) error {
	path, err := FindLive()
	if err != nil {
		return err
	}
	return execProgram(path, args)
}
