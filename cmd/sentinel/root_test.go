package main

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd/cmdtest"
)

// TestSubcommandNames: see cmdtest.CheckNames.
func TestSubcommandNames(t *testing.T) { cmdtest.CheckNames(t, &commands, newBareRoot) }

// TestPartialTreeHelpIsTheSame: for every command, what `sentinel CMD... --help` and a bad flag
// print is the same whether the process built the whole tree or only the command named first.
// The live-traffic stubs are left out: they hand any run to sentinel-proxy, whose own test
// checks them.
func TestPartialTreeHelpIsTheSame(t *testing.T) {
	var live []string
	for _, c := range sentinelcmd.LiveCommands {
		live = append(live, c.Name)
	}
	cmdtest.CheckPartialTreeHelp(t, &commands, newBareRoot, live...)
	if len(newRootFor([]string{"scan"}).Commands()) != 1 {
		t.Error("an alias did not build its command alone")
	}
}
