package main

import (
	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "broker",
		Short: "Sentinel's reference MCP server: an evaluation service on the 2026-07-28 revision",
		Long: `broker serves two tools that score an AI agent's output, flag_injection and
check_groundedness, over stateless streamable HTTP (bearer-token authenticated) or stdio.

Exit codes: 0 clean shutdown, 2 could not run (bad flags or config, port in use).`,
	}
	root.AddCommand(cli.VersionCommand("broker"), newServeCmd(), newTokenCmd(), newManifestCmd())
	return root
}
