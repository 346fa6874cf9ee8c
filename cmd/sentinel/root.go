package main

import (
	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

// newRoot builds the command tree. Each subcommand lives in its own file and only parses flags
// and calls a package.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "sentinel",
		Short: "Audit MCP servers against the 2026-07-28 (stateless) protocol revision",
		Long: `Sentinel grades Model Context Protocol servers against every normative requirement of
the 2026-07-28 revision, each finding citing the spec clause, what was observed and what to change.

  sentinel probe --endpoint URL         grade an endpoint actively (alias: scan)
  sentinel deprecations --endpoint URL  what deprecated features it still uses, and when they go
  sentinel proxy --upstream URL         grade live traffic passively, storing findings
  sentinel tui --admin URL              watch a running proxy's findings live
  sentinel findings list|export         read or export what the proxy stored
  sentinel ca init                      create the CA for --mitm HTTPS interception
  sentinel rules list                   what is checked, and how
  sentinel rules explain ID             one rule in full

Exit codes: 0 the target passed the gate, 1 it failed the gate, 2 the scanner could not run.`,
		Example: `  sentinel rules list --level MUST --check active
  sentinel probe --endpoint http://127.0.0.1:8080/mcp --format sarif --out sentinel.sarif
  sentinel proxy --upstream http://127.0.0.1:8080/mcp --listen 127.0.0.1:9100 --tui`,
	}
	root.AddCommand(cli.VersionCommand("sentinel"))
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	return root
}

// subcommands are registered by the files that define them (rules.go, probe.go, ...), so adding a
// command touches one file.
var subcommands []func() *cobra.Command
