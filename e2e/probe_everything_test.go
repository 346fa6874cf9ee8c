package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// pinnedEverythingFailures are the failures `sentinel probe` reports on the Go SDK's
// everything-server v1.8.0 (stateless, the default). Each is real: the clause it breaks and a
// request that demonstrates it, sent again below by hand so the pin never rests on the prober's
// own word. Nothing else may fail.
var pinnedEverythingFailures = []struct {
	rule   string
	clause string
	// demonstrate sends the request by hand and reports whether the violation shows.
	demonstrate func(t *testing.T, url string) (bool, string)
}{
	{
		rule:   "mcp-name-base64-decoded",
		clause: "streamable-http#value-encoding: servers MUST decode an encoded Mcp-Name value before comparing it to the body",
		demonstrate: func(t *testing.T, url string) (bool, string) {
			// The plain name "test_simple_prompt" in its optional base64 form is refused as a mismatch.
			spec := wire.NewCall("prompts/get", map[string]any{"name": "test_simple_prompt"},
				wire.WithHeader(wire.HeaderName, wire.Base64Prefix+"dGVzdF9zaW1wbGVfcHJvbXB0"+wire.Base64Suffix))
			ex := send(t, url, spec)
			code, _ := ex.ErrorCode()
			return ex.Status() == 400 && code == wire.CodeHeaderMismatch, ex.Summary()
		},
	},
	{
		rule:        "origin-invalid-403",
		clause:      "streamable-http#security-&-endpoint: if the Origin header is present and invalid, servers MUST respond with 403",
		demonstrate: demonstrateForeignOrigin,
	},
	{
		rule:        "origin-validated",
		clause:      "streamable-http#security-&-endpoint: servers MUST validate the Origin header on all incoming connections",
		demonstrate: demonstrateForeignOrigin,
	},
	{
		rule:   "deprecated-features-avoided",
		clause: "deprecated#deprecated: new servers SHOULD NOT adopt Logging (deprecated by SEP-2577)",
		demonstrate: func(t *testing.T, url string) (bool, string) {
			ex := send(t, url, wire.NewCall("server/discover", nil))
			return ex.Reply() != nil && strings.Contains(string(ex.Reply().ResultField("capabilities")), `"logging"`), ex.Summary()
		},
	},
	{
		rule:   "sse-x-accel-buffering",
		clause: "streamable-http#receiving-messages: servers SHOULD send X-Accel-Buffering: no on SSE responses",
		demonstrate: func(t *testing.T, url string) (bool, string) {
			ex := send(t, url, wire.NewCall("server/discover", nil))
			return ex.ContentType() == wire.ContentTypeSSE && ex.Response.Header.Get(wire.HeaderAccelBuffer) != "no", ex.Summary()
		},
	},
	{
		rule:        "mrtr-declared-capabilities",
		clause:      "basic/patterns/mrtr#server-requirements-basic-workflow: servers MUST NOT include an input request whose type the client did not declare in this request's clientCapabilities",
		demonstrate: demonstrateUndeclaredElicitation,
	},
	{
		rule:        "no-undeclared-capability-use",
		clause:      "basic#_meta: servers MUST NOT rely on a client capability the request did not declare",
		demonstrate: demonstrateUndeclaredElicitation,
	},
	{
		rule:        "missing-capability-error",
		clause:      "basic#_meta: if processing a request requires a capability the client did not include, the server MUST return -32021 with data.requiredCapabilities",
		demonstrate: demonstrateUndeclaredElicitation,
	},
	{
		rule:        "elicitation-declared-modes",
		clause:      "client/elicitation#capabilities: servers MUST NOT send elicitation requests with modes that are not supported by the client",
		demonstrate: demonstrateFormToURLOnlyClient,
	},
	{
		rule:        "elicitation-response-validated",
		clause:      "client/elicitation#form-mode-security: servers SHOULD validate that received data matches the requested schema",
		demonstrate: demonstrateUnvalidatedFormAnswer,
	},
	{
		rule:        "missing-prompt-args-32602",
		clause:      "server/prompts#error-handling: servers SHOULD answer missing required arguments with -32602",
		demonstrate: demonstratePromptWithoutArgs,
	},
	{
		rule:        "validate-prompt-args",
		clause:      "server/prompts#implementation-considerations: servers SHOULD validate prompt arguments before processing",
		demonstrate: demonstratePromptWithoutArgs,
	},
	{
		rule:   "completion-error-codes",
		clause: "server/utilities/completion#error-handling: servers SHOULD answer an invalid prompt name with -32602",
		demonstrate: func(t *testing.T, url string) (bool, string) {
			ex := send(t, url, wire.NewCall("completion/complete", map[string]any{
				"ref":      map[string]any{"type": "ref/prompt", "name": "no-such-prompt-for-sentinel"},
				"argument": map[string]any{"name": "arg1", "value": "a"},
			}))
			return ex.Status() == http.StatusOK && ex.Reply() != nil && ex.Reply().Error == nil, ex.Summary()
		},
	},
	{
		rule:   "invalid-loglevel-32602",
		clause: "server/utilities/logging#error-handling: a request whose _meta logLevel is not a recognized level SHOULD be rejected with -32602",
		demonstrate: func(t *testing.T, url string) (bool, string) {
			ex := send(t, url, wire.NewCall("server/discover", nil, wire.WithMeta(wire.MetaLogLevel, "not-a-level")))
			return ex.Status() == http.StatusOK && ex.Reply() != nil && ex.Reply().Error == nil, ex.Summary()
		},
	},
}

