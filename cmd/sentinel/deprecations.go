package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/debt"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/wire"
)

func init() { register(newDeprecationsCommand, "deprecations") }

// deprecationsOptions is what `sentinel deprecations` parses its flags into.
type deprecationsOptions struct {
	endpoint   string
	server     serverCommand
	output     sentinelcmd.OutputOptions
	headers    []string
	token      string
	tokenFile  string
	timeout    time.Duration
	reqTimeout time.Duration
}

// debtScan runs the active prober against an endpoint; `sentinel deprecations` grades the
// exchanges it recorded. Tests replace it.
var debtScan = active.Scan

// debtClock is the date the inventory counts months from; tests pin it.
var debtClock = time.Now

func newDeprecationsCommand() *cobra.Command {
	var o deprecationsOptions
	cmd := &cobra.Command{
		Use:   "deprecations [flags] [ENDPOINT | -- COMMAND [ARGS...]]",
		Short: "List the deprecated and removed features a server still relies on, with removal dates",
		Long: `Scan an endpoint (or a stdio server: --command, or its command after --) and list its migration debt: each deprecated feature of the 2026-07-28
revision still in use (Roots, Sampling, Logging, HTTP+SSE, includeContext, ...) with the evidence,
the SEP, the date it was deprecated and "removable on or after DATE (N months from now)", and each
feature 2026-07-28 removed outright that the server still relies on (the initialize handshake,
sessions, the GET stream, ...). A legacy-only server gets its whole migration listed.

Debt is information, not a gate: the command exits 0 whenever the inventory was produced. It exits
2 when it could not read the server, by the same rules as probe: the endpoint is unreachable,
requires authorization the scan was not given (pass --token-file or SENTINEL_TOKEN), is not an MCP
endpoint, or --timeout ran out before the scan finished (the partial inventory is still printed).`,
		Example: `  sentinel deprecations --endpoint http://127.0.0.1:8080/mcp
  sentinel deprecations --endpoint https://mcp.example.com/mcp --token-file token.txt --format json
  SENTINEL_TOKEN=... sentinel deprecations --endpoint https://mcp.example.com/mcp
  sentinel deprecations -- node build/index.js`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDeprecations(cmd.Context(), cmd, o, commandArgs(cmd, args))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", "", "MCP endpoint URL to scan (required unless a stdio server is given)")
	addCommandFlags(cmd, &o.server)
	sentinelcmd.AddOutputFlags(cmd, &o.output, report.FormatText)
	f.StringArrayVar(&o.headers, "header", nil, `extra request header "Name: value" (repeatable)`)
	f.StringVar(&o.token, "token", "", "bearer token sent as Authorization (never printed; prefer --token-file or "+TokenEnv+": a flag shows in ps)")
	f.StringVar(&o.tokenFile, "token-file", "", "read the bearer token from this file")
	f.DurationVar(&o.timeout, "timeout", active.DefaultTimeout, "deadline for the whole scan; a scan that runs out of it is incomplete (exit 2)")
	f.DurationVar(&o.reqTimeout, "request-timeout", wire.DefaultReadTimeout, "deadline for one request and its whole answer")
	return cmd
}

func runDeprecations(ctx context.Context, cmd *cobra.Command, o deprecationsOptions, args []string) error {
	outs, err := o.output.Plan()
	if err != nil {
		return err
	}
	server, err := o.server.resolve(args, o.endpoint)
	if err != nil {
		return err
	}
	target := o.endpoint
	if server != nil {
		target = "stdio: " + server.Command()
	} else {
		if o.endpoint == "" {
			return errors.New(`required flag(s) "endpoint" not set: give --endpoint URL, or a stdio server with --command or after --`)
		}
		if err := endpointHint(o.endpoint); err != nil {
			return err
		}
		if _, err := active.ValidateEndpoint(o.endpoint); err != nil {
			return fmt.Errorf("--endpoint: %w", err)
		}
	}
	if o.timeout <= 0 {
		return errors.New("--timeout must be positive")
	}
	if o.reqTimeout <= 0 {
		return errors.New("--request-timeout must be positive")
	}
	tok, err := tokenFrom(o.token, o.tokenFile, os.Getenv)
	if err != nil {
		return err
	}
	header, secrets, err := probeHeaders(o.headers)
	if err != nil {
		return err
	}
	if !tok.Empty() {
		header.Set(wire.HeaderAuthorization, "Bearer "+tok.Reveal())
		secrets = append(secrets, tok.Reveal())
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := sentinelcmd.OpenOutputs(outs); err != nil {
		return err
	}
	out, err := debtScan(ctx, active.Options{
		Endpoint: o.endpoint, Command: server, Header: header, Secrets: secrets, Timeout: o.timeout,
		Limits: wire.Limits{ReadTimeout: o.reqTimeout}, Tool: "sentinel " + cli.Version,
	})
	target = wire.RedactString(target, secrets...)
	if err != nil {
		return fmt.Errorf("scanning %s for deprecated features: %s", target, wire.RedactString(err.Error(), secrets...))
	}
	if r := out.Result; r != nil && r.CouldNotRun != nil {
		// Nothing was read, so an inventory would say "nothing deprecated in use": a false green.
		return fmt.Errorf("scanning %s for deprecated features: %s", target, r.CouldNotRun.Reason)
	}
	// The scan's client is Sentinel itself: its deliberate legacy probes are nobody's debt.
	inv := debt.Inventory(out.Exchanges, debtClock()).ServerOnly()
	if inv.Target == "" {
		inv.Target = target
	}
	var incomplete *report.Incomplete
	if out.Result != nil {
		incomplete = out.Result.Incomplete
	}
	if err := writeInventory(cmd.OutOrStdout(), o.output, outs, inv, incomplete, secrets); err != nil {
		return err
	}
	if r := out.Result; r != nil && r.Incomplete != nil {
		return fmt.Errorf("scan incomplete: %s; the inventory above is partial", r.Incomplete.Reason)
	}
	return nil
}

// writeInventory renders the inventory through the report registry, like every other report. An
// incomplete scan's inventory is written too, marked incomplete, since what it did see is real.
func writeInventory(stdout io.Writer, o sentinelcmd.OutputOptions, outs []sentinelcmd.Output, inv debt.Report, incomplete *report.Incomplete, secrets []string) error {
	res := &report.Result{Schema: report.SchemaVersion, Tool: "sentinel " + cli.VersionString(), Target: inv.Target,
		Rules: []report.RuleResult{}, Deprecations: toInventory(inv), Incomplete: incomplete}
	return o.Write(stdout, outs, res, secrets)
}
