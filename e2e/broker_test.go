package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// allChecks marks a whole scenario as excluded.
const allChecks = "*"

// brokerSuiteExcluded lists, per scored scenario, the checks that cannot pass against any server
// but the suite's own fixture: they call tools, prompts and resources by the fixture's names
// (test_simple_text, test_input_required_result_elicitation, ...) or need features the broker
// deliberately does not advertise (prompts, resources, completion), which it refuses with -32601
// as the spec requires. Every other check of every scored scenario must pass against the broker.
var brokerSuiteExcluded = map[string]map[string]string{
	"caching": {
		"sep-2549-prompts-list-caching-hints":             "calls prompts/list; the broker advertises no prompts",
		"sep-2549-resources-list-caching-hints":           "calls resources/list; the broker advertises no resources",
		"sep-2549-resources-templates-list-caching-hints": "calls resources/templates/list; the broker advertises no resources",
	},
	"completion-complete":                           {allChecks: "completion/complete; the broker advertises no completions"},
	"input-required-result-basic-elicitation":       {allChecks: "calls the fixture tool test_input_required_result_elicitation"},
	"input-required-result-basic-list-roots":        {allChecks: "calls the fixture tool test_input_required_result_list_roots"},
	"input-required-result-basic-sampling":          {allChecks: "calls the fixture tool test_input_required_result_sampling"},
	"input-required-result-capability-check":        {allChecks: "calls the fixture tool test_input_required_result_capabilities"},
	"input-required-result-multi-round":             {allChecks: "calls the fixture tool test_input_required_result_multi_round"},
	"input-required-result-multiple-input-requests": {allChecks: "calls the fixture tool test_input_required_result_multiple_inputs"},
	"input-required-result-non-tool-request":        {allChecks: "MRTR on prompts/get of a fixture prompt; the broker advertises no prompts"},
	"input-required-result-request-state":           {allChecks: "calls the fixture tool test_input_required_result_request_state"},
	"input-required-result-result-type":             {allChecks: "calls the fixture tool test_input_required_result_elicitation"},
	"input-required-result-tampered-state":          {allChecks: "needs the fixture tool test_input_required_result_tampered_state (broker/brokertest covers tampered state on set_metric_policy)"},
	"prompts-get-embedded-resource":                 {allChecks: "fixture prompt; the broker advertises no prompts"},
	"prompts-get-simple":                            {allChecks: "fixture prompt; the broker advertises no prompts"},
	"prompts-get-with-args":                         {allChecks: "fixture prompt; the broker advertises no prompts"},
	"prompts-get-with-image":                        {allChecks: "fixture prompt; the broker advertises no prompts"},
	"prompts-list":                                  {allChecks: "the broker advertises no prompts"},
	"resources-list":                                {allChecks: "the broker advertises no resources"},
	"resources-read-binary":                         {allChecks: "fixture resource; the broker advertises no resources"},
	"resources-read-text":                           {allChecks: "fixture resource; the broker advertises no resources"},
	"resources-templates-read":                      {allChecks: "fixture resource template; the broker advertises no resources"},
	"server-stateless": {
		"sep-2575-server-rejects-undeclared-capability":          "needs the fixture tool test_missing_capability (broker/brokertest checks -32021 on set_metric_policy)",
		"sep-2575-missing-capability-http-400":                   "needs the fixture tool test_missing_capability (broker/brokertest checks the 400)",
		"sep-2575-http-server-no-independent-requests-on-stream": "needs the fixture tool test_streaming_elicitation",
		"sep-2575-server-no-log-without-loglevel":                "needs the fixture tool test_logging_tool; the broker advertises no logging",
	},
	"tools-call-audio":             {allChecks: "calls the fixture tool test_audio_content"},
	"tools-call-embedded-resource": {allChecks: "calls the fixture tool test_embedded_resource"},
	"tools-call-error":             {allChecks: "calls the fixture tool test_error_handling"},
	"tools-call-image":             {allChecks: "calls the fixture tool test_image_content"},
	"tools-call-mixed-content":     {allChecks: "calls the fixture tool test_multiple_content_types"},
	"tools-call-simple-text":       {allChecks: "calls the fixture tool test_simple_text"},
	"tools-call-with-progress":     {allChecks: "calls the fixture tool test_tool_with_progress"},
}

// brokerSuiteMustPass are scenarios that exercise the broker's own surface; they guard against
// the exclusions above growing into a test that checks nothing.
var brokerSuiteMustPass = []string{"tools-list", "dns-rebinding-protection", "server-stateless", "caching",
	"input-required-result-unsupported-methods", "server-sse-multiple-streams"}

func TestOfficialSuiteOnBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the official suite (Node 22); skipped under -short")
	}
	// The suite sends no bearer token: serve without auth on loopback, as the dev principal,
	// with a fresh SQLite store.
	bin := BuildBinary(t, "broker")
	srv := StartServer(t, bin, "serve", "--http", "127.0.0.1:0", "--dev", "--no-auth", "--db", filepath.Join(t.TempDir(), "broker.db"))
	res := RunConformance(t, srv.URL)
	seen := map[string]bool{}
	for _, s := range res.Scored() {
		seen[s.Name] = true
		excl := brokerSuiteExcluded[s.Name]
		for _, c := range s.Checks {
			if c.Status != "FAILURE" {
				continue
			}
			why, ok := excl[c.ID]
			if !ok {
				why, ok = excl[allChecks]
			}
			if ok {
				t.Logf("excluded %s / %s: %s", s.Name, c.ID, why)
				continue
			}
			t.Errorf("%s: check %s fails against the broker: %s", s.Name, c.ID, c.ErrorMessage)
		}
	}
	for _, name := range brokerSuiteMustPass {
		if !seen[name] {
			t.Errorf("scenario %s was not scored by the suite (a new suite version?)", name)
		}
	}
	if t.Failed() {
		t.Logf("suite output ends:\n%s", tail(res.Output, 40))
	}
}

