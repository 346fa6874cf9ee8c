package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/config"
)

// addConfigFlag registers --config.
func addConfigFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "config", "", "settings file (default: ./"+config.DefaultName+" when it exists); flags override it")
}

// applyConfig fills every probe option the command line did not set from sentinel.yaml (the
// file --config names, else the working directory's), and says on stderr which file it used.
// A flag given on the command line always wins; for a list flag, the flag's list replaces the
// file's.
func applyConfig(cmd *cobra.Command, o *probeOptions, stderr io.Writer) error {
	cfg, err := config.Find(o.configPath, ".")
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	if cfg == nil {
		return nil
	}
	fmt.Fprintf(stderr, "sentinel: settings from %s (flags override them)\n", cfg.Path)
	unset := func(flag string) bool { return !cmd.Flags().Changed(flag) }
	str := func(flag string, dst *string, v string) {
		if unset(flag) && v != "" {
			*dst = v
		}
	}
	list := func(flag string, dst *[]string, v []string) {
		if unset(flag) && len(v) > 0 {
			*dst = slices.Clone(v)
		}
	}
	str("endpoint", &o.endpoint, cfg.Endpoint)
	str("token-file", &o.tokenFile, cfg.TokenFile)
	str("origin", &o.origin, cfg.Origin)
	str("gate", &o.gate, cfg.Gate)
	str("baseline", &o.baseline, cfg.Baseline)
	str("format", &o.output.Format, cfg.Format)
	str("show", &o.output.Show, cfg.Show)
	str("sarif-anchor", &o.output.SARIFAnchor, cfg.SARIFAnchor)
	list("allow-call", &o.allowCall, cfg.AllowCall)
	list("area", &o.areas, cfg.Areas)
	list("rule", &o.rules, cfg.Rules)
	if unset("timeout") && cfg.Timeout > 0 {
		o.timeout = cfg.Timeout
	}
	if unset("width") && cfg.Width != 0 {
		o.output.Width = cfg.Width
	}
	if unset("header") {
		for _, name := range sortedKeys(cfg.Headers) {
			o.headers = append(o.headers, name+": "+cfg.Headers[name])
		}
	}
	if unset("tool-args") {
		for _, name := range sortedKeys(cfg.ToolArgs) {
			raw, err := json.Marshal(cfg.ToolArgs[name])
			if err != nil {
				return fmt.Errorf("%s: tool_args.%s: %w", cfg.Path, name, err)
			}
			o.toolArgs = append(o.toolArgs, name+"="+string(raw))
		}
	}
	if unset("output") {
		for _, format := range sortedKeys(cfg.Outputs) {
			o.output.Outputs = append(o.output.Outputs, format+"="+cfg.Outputs[format])
		}
	}
	return nil
}

// requireEndpoint is the check MarkFlagRequired cannot make once the endpoint may come from the
// config file.
func requireEndpoint(endpoint string) error {
	if endpoint == "" {
		return errors.New("--endpoint is required (or endpoint: in " + config.DefaultName + ")")
	}
	return endpointHint(endpoint)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
