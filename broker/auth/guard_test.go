package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestGuardChallenge(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	v, _ := NewVerifier(VerifierOptions{Issuer: iss, Audience: aud, Keys: KeySet{{Public: pub}}})
	good, _ := Mint(priv, MintOptions{Issuer: iss, Audience: aud, Tenant: "acme", Subject: "alice", TTL: time.Hour})
	var reached *Principal
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := PrincipalFrom(r.Context())
		reached = &p
	})
	const meta = `resource_metadata="https://broker.test/.well-known/oauth-protected-resource/mcp"`
	tests := []struct {
		name       string
		scopes     []string
		auth       string
		wantStatus int
		wantHeader string
	}{
		{"no token", nil, "", 401, "Bearer " + meta},
		{"no token, scopes configured", []string{"eval:read", "eval:write"}, "", 401, "Bearer " + meta + `, scope="eval:read eval:write"`},
		{"a bad token", nil, "Bearer x.y.z", 401, "Bearer " + meta + `, error="invalid_token", error_description="the access token is invalid, expired, or not issued for this server"`},
		{"a valid token", nil, "Bearer " + good, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reached = nil
			g := &Guard{Verifier: v, ResourceMetadataURL: "https://broker.test/.well-known/oauth-protected-resource/mcp", Scopes: tt.scopes}
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			rec := httptest.NewRecorder()
			g.Wrap(next).ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if got := rec.Header().Get("WWW-Authenticate"); got != tt.wantHeader {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.wantHeader)
			}
			if (reached != nil) != (tt.wantStatus == 200) {
				t.Errorf("next reached = %v, want %v", reached != nil, tt.wantStatus == 200)
			}
			if reached != nil && reached.Tenant != "acme" {
				t.Errorf("principal = %+v", reached)
			}
		})
	}
}
