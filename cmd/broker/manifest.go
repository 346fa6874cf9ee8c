package main

import (
	"encoding/json"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/broker/measure"
)

func newManifestCmd() *cobra.Command {
	var calls int
	var configFile string
	cmd := &cobra.Command{
		Use:   "manifest [--calls N] [--config FILE]",
		Short: "Measure the tools/list manifest: distinct digests over N calls, and token costs",
		Long: `Starts a dev-mode broker inside this process on 127.0.0.1:0, calls tools/list N times,
and prints one JSON object: the number of distinct SHA-256 digests of the result (goal: 1), the
digest itself (compare it across runs for cold restarts), the manifest's token count, and the
token saving of the concise over the detailed response format, counted with o200k_base.
With --config, the format samples are scored with that file's named judges and, when it has a
"dev" tenant, under that tenant's policy (otherwise under the dev policy), so a policy that names
a judge is measured with that judge.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, scorer, err := loadScorer(configFile, "", slog.New(slog.DiscardHandler))
			if err != nil {
				return err
			}
			m, err := measure.Manifest(cmd.Context(), scorer, calls)
			if err != nil {
				return err
			}
			f, err := measure.Formats(cmd.Context(), scorer, cfg)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			return enc.Encode(struct {
				Manifest measure.ManifestReport `json:"manifest"`
				Formats  measure.FormatReport   `json:"formats"`
			}{m, f})
		},
	}
	cmd.Flags().IntVar(&calls, "calls", 100, "tools/list calls to make")
	cmd.Flags().StringVar(&configFile, "config", "", "JSON config file: its named judges, and its \"dev\" tenant policy if it has one, are used for the format samples")
	return cmd
}
