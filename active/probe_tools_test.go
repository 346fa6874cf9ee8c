package active

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// areaServer is a 2026-07-28 server for the feature-area probes, written for these tests only:
// tools (one with structured output, one MRTR tool), paginated lists, resources, prompts,
// completion, subscriptions and optional bearer auth. Each bug field breaks one requirement, so
// a test can show the probe catches it and passes the conformant variant.
type areaServer struct {
	noCacheHints       bool // omit ttlMs/cacheScope on lists
	scopeFlip          bool // page 2 of tools/list is private, page 1 public
	badCursorServed    bool // an invalid cursor gets page 1
	unknownToolResult  bool // an unknown tool gets an isError result
	noInputValidation  bool // a wrongly typed argument runs the tool
	badStructured      bool // structuredContent violates outputSchema
	trustState         bool // requestState is not verified
	missingCapStatus   bool // -32021 sent with HTTP 200 and no data
	notFoundEmpty      bool // a missing resource gets empty contents
	noPromptValidation bool // a missing required prompt argument is rendered anyway
	tooManyCompletions bool // 150 completion values
	noAck              bool // the listen stream starts with list_changed, no acknowledgement
	token              string
	noChallenge        bool // 401 without WWW-Authenticate
	queryToken         bool // accept ?access_token=
	offlineScope       bool // PRM offers offline_access
	dcr                bool // the authorization server offers Dynamic Client Registration
	noElicitValidation bool // form content is used without checking it against requestedSchema
	formLink           bool // the form elicitation's message carries a URL
	elicitURL          string
	fileRoot           bool // list a file:// resource, refusing traversal
	traversal          bool // with fileRoot: serve any file:// path, ../ included
	logging            bool // declare logging; echo logs at the requested level
	logBelow           bool // with logging: echo logs at debug whatever was asked
	acceptBadLevel     bool // with logging: an unknown logLevel is accepted
	ignoreCaps         bool // every request is treated as declaring elicitation
	ignoreModes        bool // a declared elicitation capability is enough, whichever modes it names
	connectionCaps     bool // a connection that once declared elicitation keeps it

	mu         sync.Mutex
	connElicit map[string]bool

	url string
}

var stateKey = []byte("area-server-test-key")

func sign(s string) string {
	m := hmac.New(sha256.New, stateKey)
	m.Write([]byte(s))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)) + "." + base64.RawURLEncoding.EncodeToString([]byte(s))
}

func (a *areaServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(srv.Close)
	a.url = srv.URL
	return srv.URL + "/mcp"
}

func hints(r map[string]any, scope string, a *areaServer) map[string]any {
	if !a.noCacheHints {
		r["ttlMs"], r["cacheScope"] = 60000, scope
	}
	return r
}

func (a *areaServer) authorized(r *http.Request) bool {
	if a.token == "" {
		return true
	}
	if a.queryToken && r.URL.Query().Get("access_token") == a.token {
		return true
	}
	return r.Header.Get("Authorization") == "Bearer "+a.token
}

