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

// newBareRoot is the root command without subcommands. It is called "sentinel", as users run
// these commands (`sentinel proxy ...`), so help and errors name what they typed.
func newBareRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "sentinel",
		Short: "Sentinel's live-traffic commands: proxy, shim, tui, findings, ca",
		Long: `These are Sentinel's live-traffic commands; run them as sentinel CMD (sentinel hands them to
this program, sentinel-proxy, installed next to it).

  sentinel proxy --upstream URL         grade live traffic passively, storing findings
  sentinel shim -- CMD ARGS...          sit between a desktop client and its stdio server, grading
  sentinel tui --admin URL              watch a running proxy's or shim's findings live
  sentinel findings list|export         read or export what the proxy stored
  sentinel ca init                      create the CA for --mitm HTTPS interception

Exit codes: 0 the target passed the gate, 1 it failed the gate, 2 the program could not run or
did not finish (sentinel shim exits with its server's status instead).`,
	}
	root.Version = cli.VersionString()
	root.SetVersionTemplate("sentinel {{.Version}}\n")
	return root
}

func init() { register(func() *cobra.Command { return cli.VersionCommand("sentinel") }, "version") }

// commands are this program's top-level commands, registered by the files that define them.
var commands sentinelcmd.Registry

// register adds a top-level command built by build, named name (the first word of its Use) with
// aliases.
func register(build func() *cobra.Command, name string, aliases ...string) {
	commands.Register(build, name, aliases...)
}