// demonstratePromptWithoutArgs gets test_prompt_with_arguments (arg1 and arg2 required) with no
// arguments: the prompt is rendered instead of refused with -32602.
func demonstratePromptWithoutArgs(t *testing.T, url string) (bool, string) {
	ex := send(t, url, wire.NewCall("prompts/get", map[string]any{"name": "test_prompt_with_arguments"}))
	return ex.Status() == http.StatusOK && ex.Reply() != nil && ex.Reply().Error == nil, ex.Summary()
}

func demonstrateForeignOrigin(t *testing.T, url string) (bool, string) {
	ex := send(t, url, wire.NewCall("server/discover", nil, wire.WithOrigin("http://evil.invalid")))
	return ex.Status() == http.StatusOK, ex.Summary()
}

// demonstrateUndeclaredElicitation gets the MRTR prompt with clientCapabilities {} (no
// elicitation declared): the server still answers input_required with an elicitation/create
// input request.
func demonstrateUndeclaredElicitation(t *testing.T, url string) (bool, string) {
	ex := send(t, url, wire.NewCall("prompts/get", map[string]any{"name": "test_input_required_result_prompt"}))
	r := ex.Reply()
	if r == nil || r.ResultType() != "input_required" {
		return false, ex.Summary()
	}
	return strings.Contains(string(r.ResultField("inputRequests")), `"elicitation/create"`), ex.Summary()
}

// demonstrateFormToURLOnlyClient gets the MRTR prompt declaring elicitation in URL mode only:
// the server still asks in form mode (its elicitation carries no mode, which means form).
func demonstrateFormToURLOnlyClient(t *testing.T, url string) (bool, string) {
	ex := send(t, url, wire.NewCall("prompts/get", map[string]any{"name": "test_input_required_result_prompt"},
		wire.WithMeta(wire.MetaClientCapabilities, map[string]any{"elicitation": map[string]any{"url": map[string]any{}}})))
	r := ex.Reply()
	if r == nil || r.ResultType() != "input_required" {
		return false, ex.Summary()
	}
	var reqs map[string]struct {
		Method string `json:"method"`
		Params struct {
			Mode string `json:"mode"`
		} `json:"params"`
	}
	_ = json.Unmarshal(r.ResultField("inputRequests"), &reqs)
	for _, ir := range reqs {
		if ir.Method == "elicitation/create" && (ir.Params.Mode == "" || ir.Params.Mode == "form") {
			return true, ex.Summary()
		}
	}
	return false, ex.Summary()
}