func (a *areaServer) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-authorization-server") {
		md := map[string]any{"issuer": a.url + "/as", "authorization_endpoint": a.url + "/as/authorize", "token_endpoint": a.url + "/as/token"}
		if a.dcr {
			md["registration_endpoint"] = a.url + "/as/register"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(md)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
		scopes := []string{"mcp:read"}
		if a.offlineScope {
			scopes = append(scopes, "offline_access")
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": a.url + "/mcp", "authorization_servers": []string{a.url + "/as"}, "scopes_supported": scopes})
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if !a.authorized(r) {
		if !a.noChallenge {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.url+`/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`)
		}
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m, err := wire.DecodeMessage(body)
	if err != nil || !m.IsRequest() {
		writeErr(w, 400, nil, wire.CodeInvalidRequest, "invalid request", nil)
		return
	}
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &p)
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(p[k], &s)
		return s
	}
	level, hasLevel := m.MetaString(wire.MetaLogLevel)
	if a.logging && hasLevel && !a.acceptBadLevel && !strings.Contains(" debug info notice warning error critical alert emergency ", " "+level+" ") {
		writeErr(w, 200, m.ID, wire.CodeInvalidParams, "Unknown log level", nil)
		return
	}
	switch m.Method {
	case "server/discover":
		caps := map[string]any{"tools": map[string]any{"listChanged": true}, "resources": map[string]any{"subscribe": true}, "prompts": map[string]any{}, "completions": map[string]any{}}
		if a.logging {
			caps["logging"] = map[string]any{}
		}
		writeResult(w, m.ID, hints(map[string]any{"supportedVersions": []string{wire.ProtocolVersion}, "capabilities": caps}, "public", a))
	case "tools/list":
		a.toolsList(w, m.ID, str("cursor"), p["cursor"] != nil)
	case "tools/call":
		a.toolsCall(w, m, p, r.RemoteAddr)
	case "resources/list":
		res := []any{map[string]any{"uri": "test://a", "name": "a"}}
		if a.fileRoot {
			res = append(res, map[string]any{"uri": "file:///srv/data/readme.txt", "name": "readme"})
		}
		writeResult(w, m.ID, hints(map[string]any{"resources": res}, "public", a))
	case "resources/templates/list":
		writeResult(w, m.ID, hints(map[string]any{"resourceTemplates": []any{}}, "public", a))
	case "resources/read":
		switch uri := str("uri"); {
		case strings.HasPrefix(uri, "file:///srv/data/") && a.fileRoot && (a.traversal || !strings.Contains(strings.ToLower(uri), "..") && !strings.Contains(strings.ToLower(uri), "%2e")):
			writeResult(w, m.ID, hints(map[string]any{"contents": []any{map[string]any{"uri": uri, "text": "root:x:0:0"}}}, "private", a))
		case uri == "test://a":
			writeResult(w, m.ID, hints(map[string]any{"contents": []any{map[string]any{"uri": uri, "text": "alpha"}}}, "public", a))
		case a.notFoundEmpty:
			writeResult(w, m.ID, hints(map[string]any{"contents": []any{}}, "public", a))
		default:
			writeErr(w, 200, m.ID, wire.CodeInvalidParams, "Resource not found", map[string]any{"uri": uri})
		}
	case "prompts/list":
		writeResult(w, m.ID, hints(map[string]any{"prompts": []any{map[string]any{"name": "greet", "arguments": []any{map[string]any{"name": "who", "required": true}}}}}, "public", a))
	case "prompts/get":
		var args map[string]string
		_ = json.Unmarshal(p["arguments"], &args)
		switch {
		case str("name") != "greet":
			writeErr(w, 200, m.ID, wire.CodeInvalidParams, "Unknown prompt", nil)
		case args["who"] == "" && !a.noPromptValidation:
			writeErr(w, 200, m.ID, wire.CodeInvalidParams, "Missing required argument: who", nil)
		default:
			writeResult(w, m.ID, map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hello " + args["who"]}}}})
		}
	case "completion/complete":
		var ref struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(p["ref"], &ref)
		if ref.Name != "greet" {
			writeErr(w, 200, m.ID, wire.CodeInvalidParams, "Unknown prompt", nil)
			return
		}
		n := 3
		if a.tooManyCompletions {
			n = 150
		}
		vals := make([]string, n)
		for i := range vals {
			vals[i] = "v" + string(rune('a'+i%26))
		}
		writeResult(w, m.ID, map[string]any{"completion": map[string]any{"values": vals}})
	case "subscriptions/listen":
		a.listen(w, r, m.ID, p)
	default:
		writeErr(w, 404, m.ID, wire.CodeMethodNotFound, "Method not found", nil)
	}
}

func (a *areaServer) toolsList(w http.ResponseWriter, id json.RawMessage, cursor string, paged bool) {
	echo := map[string]any{"name": "echo", "annotations": map[string]any{"readOnlyHint": true},
		"inputSchema":  map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}},
		"outputSchema": map[string]any{"type": "object", "properties": map[string]any{"echo": map[string]any{"type": "string"}}, "required": []string{"echo"}}}
	ask := map[string]any{"name": "ask", "annotations": map[string]any{"readOnlyHint": true},
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"topic": map[string]any{"type": "string"}}}}
	calc := map[string]any{"name": "calc", "inputSchema": map[string]any{"type": "object"}}
	switch {
	case !paged || (cursor != "p2" && a.badCursorServed):
		writeResult(w, id, hints(map[string]any{"tools": []any{echo, ask}, "nextCursor": "p2"}, "public", a))
	case cursor == "p2":
		scope := "public"
		if a.scopeFlip {
			scope = "private"
		}
		writeResult(w, id, hints(map[string]any{"tools": []any{calc}}, scope, a))
	default:
		writeErr(w, 200, id, wire.CodeInvalidParams, "Invalid cursor", nil)
	}
}

