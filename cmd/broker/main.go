// Command broker is Sentinel's reference MCP server: an evaluation service (flag_injection,
// check_groundedness) speaking the 2026-07-28 stateless revision over streamable HTTP or stdio.
//
//	broker serve --http 127.0.0.1:8080 --config broker.json
//	broker serve --stdio --dev
//	broker token keygen --out ./keys
//	broker token mint --key ./keys/private.pem --issuer https://issuer --audience http://127.0.0.1:8080/mcp --tenant acme --subject alice
//
// This command only parses flags and calls package broker; it must not import Sentinel's harness.
package main

import (
	"os"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

func main() {
	os.Exit(cli.Main(newRoot(), os.Args[1:], os.Stderr))
}
