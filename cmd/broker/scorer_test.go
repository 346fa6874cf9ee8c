package main

import (
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/broker/config"
)

func TestNamedJudgesReadTheirKeysFromTheEnvironment(t *testing.T) {
	named := []config.Judge{
		{Name: "claude", Provider: "anthropic", URL: "https://api.anthropic.test/v1/messages", Model: "m", APIKeyEnv: "JUDGE_KEY"},
		{Name: "local", Provider: "openai", URL: "http://127.0.0.1:8080/v1/chat/completions", Model: "m"},
	}
	env := map[string]string{"JUDGE_KEY": "sk-secret-value"}
	judges, err := namedJudges(named, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if len(judges) != 2 || judges["claude"].Model() != "anthropic:m" || judges["local"].Model() != "openai:m" {
		t.Errorf("judges = %v", judges)
	}
	_, err = namedJudges(named, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "JUDGE_KEY is empty") {
		t.Errorf("missing key: %v, want an error naming JUDGE_KEY", err)
	}
}