func (a *areaServer) toolsCall(w http.ResponseWriter, m *wire.Message, p map[string]json.RawMessage, remote string) {
	var name string
	_ = json.Unmarshal(p["name"], &name)
	var args map[string]any
	_ = json.Unmarshal(p["arguments"], &args)
	switch name {
	case "echo":
		text, ok := args["text"].(string)
		if !ok && !a.noInputValidation {
			writeResult(w, m.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "text must be a string"}}})
			return
		}
		sc := map[string]any{"echo": text}
		if a.badStructured {
			sc = map[string]any{"echo": 5}
		}
		js, _ := json.Marshal(sc)
		result := map[string]any{"content": []any{map[string]any{"type": "text", "text": string(js)}}, "structuredContent": sc}
		if level, ok := m.MetaString(wire.MetaLogLevel); ok && a.logging {
			if a.logBelow {
				level = "debug"
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("X-Accel-Buffering", "no")
			logMsg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": level, "data": "echoing"}})
			result["resultType"] = "complete"
			final, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
			_, _ = io.WriteString(w, "event: message\ndata: "+string(logMsg)+"\n\nevent: message\ndata: "+string(final)+"\n\n")
			return
		}
		writeResult(w, m.ID, result)
	case "ask":
		a.ask(w, m, p, args, remote)
	default:
		if a.unknownToolResult {
			writeResult(w, m.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no such tool"}}})
			return
		}
		writeErr(w, 200, m.ID, wire.CodeInvalidParams, "Unknown tool: "+name, nil)
	}
}

// ask is the MRTR tool: it needs the user's name by form elicitation, with requestState bound to
// its arguments by an HMAC.
func (a *areaServer) ask(w http.ResponseWriter, m *wire.Message, p map[string]json.RawMessage, args map[string]any, remote string) {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(m.Meta()[wire.MetaClientCapabilities], &caps)
	argsJSON, _ := json.Marshal(args)
	message := "Your name?"
	if a.formLink {
		message = "Your name? See https://help.example/names"
	}
	request := map[string]any{"method": "elicitation/create", "params": map[string]any{
		"message": message, "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}}
	if a.elicitURL != "" {
		request = map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "url", "message": "Sign in", "url": a.elicitURL}}
	}
	interim := func() {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
			"resultType": "input_required", "requestState": sign(string(argsJSON)),
			"inputRequests": map[string]any{"name": request},
			"_meta":         map[string]any{wire.MetaServerInfo: map[string]any{"name": "area", "version": "1"}}}})
	}
	rawElicit, declared := caps["elicitation"]
	var modes map[string]json.RawMessage
	_ = json.Unmarshal(rawElicit, &modes)
	if mode := "form"; declared && !a.ignoreModes {
		if a.elicitURL != "" {
			mode = "url"
		}
		declared = modes[mode] != nil || (mode == "form" && modes["url"] == nil)
	}
	a.mu.Lock()
	if a.connElicit == nil {
		a.connElicit = map[string]bool{}
	}
	if declared {
		a.connElicit[remote] = true
	}
	declared = declared || a.ignoreCaps || (a.connectionCaps && a.connElicit[remote])
	a.mu.Unlock()
	if !declared {
		if a.missingCapStatus {
			writeErr(w, 200, m.ID, wire.CodeMissingCapability, "elicitation required", nil)
			return
		}
		writeErr(w, 400, m.ID, wire.CodeMissingCapability, "elicitation required", map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{}}})
		return
	}
	var state string
	if json.Unmarshal(p["requestState"], &state) != nil {
		interim()
		return
	}
	if !a.trustState && !hmac.Equal([]byte(state), []byte(sign(string(argsJSON)))) {
		writeErr(w, 200, m.ID, wire.CodeInvalidParams, "invalid requestState", nil)
		return
	}
	var responses map[string]json.RawMessage
	_ = json.Unmarshal(p["inputResponses"], &responses)
	raw, ok := responses["name"]
	if !ok {
		interim()
		return
	}
	var resp struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal(raw, &resp) != nil {
		writeErr(w, 200, m.ID, wire.CodeInvalidParams, "malformed inputResponses", nil)
		return
	}
	if _, isString := resp.Content["name"].(string); resp.Action == "accept" && a.elicitURL == "" && !isString && !a.noElicitValidation {
		interim()
		return
	}
	writeResult(w, m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "answer: " + resp.Action}}})
}

