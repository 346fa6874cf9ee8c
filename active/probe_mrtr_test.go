package active

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

func TestMRTRProbes(t *testing.T) {
	P, F := rules.Pass, rules.Fail
	runAreaCases(t, []areaCase{
		{"conformant", &areaServer{}, Options{}, map[string]rules.Status{
			"request-state-integrity": P, "request-state-untrusted": P, "request-state-anti-replay": P,
			"mrtr-rerequest-missing": P, "mrtr-validate-input-responses": P, "mrtr-ignore-extra-responses": P,
			"elicitation-decline-handled": P, "missing-capability-error": P, "missing-capability-http-400": P,
			"no-capability-inference": P, "no-connection-derived-context": P,
			"form-no-clickable-urls": P, "elicitation-response-validated": P, "elicitation-url-https": rules.NotApplicable,
			"elicitation-declared-modes": P}},
		{"elicitation modes not checked", &areaServer{ignoreModes: true}, Options{}, map[string]rules.Status{
			"elicitation-declared-modes": F, "mrtr-declared-capabilities": P}},
		{"form with a link, unchecked form data", &areaServer{formLink: true, noElicitValidation: true}, Options{}, map[string]rules.Status{
			"form-no-clickable-urls": F, "elicitation-response-validated": F}},
		{"url elicitation over http", &areaServer{elicitURL: "http://login.example/x"}, Options{}, map[string]rules.Status{
			"elicitation-url-https": F, "form-no-clickable-urls": rules.NotApplicable}},
		{"capabilities kept per connection", &areaServer{connectionCaps: true}, Options{}, map[string]rules.Status{
			"no-connection-derived-context": F, "no-capability-inference": F}},
		// Asking a request that declared {} for elicitation, on a fresh connection before anything
		// was declared on it, is ignoring the declaration, not inferring from an earlier request;
		// and asking instead of refusing with -32021 fails the -32021 rule, while the status a
		// -32021 would have had is unknown.
		{"capabilities ignored", &areaServer{ignoreCaps: true}, Options{}, map[string]rules.Status{
			"no-connection-derived-context": rules.Indeterminate, "no-capability-inference": rules.Indeterminate,
			"mrtr-declared-capabilities": F, "missing-capability-error": F, "missing-capability-http-400": rules.Indeterminate}},
		{"url elicitation over https", &areaServer{elicitURL: "https://login.example/x"}, Options{}, map[string]rules.Status{
			"elicitation-url-https": P, "elicitation-declared-modes": P}},
		{"requestState trusted", &areaServer{trustState: true}, Options{}, map[string]rules.Status{
			"request-state-integrity": F, "request-state-untrusted": F, "request-state-anti-replay": F}},
		{"-32021 with 200 and no data", &areaServer{missingCapStatus: true}, Options{}, map[string]rules.Status{
			"missing-capability-error": F, "missing-capability-http-400": F}},
	})
}

// TestTamperingsChangeTheDecodedBytes is the property behind request-state-integrity: a
// tampered state must decode to other bytes than the issued one in every common encoding. The
// old single tamper changed only the last character, and of a 32-byte MAC in unpadded base64url
// only 4 bits of the last character count: 4 of 64 final characters ("A".."D" among them) made
// a "tamper" that decoded to the same MAC, and a correct server failed the MUST.
func TestTamperingsChangeTheDecodedBytes(t *testing.T) {
	decoders := []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding}
	decode := func(s string) [][]byte {
		var out [][]byte
		for _, part := range strings.Split(s, ".") {
			var got []byte
			for _, d := range decoders {
				if b, err := d.DecodeString(part); err == nil {
					got = b
					break
				}
			}
			out = append(out, got)
		}
		return out
	}
	same := func(a, b [][]byte) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] == nil || b[i] == nil || !bytes.Equal(a[i], b[i]) {
				return a[i] == nil && b[i] == nil
			}
		}
		return true
	}
	for n := range 2000 {
		mac := sha256.Sum256([]byte{byte(n), byte(n >> 8)})
		state := base64.RawURLEncoding.EncodeToString([]byte(`{"tool":"book","n":`+strconv.Itoa(n)+`}`)) + "." + base64.RawURLEncoding.EncodeToString(mac[:])
		ts := tamperings(state)
		if len(ts) != 2 || ts[0] == ts[1] {
			t.Fatalf("tamperings(%q) = %q: want two different tampers", state, ts)
		}
		for _, forged := range ts {
			if forged == state || same(decode(forged), decode(state)) {
				t.Fatalf("tampering %q of %q decodes to the same bytes", forged, state)
			}
		}
	}
	for _, s := range []string{"", "a", "abc", "xyzA", "0123456789abcdef", "zzzz", "----"} {
		for _, forged := range tamperings(s) {
			if forged == s {
				t.Errorf("tamperings(%q) left it unchanged", s)
			}
		}
	}
}

// stateServer is shaped like the servers that showed the requestState false verdicts: one MRTR
// tool, book(city), that asks the user's name by form elicitation and seals requestState as
// base64url(payload) "." base64url(HMAC), the payload binding the tool and a digest of its
// declared argument, verified with Go's default (non-strict) base64 decoding.
type stateServer struct {
	// macTail picks states whose MAC ends in a character with ignored low bits ("A".."D").
	macTail bool
	// acceptAny accepts any requestState at all and omits resultType on the retry's result.
	acceptAny bool
	// noArgs declares no argument in the tool's inputSchema.
	noArgs bool
}

