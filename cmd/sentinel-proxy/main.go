// Command sentinel-proxy holds Sentinel's long-running commands about live traffic: `proxy`
// grades traffic passively as a reverse or forward proxy, `shim` does the same between a desktop
// client and a stdio server, `tui` watches either live, `findings` lists or exports what they
// stored, and `ca` manages the interception CA. Users run them as `sentinel proxy ...`: the
// sentinel program hands these commands over (package cmd/internal/sentinelcmd says why they
// are a program of their own).
package main

import (
	"os"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

func main() {
	os.Exit(cli.Main(newRootFor(os.Args[1:]), os.Args[1:], os.Stderr))
}
