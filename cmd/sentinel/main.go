// Command sentinel audits MCP servers against the 2026-07-28 revision of the Model Context
// Protocol: `probe` grades an endpoint actively, `proxy` grades live traffic passively, `rules`
// explains what is checked, and `findings` exports what the proxy stored.
package main

import (
	"os"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

func main() {
	os.Exit(cli.Main(newRootFor(os.Args[1:]), os.Args[1:], os.Stderr))
}
