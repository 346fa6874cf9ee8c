package active

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// promptServer is a 2026-07-28 server with prompts and no tools, shaped like the MRTR prompts of
// the conformance suite: "ask" asks for context by form elicitation and carries a requestState
// sealed to its optional argument topic; "plain" renders at once. Each field breaks one thing.
type promptServer struct {
	ignoreCaps     bool   // ask for elicitation whatever the request declared (the Go SDK everything-server)
	ignoreModes    bool   // a declared elicitation is enough, whichever mode it names
	noState        bool   // carry no requestState
	trustState     bool   // accept any requestState
	wrongCapCode   bool   // refuse a request without elicitation with -32603 instead of -32021
	connectionCaps bool   // a connection that once declared elicitation keeps it
	badContent     bool   // "plain" renders an image whose data is not base64
	noMRTR         bool   // "ask" renders at once too
	completes      string // declare completions, offered for this prompt's arguments only ("" none)
	hideCompletion bool   // with completes: serve completion without declaring it

	mu         sync.Mutex
	connElicit map[string]bool
}

func (s *promptServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func (s *promptServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m, err := wire.DecodeMessage(body)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if err != nil || !m.IsRequest() {
		writeErr(w, 400, nil, wire.CodeInvalidRequest, "invalid request", nil)
		return
	}
	switch m.Method {
	case "server/discover":
		caps := map[string]any{"prompts": map[string]any{}}
		if s.completes != "" && !s.hideCompletion {
			caps["completions"] = map[string]any{}
		}
		writeResult(w, m.ID, map[string]any{"supportedVersions": []string{wire.ProtocolVersion},
			"capabilities": caps, "ttlMs": 0, "cacheScope": "public"})
	case "prompts/list":
		writeResult(w, m.ID, map[string]any{"prompts": []any{
			map[string]any{"name": "ask", "arguments": []any{map[string]any{"name": "topic"}}},
			map[string]any{"name": "plain"},
			map[string]any{"name": "zeta", "arguments": []any{map[string]any{"name": "letter"}}},
		}, "ttlMs": 0, "cacheScope": "public"})
	case "completion/complete":
		var ref struct {
			Ref struct {
				Name string `json:"name"`
			} `json:"ref"`
		}
		_ = json.Unmarshal(m.Params, &ref)
		if s.completes == "" || ref.Ref.Name != s.completes {
			writeErr(w, 400, m.ID, wire.CodeInvalidParams, "no completions for this prompt", nil)
			return
		}
		writeResult(w, m.ID, map[string]any{"completion": map[string]any{"values": []string{"a", "b"}}})
	case "prompts/get":
		s.get(w, m, r.RemoteAddr)
	default:
		writeErr(w, 404, m.ID, wire.CodeMethodNotFound, "Method not found", nil)
	}
}

func (s *promptServer) get(w http.ResponseWriter, m *wire.Message, remote string) {
	var p struct {
		Name           string                     `json:"name"`
		Arguments      map[string]string          `json:"arguments"`
		RequestState   *string                    `json:"requestState"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		writeErr(w, 400, m.ID, wire.CodeInvalidParams, "malformed params", nil)
		return
	}
	text := func(s string) map[string]any {
		return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": s}}}}
	}
	switch {
	case p.Name == "plain" && s.badContent:
		writeResult(w, m.ID, map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "image", "data": "not base64!", "mimeType": "image/png"}}}})
		return
	case p.Name == "plain" || p.Name == "zeta" || (p.Name == "ask" && s.noMRTR):
		writeResult(w, m.ID, text("hello"))
		return
	case p.Name != "ask":
		writeErr(w, 400, m.ID, wire.CodeInvalidParams, "Unknown prompt", nil)
		return
	}
	topic := p.Arguments["topic"]
	if p.RequestState != nil && !s.noState && !s.trustState && *p.RequestState != sign("ask:"+topic) {
		writeErr(w, 400, m.ID, wire.CodeInvalidParams, "Invalid requestState", nil)
		return
	}
	if raw, ok := p.InputResponses["context"]; ok {
		var answer struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		if json.Unmarshal(raw, &answer) != nil {
			writeErr(w, 400, m.ID, wire.CodeInvalidParams, "malformed inputResponses", nil)
			return
		}
		if c, ok := answer.Content["context"].(string); answer.Action == "accept" && ok {
			writeResult(w, m.ID, text("context: "+c))
			return
		}
		if answer.Action != "accept" {
			writeResult(w, m.ID, text("no context given"))
			return
		}
	}
	if !s.declaresForm(m, remote) {
		if s.wrongCapCode {
			writeErr(w, 500, m.ID, -32603, "elicitation is not available", nil)
			return
		}
		writeErr(w, 400, m.ID, wire.CodeMissingCapability, "elicitation required",
			map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}})
		return
	}
	result := map[string]any{"resultType": "input_required", "inputRequests": map[string]any{"context": map[string]any{
		"method": "elicitation/create", "params": map[string]any{"message": "Context?", "requestedSchema": map[string]any{
			"type": "object", "properties": map[string]any{"context": map[string]any{"type": "string"}}, "required": []string{"context"}}}}}}
	if !s.noState {
		result["requestState"] = sign("ask:" + topic)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

// declaresForm reports whether the request may be asked a form elicitation.
func (s *promptServer) declaresForm(m *wire.Message, remote string) bool {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(m.Meta()[wire.MetaClientCapabilities], &caps)
	raw, declared := caps["elicitation"]
	var modes map[string]json.RawMessage
	_ = json.Unmarshal(raw, &modes)
	if declared && !s.ignoreModes {
		declared = modes["form"] != nil || modes["url"] == nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.connElicit == nil {
		s.connElicit = map[string]bool{}
	}
	if declared {
		s.connElicit[remote] = true
	}
	return declared || s.ignoreCaps || (s.connectionCaps && s.connElicit[remote])
}

// TestMRTRProbesOnAPrompt: a prompts/get that answers input_required is graded by every MRTR
// rule a tool is, with the same controls, and the tool-less server needs no --allow-call.
func TestMRTRProbesOnAPrompt(t *testing.T) {
	P, F, I, NA := rules.Pass, rules.Fail, rules.Indeterminate, rules.NotApplicable
	cases := []struct {
		name string
		srv  *promptServer
		want map[string]rules.Status
	}{
		{"conformant", &promptServer{}, map[string]rules.Status{
			"request-state-integrity": P, "request-state-untrusted": P, "request-state-anti-replay": P,
			"mrtr-rerequest-missing": P, "mrtr-validate-input-responses": P, "mrtr-ignore-extra-responses": P,
			"elicitation-decline-handled": P, "missing-capability-error": P, "missing-capability-http-400": P,
			"no-capability-inference": P, "no-connection-derived-context": P, "sampling-tool-results-paired": NA,
			"form-no-clickable-urls": P, "elicitation-response-validated": P, "elicitation-url-https": NA,
			"elicitation-declared-modes": P, "content-blocks-valid": P, "mrtr-declared-capabilities": P}},
		// The Go SDK everything-server's MRTR prompt: no requestState, no argument, capabilities
		// ignored. Only what a request shows fails (asking a request that declared nothing, where
		// -32021 was due); what no request can show is indeterminate.
		{"capabilities ignored, no state", &promptServer{ignoreCaps: true, ignoreModes: true, noState: true}, map[string]rules.Status{
			"request-state-integrity": NA, "request-state-anti-replay": NA,
			"mrtr-rerequest-missing": P, "elicitation-decline-handled": P,
			"missing-capability-error": F, "missing-capability-http-400": I,
			"no-capability-inference": I, "no-connection-derived-context": I,
			"elicitation-declared-modes": F, "mrtr-declared-capabilities": F}},
		{"modes ignored", &promptServer{ignoreModes: true}, map[string]rules.Status{
			"elicitation-declared-modes": F, "mrtr-declared-capabilities": P, "missing-capability-error": P}},
		{"state trusted", &promptServer{trustState: true}, map[string]rules.Status{
			"request-state-integrity": F, "request-state-untrusted": F, "request-state-anti-replay": F}},
		{"a missing capability refused with -32603", &promptServer{wrongCapCode: true}, map[string]rules.Status{
			"missing-capability-error": F, "missing-capability-http-400": I, "no-capability-inference": P}},
		{"capabilities kept per connection", &promptServer{connectionCaps: true}, map[string]rules.Status{
			"no-capability-inference": F, "no-connection-derived-context": F, "missing-capability-error": P}},
		{"an image that is not base64", &promptServer{badContent: true}, map[string]rules.Status{
			"content-blocks-valid": F, "prompt-media-base64": F}},
		{"no prompt asks for input", &promptServer{noMRTR: true}, map[string]rules.Status{
			"request-state-integrity": NA, "missing-capability-error": NA, "no-capability-inference": NA,
			"elicitation-declared-modes": NA, "content-blocks-valid": P}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			names := make([]string, 0, len(tc.want))
			for n := range tc.want {
				names = append(names, n)
			}
			got := scanRules(t, tc.srv.start(t), Options{}, names...)
			for n, want := range tc.want {
				if got[n] != want {
					t.Errorf("%s: %s, want %s", n, got[n], want)
				}
			}
		})
	}
}

// TestCompletionProbesTryArgumentsUntilOneCompletes: a server need not complete every prompt
// argument, so a refused argument says nothing about how many values a completion holds, nor
// about whether completion is served. The fixture's MRTR prompt gained an argument it offers no
// completion for, and its scan failed completion-max-100 on that refusal and missed undeclared
// completions.
func TestCompletionProbesTryArgumentsUntilOneCompletes(t *testing.T) {
	for _, tc := range []struct {
		srv        *promptServer
		rule       string
		want       rules.Status
		whatServed string
	}{
		// "ask" (first by name) refuses; "zeta" completes.
		{&promptServer{completes: "zeta"}, "completion-max-100", rules.Pass, "completions for zeta"},
		{&promptServer{completes: "none"}, "completion-max-100", rules.Indeterminate, "every argument refused"},
		// Served without being declared: found on the argument that completes.
		{&promptServer{completes: "zeta", hideCompletion: true}, "declare-completions", rules.Fail, "undeclared completions for zeta"},
		{&promptServer{completes: "none", hideCompletion: true}, "declare-completions", rules.Indeterminate, "every argument refused with -32602"},
	} {
		got := scanRules(t, tc.srv.start(t), Options{}, tc.rule)
		if got[tc.rule] != tc.want {
			t.Errorf("%s: %s %s, want %s", tc.whatServed, tc.rule, got[tc.rule], tc.want)
		}
	}
}