var sealKey = []byte("sentinel-test-state-key-32-bytes")

func (s *stateServer) seal(city string) string {
	for n := 0; ; n++ {
		payload := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"tool":"book","city":%q,"n":%d}`, city, n)))
		h := hmac.New(sha256.New, sealKey)
		h.Write([]byte(payload))
		mac := base64.RawURLEncoding.EncodeToString(h.Sum(nil))
		if !s.macTail || strings.ContainsRune("ABCD", rune(mac[len(mac)-1])) {
			return payload + "." + mac
		}
	}
}

func (s *stateServer) open(state, city string) bool {
	payload, mac, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil {
		return false
	}
	h := hmac.New(sha256.New, sealKey)
	h.Write([]byte(payload))
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	return err == nil && hmac.Equal(got, h.Sum(nil)) && strings.Contains(string(raw), fmt.Sprintf(`"city":%q`, city))
}

func (s *stateServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m, err := wire.DecodeMessage(body)
	if r.Method != http.MethodPost || err != nil {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch m.Method {
	case "server/discover":
		writeResult(w, m.ID, map[string]any{"supportedVersions": []string{wire.ProtocolVersion},
			"capabilities": map[string]any{"tools": map[string]any{}}, "ttlMs": 0, "cacheScope": "public"})
	case "tools/list":
		schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}
		if s.noArgs {
			schema = map[string]any{"type": "object"}
		}
		writeResult(w, m.ID, map[string]any{"tools": []any{map[string]any{"name": "book", "inputSchema": schema,
			"annotations": map[string]any{"readOnlyHint": true}}}, "ttlMs": 0, "cacheScope": "public"})
	case "tools/call":
		s.call(w, m)
	default:
		writeErr(w, http.StatusNotFound, m.ID, wire.CodeMethodNotFound, "Method not found", nil)
	}
}

func (s *stateServer) call(w http.ResponseWriter, m *wire.Message) {
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			City string `json:"city"`
		} `json:"arguments"`
		RequestState   *string                    `json:"requestState"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		Meta           map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if p.Name != "book" {
		writeErr(w, http.StatusOK, m.ID, wire.CodeInvalidParams, "Unknown tool", nil)
		return
	}
	if !strings.Contains(string(p.Meta[wire.MetaClientCapabilities]), "elicitation") {
		writeErr(w, http.StatusBadRequest, m.ID, wire.CodeMissingCapability, "elicitation required",
			map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{}}})
		return
	}
	interim := func() {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
			"resultType": "input_required", "requestState": s.seal(p.Arguments.City),
			"inputRequests": map[string]any{"name": map[string]any{"method": "elicitation/create", "params": map[string]any{
				"message": "Your name?", "requestedSchema": map[string]any{"type": "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}}},
			"_meta": map[string]any{wire.MetaServerInfo: map[string]any{"name": "state", "version": "1"}}}})
	}
	if p.RequestState == nil {
		interim()
		return
	}
	if !s.acceptAny && !s.open(*p.RequestState, p.Arguments.City) {
		writeErr(w, http.StatusOK, m.ID, wire.CodeInvalidParams, "Invalid requestState.", nil)
		return
	}
	var answer struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal(p.InputResponses["name"], &answer) != nil {
		interim()
		return
	}
	if _, ok := answer.Content["name"].(string); answer.Action == "accept" && !ok {
		interim()
		return
	}
	result := map[string]any{"content": []any{map[string]any{"type": "text", "text": "booked"}}}
	w.Header().Set("Content-Type", "application/json")
	if s.acceptAny {
		// A 2025-style final result: no resultType, which is still a completed call.
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		return
	}
	writeResult(w, m.ID, result)
}

// TestRequestStateVerdictsOnServersShapedLikeTheFalseOnes: the three false requestState verdicts,
// each against a server shaped like the one that showed it. A correct server whose MAC ends in
// ignored bits was failed on integrity (the tamper changed no byte); a correct server that binds
// the tool's declared argument was failed on anti-replay (the probe replayed with an undeclared
// argument, which such a server rightly ignores); and a server that accepts any state but omits
// resultType on the retry passed both (a missing resultType was read as a refusal).
func TestRequestStateVerdictsOnServersShapedLikeTheFalseOnes(t *testing.T) {
	P, F, I := rules.Pass, rules.Fail, rules.Indeterminate
	cases := []struct {
		name string
		srv  *stateServer
		want map[string]rules.Status
	}{
		{"a sealed state whose MAC ends in ignored bits", &stateServer{macTail: true}, map[string]rules.Status{
			"request-state-integrity": P, "request-state-untrusted": P, "request-state-anti-replay": P}},
		{"any state accepted, resultType omitted on the retry", &stateServer{acceptAny: true}, map[string]rules.Status{
			"request-state-integrity": F, "request-state-untrusted": F, "request-state-anti-replay": F}},
		{"no declared argument to vary", &stateServer{noArgs: true}, map[string]rules.Status{
			"request-state-integrity": P, "request-state-anti-replay": I}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.srv)
			defer srv.Close()
			names := make([]string, 0, len(tc.want))
			for n := range tc.want {
				names = append(names, n)
			}
			got := scanRules(t, srv.URL, Options{}, names...)
			for n, want := range tc.want {
				if got[n] != want {
					t.Errorf("%s: %s, want %s", n, got[n], want)
				}
			}
		})
	}
}
