package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// Judges are chosen per tenant and metric: each metric policy may name one of the configured
// judges, and only configured ones.
func TestLoadJudges(t *testing.T) {
	c, err := Load("testdata/valid-judges.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Judges) != 2 || c.Judges[0].Provider != "anthropic" || c.Judges[1].APIKeyEnv != "" {
		t.Errorf("Judges = %+v", c.Judges)
	}
	acme, _ := c.Policy("acme")
	globex, _ := c.Policy("globex")
	if acme.Metrics[0].Judge != "claude" || acme.Metrics[1].Judge != "local" || globex.Metrics[0].Judge != "" {
		t.Errorf("metric judges: acme %+v, globex %+v", acme.Metrics, globex.Metrics)
	}
}

func TestLoadInvalidJudges(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"invalid-judge-unknown.json", []string{`tenants[0].metrics[0].judge: "gpt" is not one of the configured judges; add it under "judges" or remove the field for the default judge`}},
		{"invalid-judge-fields.json", []string{
			`judges[0].provider: "gemini" is not known: use "anthropic" or "openai" (any OpenAI-compatible endpoint)`,
			`judges[0].url: "api.example/v1" must be the full http(s) endpoint URL`,
			`judges[0].model: must be set (the model name the endpoint serves)`,
			`judges[0].apiKeyEnv: "sk-ant-123 456" is not an environment variable name (the key itself never goes in this file)`,
			`judges[1].name: "x" appears twice; names must be unique`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(filepath.Join("testdata", tt.file))
			if err == nil {
				t.Fatalf("Load(%s) succeeded", tt.file)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load(%s) error =\n%s\nwant it to contain\n%s", tt.file, err, w)
				}
			}
		})
	}
}
