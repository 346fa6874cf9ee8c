package main

import (
	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
)

// newRoot builds the whole command tree.
func newRoot() *cobra.Command { return newRootFor(nil) }

// newRootFor builds the command tree args need (sentinelcmd.Registry.RootFor: only the command
// named first, when one is).
func newRootFor(args []string) *cobra.Command { return commands.RootFor(newBareRoot, args) }

// newBareRoot is the root command without subcommands.
func newBareRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "sentinel",
		Short: "Audit MCP servers against the 2026-07-28 (stateless) protocol revision",
		Long: `Sentinel grades Model Context Protocol servers against every normative requirement of
the 2026-07-28 revision, each finding citing the spec clause, what was observed and what to change.

  sentinel probe --endpoint URL         grade an endpoint actively (alias: scan)
  sentinel probe -- CMD ARGS...         launch a stdio server and grade it over stdio
  sentinel deprecations --endpoint URL  what deprecated features it still uses, and when they go
  sentinel proxy --upstream URL         grade live traffic passively, storing findings
  sentinel shim -- CMD ARGS...          sit between a desktop client and its stdio server, grading
  sentinel tui --admin URL              watch a running proxy's or shim's findings live
  sentinel findings list|export         read or export what the proxy stored
  sentinel baseline write --from R.json accept today's failures, so CI fails only on new ones
  sentinel diff OLD.json NEW.json       regressions, fixes, unchanged between two saved results
  sentinel badge --from R.json          an SVG badge for a README
  sentinel ca init                      create the CA for --mitm HTTPS interception
  sentinel rules list                   what is checked, and how
  sentinel rules explain ID             one rule in full

Reports: every command that writes one takes --format (text, json, sarif, junit, markdown, html,
badge) and writes several at once with --output FORMAT=PATH. sentinel.yaml in the working
directory (or --config) holds a scan's settings; flags override it.

Exit codes: 0 the target passed the gate, 1 it failed the gate, 2 the scanner could not run or
did not finish (sentinel shim exits with its server's status instead). Shell completion, with flag values: sentinel completion bash|zsh|fish|powershell.`,
		Example: `  sentinel rules list --level MUST --check active
  sentinel probe --endpoint http://127.0.0.1:8080/mcp --format sarif --out sentinel.sarif
  sentinel proxy --upstream http://127.0.0.1:8080/mcp --listen 127.0.0.1:9100 --tui`,
	}
	root.Version = cli.VersionString()
	root.SetVersionTemplate("sentinel {{.Version}}\n")
	return root
}

func init() { register(func() *cobra.Command { return cli.VersionCommand("sentinel") }, "version") }

// commands are sentinel's top-level commands, registered by the files that define them
// (rules.go, probe.go, ...), so adding a command touches one file. The live-traffic commands are
// registered as stubs that hand the run to sentinel-proxy (sentinelcmd.LiveStub).
var commands sentinelcmd.Registry

// register adds a top-level command built by build, named name (the first word of its Use) with
// aliases.
func register(build func() *cobra.Command, name string, aliases ...string) {
	commands.Register(build, name, aliases...)
}

func init() {
	for _, c := range sentinelcmd.LiveCommands {
		register(sentinelcmd.LiveStub(c), c.Name)
	}
}
