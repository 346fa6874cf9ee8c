package main

import (
	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "broker",
		Short: "Sentinel's reference MCP server: an evaluation service on the 2026-07-28 revision",
		Long: `broker serves tools that score an AI agent's output, flag_injection and
check_groundedness, plus get_evaluation (by handle) and set_metric_policy, over stateless
streamable HTTP (bearer-token authenticated) or stdio, with a SQLite or PostgreSQL store
and a hash-chained audit log.

Exit codes: 0 clean shutdown (or a check passed), 1 a check failed (audit verify,
rederive), 2 could not run (bad flags or config, port in use, store unreachable).`,
	}
	root.AddCommand(cli.VersionCommand("broker"), newServeCmd(), newTokenCmd(), newManifestCmd(),
		newMigrateCmd(), newAuditCmd(), newRederiveCmd(), newRevokeCmd())
	return root
}