// listen acknowledges the requested subset and holds the stream until the client closes it.
func (a *areaServer) listen(w http.ResponseWriter, r *http.Request, id json.RawMessage, p map[string]json.RawMessage) {
	var filter map[string]any
	_ = json.Unmarshal(p["notifications"], &filter)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	meta := map[string]any{wire.MetaSubscriptionID: id}
	send := func(msg map[string]any) {
		b, _ := json.Marshal(msg)
		_, _ = io.WriteString(w, "event: message\ndata: "+string(b)+"\n\n")
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	honoured := map[string]any{}
	if filter["toolsListChanged"] == true {
		honoured["toolsListChanged"] = true
	}
	if a.noAck {
		send(map[string]any{"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": map[string]any{"_meta": meta}})
	} else {
		send(map[string]any{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": map[string]any{"notifications": honoured, "_meta": meta}})
	}
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// scanRules scans url restricted to the named rules and returns each rule's status.
func scanRules(t *testing.T, url string, opts Options, names ...string) map[string]rules.Status {
	t.Helper()
	opts.Endpoint, opts.Rules = url, names
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	out, err := Scan(context.Background(), opts)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	got := map[string]rules.Status{}
	for _, rr := range out.Result.Rules {
		got[rr.Rule.Name] = rr.Status
	}
	return got
}

// areaCase is one server variant and the statuses the named rules must end with.
type areaCase struct {
	name   string
	server *areaServer
	opts   Options
	want   map[string]rules.Status
}

func runAreaCases(t *testing.T, cases []areaCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			names := make([]string, 0, len(tc.want))
			for n := range tc.want {
				names = append(names, n)
			}
			got := scanRules(t, tc.server.start(t), tc.opts, names...)
			for n, want := range tc.want {
				if got[n] != want {
					t.Errorf("%s: %s, want %s", n, got[n], want)
				}
			}
		})
	}
}

func TestToolProbes(t *testing.T) {
	P, F := rules.Pass, rules.Fail
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{}, Options{}, map[string]rules.Status{
			"tools-list-current": P, "tools-deterministic-order": P, "tool-name-syntax": P, "input-schema-object": P,
			"unknown-tool-protocol-error": P, "output-schema-conformance": P, "structured-text-mirror": P,
			"validate-tool-inputs": P, "tool-errors-as-results": P}},
		{"unknown tool answered as a result", &areaServer{unknownToolResult: true}, Options{}, map[string]rules.Status{"unknown-tool-protocol-error": F}},
		{"structured output off schema", &areaServer{badStructured: true}, Options{}, map[string]rules.Status{"output-schema-conformance": F, "structured-text-mirror": P}},
		{"no input validation", &areaServer{noInputValidation: true}, Options{}, map[string]rules.Status{"validate-tool-inputs": F}},
	})
}

func TestSampleArguments(t *testing.T) {
	tests := []struct {
		name, schema string
		want         string
	}{
		{"required of each type", `{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"integer"},"b":{"type":"boolean"},"o":{"type":"string"}},"required":["s","n","b"]}`, `{"b":false,"n":1,"s":"sentinel"}`},
		{"enum and default win", `{"properties":{"e":{"enum":["x","y"]},"d":{"type":"string","default":"z"}},"required":["e","d"]}`, `{"d":"z","e":"x"}`},
		{"not a schema", `[]`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := json.Marshal(sampleArguments(json.RawMessage(tt.schema)))
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestValidateAgainstBounded(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 200) + `{}` + strings.Repeat(`}}`, 200)
	if err := validateAgainst(json.RawMessage(deep), json.RawMessage(`{}`)); !errors.Is(err, errSchemaTooLarge) {
		t.Errorf("a 400-level schema: err = %v, want errSchemaTooLarge", err)
	}
	if err := validateAgainst(json.RawMessage(`{"type":"object","required":["a"]}`), json.RawMessage(`{}`)); err == nil {
		t.Error("a missing required member validated")
	}
	if err := validateAgainst(json.RawMessage(`{"type":"object"}`), json.RawMessage(`{"a":1}`)); err != nil {
		t.Errorf("a valid instance: %v", err)
	}
}
