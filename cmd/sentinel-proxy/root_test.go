package main

import (
	"slices"
	"testing"

	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd/cmdtest"
)

// runSentinel runs this program's command tree in process with args (cmdtest.Execute).
func runSentinel(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return cmdtest.Execute(t, newRoot(), args...)
}

// TestLiveCommandsAreListed: the commands sentinel hands to this program are exactly the ones it
// has (besides version), under the same names and with the same summaries, so `sentinel --help`
// lists what `sentinel proxy --help` and the others then show.
func TestLiveCommandsAreListed(t *testing.T) {
	var have []string
	for _, c := range newRoot().Commands() {
		if c.Name() == "version" || c.Name() == "completion" || c.Name() == "help" {
			continue
		}
		have = append(have, c.Name())
		i := slices.IndexFunc(sentinelcmd.LiveCommands, func(l sentinelcmd.LiveCommand) bool { return l.Name == c.Name() })
		if i < 0 {
			t.Errorf("sentinel-proxy has %q, which sentinelcmd.LiveCommands does not list: sentinel would not hand it over", c.Name())
			continue
		}
		if got := sentinelcmd.LiveCommands[i].Short; got != c.Short {
			t.Errorf("%s: sentinel lists it as %q, the command says %q", c.Name(), got, c.Short)
		}
		if len(c.Aliases) > 0 {
			t.Errorf("%s has aliases %q, which sentinel does not hand over", c.Name(), c.Aliases)
		}
	}
	var listed []string
	for _, l := range sentinelcmd.LiveCommands {
		listed = append(listed, l.Name)
	}
	slices.Sort(have)
	slices.Sort(listed)
	if !slices.Equal(have, listed) {
		t.Errorf("sentinel-proxy has %q, sentinel hands over %q", have, listed)
	}
}

// TestSubcommandNames: see cmdtest.CheckNames.
func TestSubcommandNames(t *testing.T) { cmdtest.CheckNames(t, &commands, newBareRoot) }

// TestPartialTreeHelpIsTheSame: see cmdtest.CheckPartialTreeHelp.
func TestPartialTreeHelpIsTheSame(t *testing.T) {
	cmdtest.CheckPartialTreeHelp(t, &commands, newBareRoot)
}
