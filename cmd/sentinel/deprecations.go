package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/debt"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/wire"
)

func init() { subcommands = append(subcommands, newDeprecationsCommand) }

// deprecationsOptions is what `sentinel deprecations` parses its flags into.
type deprecationsOptions struct {
	endpoint string
	output   outputOptions
	headers  []string
	token    string
	timeout  time.Duration
}

// debtScan runs the active prober against an endpoint and returns every exchange it recorded
// (scanExchanges, beside `sentinel probe`). An error means the endpoint could not be scanned at
// all (exit 2). Tests replace it.
var debtScan = func(ctx context.Context, endpoint string, header http.Header, token string, timeout time.Duration) ([]*wire.Exchange, error) {
	return scanExchanges(ctx, endpoint, header, token, timeout)
}

// debtClock is the date the inventory counts months from; tests pin it.
var debtClock = time.Now

func newDeprecationsCommand() *cobra.Command {
	var o deprecationsOptions
	cmd := &cobra.Command{
		Use:   "deprecations",
		Short: "List the deprecated and removed features a server still relies on, with removal dates",
		Long: `Scan an endpoint and list its migration debt: each deprecated feature of the 2026-07-28
revision still in use (Roots, Sampling, Logging, HTTP+SSE, includeContext, ...) with the evidence,
the SEP, the date it was deprecated and "removable on or after DATE (N months from now)", and each
feature 2026-07-28 removed outright that the server still relies on (the initialize handshake,
sessions, the GET stream, ...). A legacy-only server gets its whole migration listed.

Debt is information, not a gate: the command exits 0 whenever the inventory was produced, and 2
when the endpoint could not be scanned.`,
		Example: `  sentinel deprecations --endpoint http://127.0.0.1:8080/mcp
  sentinel deprecations --endpoint https://mcp.example.com/mcp --token "$TOKEN" --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDeprecations(cmd.Context(), cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", "", "MCP endpoint URL to scan (required)")
	addOutputFlags(cmd, &o.output, report.FormatText)
	f.StringArrayVar(&o.headers, "header", nil, `extra request header "Name: value" (repeatable)`)
	f.StringVar(&o.token, "token", "", "bearer token sent as Authorization on every request (never printed)")
	f.DurationVar(&o.timeout, "timeout", 60*time.Second, "deadline for the whole scan")
	_ = cmd.MarkFlagRequired("endpoint")
	return cmd
}

func runDeprecations(ctx context.Context, cmd *cobra.Command, o deprecationsOptions) error {
	outs, err := o.output.plan()
	if err != nil {
		return err
	}
	if err := endpointHint(o.endpoint); err != nil {
		return err
	}
	u, err := url.Parse(o.endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--endpoint %q: want an http:// or https:// URL", o.endpoint)
	}
	if o.timeout <= 0 {
		return errors.New("--timeout must be positive")
	}
	header, err := parseHeaders(o.headers)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := open(outs); err != nil {
		return err
	}
	exchanges, err := debtScan(ctx, o.endpoint, header, o.token, o.timeout)
	if err != nil {
		return fmt.Errorf("scanning %s for deprecated features: %w", o.endpoint, err)
	}
	// The scan's client is Sentinel itself: its deliberate legacy probes are nobody's debt.
	inv := debt.Inventory(exchanges, debtClock()).ServerOnly()
	return writeInventory(cmd.OutOrStdout(), o.output, outs, inv, o.endpoint)
}

// writeInventory renders the inventory through the report registry, like every other report.
func writeInventory(stdout io.Writer, o outputOptions, outs []output, inv debt.Report, endpoint string) error {
	target := inv.Target
	if target == "" {
		target = endpoint
	}
	res := &report.Result{Schema: report.SchemaVersion, Tool: "sentinel " + cli.VersionString(), Target: target,
		Rules: []report.RuleResult{}, Deprecations: toInventory(inv)}
	return o.write(stdout, outs, res, nil)
}

// parseHeaders turns "Name: value" flags into a header.
func parseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for i, s := range hs {
		name, value, ok := strings.Cut(s, ":")
		name = strings.TrimSpace(name)
		if err := headerShape(i, ok, name); err != nil {
			return nil, err
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}
