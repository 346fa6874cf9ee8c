package main

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

// newRoot builds the whole command tree. Each subcommand lives in its own file and only parses
// flags and calls a package.
func newRoot() *cobra.Command { return newRootFor(nil) }

// newRootFor builds the command tree args need. When args start with the name or an alias of a
// registered subcommand, that subcommand is the only one built: defining the flags of all of
// them (a hundred-odd, each with its help text and completion) and cobra's completion command
// was about a tenth of `sentinel version`, for commands the process would never run. Anything
// else (no arguments, a flag first, help, completion, a typo that wants suggestions) gets the
// whole tree. What a command prints, its help included, is the same in both trees
// (TestPartialTreeHelpIsTheSame).
func newRootFor(args []string) *cobra.Command {
	root := newBareRoot()
	if len(args) > 0 {
		if s, ok := lookupSubcommand(args[0]); ok {
			root.AddCommand(s.build())
			// The completion command is never the one run here (it is not registered).
			root.CompletionOptions.DisableDefaultCmd = true
			return root
		}
	}
	for _, s := range subcommands {
		root.AddCommand(s.build())
	}
	return root
}

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

// subcommand is a top-level command as registered: its name and aliases, known without building
// it, and what builds it. TestSubcommandNames holds the names to the built commands'.
type subcommand struct {
	name    string
	aliases []string
	build   func() *cobra.Command
}

// subcommands are registered by the files that define them (rules.go, probe.go, ...), so adding a
// command touches one file.
var subcommands []subcommand

// register adds a top-level command built by build, named name (the first word of its Use) with
// aliases.
func register(build func() *cobra.Command, name string, aliases ...string) {
	subcommands = append(subcommands, subcommand{name: name, aliases: aliases, build: build})
}

// lookupSubcommand is the registered subcommand called name or one of its aliases.
func lookupSubcommand(name string) (subcommand, bool) {
	for _, s := range subcommands {
		if s.name == name || slices.Contains(s.aliases, name) {
			return s, true
		}
	}
	return subcommand{}, false
}
