package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/proxy"
	"github.com/mcp-sentinel/sentinel/report"
)

func init() { register(newFindingsCommand, "findings") }

type findingsConfig struct {
	db, since, rule, level, target, gate string
	limit                                int
	output                               sentinelcmd.OutputOptions
}

func newFindingsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "findings",
		Short: "List or export what `sentinel proxy` stored",
		Long: `Read the findings store that ` + "`sentinel proxy`" + ` writes and render it with the same renderers
as ` + "`sentinel probe`" + ` (every --format of the registry). Each failing rule is listed once, with
the methods and tools it was seen on, how often, and the last exchange that showed it.

Exit codes: 0 the findings pass --gate (default none: always), 1 they fail it, 2 the store could
not be read.`,
	}
	cmd.AddCommand(findingsSub("list", "text", "Print stored findings (text by default)", `  sentinel findings list --since 24h --level MUST
  sentinel findings list --rule origin-invalid-403 --show all
  sentinel findings list --target http://127.0.0.1:8080/mcp --gate must`),
		findingsSub("export", "sarif", "Write stored findings as SARIF (default) or any other report format", `  sentinel findings export --out sentinel.sarif --target http://127.0.0.1:8080/mcp
  sentinel findings export --db postgres://sentinel@db/sentinel --rule origin-invalid-403 --format json
  sentinel findings export --format html --out findings.html --output markdown=findings.md`))
	return cmd
}

func findingsSub(name, format, short, example string) *cobra.Command {
	var c findingsConfig
	cmd := &cobra.Command{
		Use:     name,
		Short:   short,
		Example: example,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runFindings(cmd.Context(), cmd.OutOrStdout(), c, time.Now())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.db, "db", defaultDB, "findings store: a SQLite file path or a postgres:// URL")
	sentinelcmd.AddOutputFlags(cmd, &c.output, format)
	f.StringVar(&c.since, "since", "", "only findings seen since an RFC 3339 time or a duration ago (24h)")
	f.StringVar(&c.rule, "rule", "", "only this rule (full ID or its name)")
	f.StringVar(&c.level, "level", "", "only this level: MUST, MUST-NOT, SHOULD or SHOULD-NOT")
	f.StringVar(&c.target, "target", "", "only this target URL")
	f.StringVar(&c.gate, "gate", "none", "exit 1 when findings fail this gate: must, should or none")
	f.IntVar(&c.limit, "limit", -1, "at most this many findings (-1: all)")
	_ = cmd.RegisterFlagCompletionFunc("gate", sentinelcmd.FixedCompletion(string(report.GateMust), string(report.GateShould), string(report.GateNone)))
	_ = cmd.RegisterFlagCompletionFunc("level", sentinelcmd.FixedCompletion("MUST", "MUST-NOT", "SHOULD", "SHOULD-NOT"))
	_ = cmd.RegisterFlagCompletionFunc("rule", sentinelcmd.RuleCompletion)
	return cmd
}

func runFindings(ctx context.Context, stdout io.Writer, c findingsConfig, now time.Time) error {
	outs, err := c.output.Plan()
	if err != nil {
		return err
	}
	gate, err := report.ParseGate(c.gate)
	if err != nil {
		return err
	}
	filter := findings.Filter{Rule: c.rule, Target: c.target, Limit: c.limit}
	if filter.Since, err = proxy.ParseSince(c.since, now); err != nil {
		return err
	}
	if filter.Level, err = proxy.ParseLevel(c.level); err != nil {
		return err
	}
	if !findings.IsPostgres(c.db) {
		if _, err := os.Stat(c.db); err != nil {
			return fmt.Errorf("no findings store at %s: run `sentinel proxy` first, or pass --db", c.db)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	store, err := openStore(ctx, c.db, nil)
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	fs, err := store.Findings(ctx, filter)
	if err != nil {
		return err
	}
	res := findings.ToResult(fs, "sentinel "+cli.VersionString())
	res.Gate = gate
	if err := sentinelcmd.OpenOutputs(outs); err != nil {
		return err
	}
	if err := c.output.Write(stdout, outs, res, nil); err != nil {
		return fmt.Errorf("writing the findings: %w", err)
	}
	return cli.Judge(gate.Verdict(res), res.VerdictLine())
}