// demonstrateUnvalidatedFormAnswer retries the MRTR prompt with a form answer whose "context" is
// a number where the requestedSchema asks for a string: the prompt completes with it.
func demonstrateUnvalidatedFormAnswer(t *testing.T, url string) (bool, string) {
	ex := send(t, url, wire.NewCall("prompts/get", map[string]any{"name": "test_input_required_result_prompt",
		"inputResponses": map[string]any{"user_context": map[string]any{"action": "accept", "content": map[string]any{"context": 7}}}},
		wire.WithMeta(wire.MetaClientCapabilities, map[string]any{"elicitation": map[string]any{}})))
	r := ex.Reply()
	return r != nil && r.Error == nil && r.Completed(), ex.Summary()
}

func send(t *testing.T, url string, spec wire.RequestSpec) *wire.Exchange {
	t.Helper()
	spec.URL = url
	ex := wire.Do(WithDeadline(t, 10*time.Second), http.DefaultClient, spec, wire.Limits{ReadTimeout: 10 * time.Second})
	if ex.Response == nil {
		t.Fatalf("no response from %s: %s", url, ex.Err)
	}
	return ex
}

func probeJSON(t *testing.T, url string) (int, *report.Result) {
	t.Helper()
	bin := BuildBinary(t, "sentinel")
	out := RunBinary(t, bin, "probe", "--endpoint", url, "--format", "json", "--timeout", "90s")
	res, err := report.Decode(bytes.NewReader([]byte(out.Stdout)))
	if err != nil {
		t.Fatalf("decoding the JSON report (exit %d): %v\nstderr: %s", out.ExitCode, err, out.Stderr)
	}
	return out.ExitCode, res
}

func TestProbeEverythingServerPinsExactlyTheRealFailures(t *testing.T) {
	srv := StartEverythingServer(t)
	code, res := probeJSON(t, srv.URL)
	if res.Era != wire.ProtocolVersion {
		t.Fatalf("era %q, want %s (notes %v)", res.Era, wire.ProtocolVersion, res.Notes)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1: mcp-name-base64-decoded and the Origin rules are MUST failures", code)
	}
	var failed []string
	for _, rr := range res.Rules {
		if rr.Status == rules.Fail {
			failed = append(failed, rr.Rule.Name)
		}
	}
	var pinned []string
	for _, p := range pinnedEverythingFailures {
		pinned = append(pinned, p.rule)
	}
	slices.Sort(failed)
	slices.Sort(pinned)
	if !slices.Equal(failed, pinned) {
		for _, rr := range res.Rules {
			if rr.Status == rules.Fail && !slices.Contains(pinned, rr.Rule.Name) {
				t.Errorf("unpinned failure %s: %s", rr.Rule.ID, rr.Observed())
			}
		}
		t.Errorf("failures %v, pinned %v", failed, pinned)
	}
	for _, p := range pinnedEverythingFailures {
		if shows, got := p.demonstrate(t, srv.URL); !shows {
			t.Errorf("%s (%s) is not demonstrated by hand: %s", p.rule, p.clause, got)
		}
	}
}

func TestProbeStatefulEverythingServerFailsTheGate(t *testing.T) {
	srv := StartEverythingServer(t, "-stateless=false")
	code, res := probeJSON(t, srv.URL)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if res.Era == wire.ProtocolVersion {
		t.Errorf("era %q: a server that does not offer %s passed the era gate", res.Era, wire.ProtocolVersion)
	}
	for _, rr := range res.Rules {
		switch {
		case rr.Rule.Name == "discover-implemented" && rr.Status != rules.Fail:
			t.Errorf("discover-implemented = %s, want fail", rr.Status)
		case rr.Rule.Name == "mcp-method-required" && rr.Status == rules.Pass:
			t.Error("a negative header check passed on a server outside the era")
		}
	}
	if len(res.Notes) == 0 || !strings.Contains(strings.Join(res.Notes, " "), "Era gate") {
		t.Errorf("notes %v do not explain the era gate", res.Notes)
	}
}