// startAuthBroker serves the broker with bearer-token auth on a fixed free loopback port (the
// canonical URI, which tokens are minted for, must be known before it starts) and returns its
// URL and a token for tenant acme.
func startAuthBroker(t *testing.T) (url, token string) {
	t.Helper()
	bin := BuildBinary(t, "broker")
	dir := t.TempDir()
	if r := RunBinary(t, bin, "token", "keygen", "--out", filepath.Join(dir, "keys")); r.ExitCode != 0 {
		t.Fatalf("token keygen: %s", r.Stderr)
	}
	addr := freeAddr(t)
	url = "http://" + addr + "/mcp"
	cfg := map[string]any{
		"auth": map[string]any{"issuer": "https://issuer.test", "canonicalURI": url, "publicKeyFile": filepath.Join(dir, "keys", "public.pem")},
		"tenants": []any{map[string]any{"tenantId": "acme", "aggregation": "strictest", "metrics": []any{
			map[string]any{"metric": "flag_injection", "enabled": true, "threshold": 0.5, "onTimeout": "fail_closed"},
			map[string]any{"metric": "check_groundedness", "enabled": true, "threshold": 0.5, "onTimeout": "fail_open"},
		}}},
	}
	b, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(dir, "broker.json")
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := RunBinary(t, bin, "token", "mint", "--key", filepath.Join(dir, "keys", "private.pem"), "--issuer", "https://issuer.test",
		"--audience", url, "--tenant", "acme", "--subject", "prober", "--ttl", "30m")
	if r.ExitCode != 0 {
		t.Fatalf("token mint: %s", r.Stderr)
	}
	srv := StartServer(t, bin, "serve", "--http", addr, "--config", cfgPath, "--db", filepath.Join(dir, "broker.db"))
	if srv.URL != url {
		t.Fatalf("broker listens on %s, want %s", srv.URL, url)
	}
	return url, strings.TrimSpace(r.Stdout)
}

// probeBroker runs `sentinel probe` against url and returns the MUST-level failures by rule id
// and the exit code; it fails the test when the probe graded nothing or could not run.
func probeBroker(t *testing.T, url, token string) (map[string]string, int) {
	t.Helper()
	sentinel := BuildBinary(t, "sentinel")
	var env []string
	if token != "" {
		env = append(env, "SENTINEL_TOKEN="+token)
	}
	r := RunBinaryEnv(t, env, sentinel, "probe", "--endpoint", url, "--allow-call", "set_metric_policy", "--format", "json", "--timeout", "90s")
	if r.ExitCode == 2 {
		t.Fatalf("the probe could not run (exit 2):\n%s", r.Stderr)
	}
	var result struct {
		Era   string `json:"era"`
		Rules []struct {
			Rule struct {
				ID    string `json:"id"`
				Level string `json:"level"`
			} `json:"rule"`
			Status   string            `json:"status"`
			Evidence []json.RawMessage `json:"evidence"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &result); err != nil {
		t.Fatalf("decoding the probe's JSON: %v\n%s", err, r.Stdout)
	}
	if result.Era != "2026-07-28" {
		t.Fatalf("the probe did not establish the 2026-07-28 era (got %q), so its negative checks prove nothing", result.Era)
	}
	counts := map[string]int{}
	fails := map[string]string{}
	for _, rr := range result.Rules {
		counts[rr.Status]++
		if rr.Status == "fail" && strings.HasPrefix(rr.Rule.Level, "MUST") {
			ev, _ := json.Marshal(rr.Evidence)
			fails[rr.Rule.ID] = string(ev)
		}
	}
	t.Logf("probe of %s: %v (exit %d)", url, counts, r.ExitCode)
	if counts["pass"] == 0 {
		t.Fatal("no rule passed: the probe graded nothing")
	}
	return fails, r.ExitCode
}

func TestProbeOfBrokerHasNoMustFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the prober against the broker; skipped under -short")
	}
	t.Run("without auth", func(t *testing.T) {
		bin := BuildBinary(t, "broker")
		srv := StartServer(t, bin, "serve", "--http", "127.0.0.1:0", "--dev", "--no-auth", "--db", filepath.Join(t.TempDir(), "broker.db"))
		fails, code := probeBroker(t, srv.URL, "")
		for id, ev := range fails {
			t.Errorf("MUST failure %s: %s", id, ev)
		}
		if code != 0 {
			t.Errorf("probe exit %d, want 0 (the must gate passed)", code)
		}
	})
	t.Run("with bearer auth", func(t *testing.T) {
		url, token := startAuthBroker(t)
		fails, code := probeBroker(t, url, token)
		ids := make([]string, 0, len(fails))
		for id := range fails {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			t.Errorf("MUST failure %s: %s", id, fails[id])
		}
		if code != 0 {
			t.Errorf("probe exit %d, want 0 (the must gate passed)", code)
		}
	})
}
