package broker

import (
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/auth"
)

const listBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// post sends one raw MCP request with the 2026-07-28 headers.
func post(t *testing.T, url, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestTokenForAnotherAudienceRejected(t *testing.T) {
	e := startHTTP(t, testPolicies())
	tok := e.token(t, func(o *auth.MintOptions) { o.Audience = "https://other.example/mcp" })
	resp, _ := post(t, e.URL, listBody, map[string]string{"Authorization": "Bearer " + tok})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status = %d, want 401", resp.StatusCode)
	}
	if got := resp.Header.Get("WWW-Authenticate"); !strings.Contains(got, `error="invalid_token"`) {
		t.Errorf("WWW-Authenticate = %q, want error=\"invalid_token\"", got)
	}
}

func TestUnauthenticatedRequestsGet401WithChallenge(t *testing.T) {
	e := startHTTP(t, testPolicies())
	meta := `resource_metadata="` + e.Server.URL + `/.well-known/oauth-protected-resource/mcp"`
	noneAlg := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"`+testIssuer+`","aud":["`+e.URL+`"],"sub":"alice","tenant":"acme","exp":`+
			"9999999999"+`}`)) + "."
	good := e.token(t, nil)
	parts := strings.Split(good, ".")
	sig := []byte(parts[2])
	sig[3] ^= 1
	tampered := parts[0] + "." + parts[1] + "." + string(sig)
	tests := []struct {
		name         string
		auth         string
		wantErrParam bool
	}{
		{"no token gets a bare challenge", "", false},
		{"another scheme counts as no token", "Basic YWxpY2U6cHc=", false},
		{"an expired token is invalid", "Bearer " + e.token(t, func(o *auth.MintOptions) { o.Now = time.Now().Add(-2 * time.Hour) }), true},
		{"a token from another issuer is invalid", "Bearer " + e.token(t, func(o *auth.MintOptions) { o.Issuer = "https://evil.test" }), true},
		{"a tampered signature is invalid", "Bearer " + tampered, true},
		{"alg none is invalid", "Bearer " + noneAlg, true},
		{"trailing bytes after the signature make it invalid", "Bearer " + good + "garbage", true},
		{"an empty bearer is malformed", "Bearer ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tt.auth != "" {
				hdr["Authorization"] = tt.auth
			}
			resp, _ := post(t, e.URL, listBody, hdr)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status = %d, want 401", resp.StatusCode)
			}
			got := resp.Header.Get("WWW-Authenticate")
			if !strings.HasPrefix(got, "Bearer ") || !strings.Contains(got, meta) {
				t.Errorf("WWW-Authenticate = %q, want Bearer with %s", got, meta)
			}
			if has := strings.Contains(got, "error="); has != tt.wantErrParam {
				t.Errorf("WWW-Authenticate = %q: error param present = %v, want %v", got, has, tt.wantErrParam)
			}
		})
	}
}

func TestValidTokenReachesTheSDK(t *testing.T) {
	e := startHTTP(t, testPolicies())
	resp, body := post(t, e.URL, listBody, map[string]string{"Authorization": "Bearer " + e.token(t, nil)})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200; body %s", resp.StatusCode, body)
	}
	for _, want := range []string{`"cacheScope":"private"`, `"flag_injection"`, `"check_groundedness"`, `"io.modelcontextprotocol/serverInfo"`} {
		if !strings.Contains(body, want) {
			t.Errorf("tools/list body lacks %s: %s", want, body)
		}
	}
}

func TestProtectedResourceMetadataIsServed(t *testing.T) {
	e := startHTTP(t, testPolicies())
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		t.Run(path, func(t *testing.T) {
			resp, err := http.Get(e.Server.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 {
				t.Fatalf("GET %s = %d", path, resp.StatusCode)
			}
			for _, want := range []string{`"resource":"` + e.URL + `"`, `"authorization_servers":["` + testIssuer + `"]`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("metadata %s lacks %s", b, want)
				}
			}
		})
	}
}

func TestGuardsAnswerBeforeAuthentication(t *testing.T) {
	e := startHTTP(t, testPolicies())
	tests := []struct {
		name       string
		method     string
		origin     string
		wantStatus int
	}{
		{"GET is not allowed", http.MethodGet, "", http.StatusMethodNotAllowed},
		{"DELETE is not allowed", http.MethodDelete, "", http.StatusMethodNotAllowed},
		{"a foreign Origin is forbidden", http.MethodPost, "https://evil.example", http.StatusForbidden},
		{"the null Origin is forbidden", http.MethodPost, "null", http.StatusForbidden},
		{"the server's own Origin passes to authentication", http.MethodPost, e.Server.URL, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tt.method, e.URL, strings.NewReader(listBody))
			req.Header.Set("Content-Type", "application/json")
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("%s with Origin %q = %d, want %d", tt.method, tt.origin, resp.StatusCode, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != "POST" {
				t.Errorf("Allow = %q, want POST", resp.Header.Get("Allow"))
			}
		})
	}
}
