// Command sentinel audits MCP servers against the 2026-07-28 revision of the Model Context
// Protocol: `probe` grades an endpoint actively, `rules` explains what is checked, `deprecations`
// lists what is on the removal clock; `proxy`, `shim`, `tui`, `findings` and `ca` are handed to
// the sentinel-proxy program (cmd/sentinel-proxy).
package main

import (
	"fmt"
	"os"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
)

func main() {
	args := os.Args[1:]
	if sentinelcmd.Live(args) {
		// proxy, shim, tui, findings and ca are sentinel-proxy's (package sentinelcmd says why).
		err := sentinelcmd.ExecLive(args)
		fmt.Fprintf(os.Stderr, "sentinel: %v\n", err)
		os.Exit(cli.ExitCannotRun)
	}
	os.Exit(cli.Main(newRootFor(args), args, os.Stderr))
}
