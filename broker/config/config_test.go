package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadValid(t *testing.T) {
	c, err := Load("testdata/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.Abs("testdata/keys/public.pem"); !strings.HasSuffix(c.Auth.PublicKeyFile, "testdata/keys/public.pem") {
		t.Errorf("PublicKeyFile = %q, want it resolved against the config dir (%s)", c.Auth.PublicKeyFile, want)
	}
	p, ok := c.Policy("acme")
	if !ok || len(p.Metrics) != 2 || p.Metrics[1].MaxJudgeLatencyMs != 300 {
		t.Errorf("Policy(acme) = %+v, %v", p, ok)
	}
	if _, ok := c.Policy("nobody"); ok {
		t.Error("Policy(nobody) found a policy")
	}
}

// TestLoadInvalid pins each validation error's exact message: they are user-facing.
func TestLoadInvalid(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"invalid-unknown-key.json", `decoding: unknown field "tenant" (known: [auth allowedOrigins stdio judges tenants])`},
		// Regression: encoding/json matched keys regardless of case, so "onTimeOut" was accepted.
		{"invalid-misspelt-on-timeout.json", `decoding tenants[0]: decoding tenant policy: metrics[0]: unknown field "onTimeOut"`},
		{"invalid-misspelt-auth-key.json", `decoding auth: unknown field "Issuer"`},
		{"invalid-repeated-key.json", `decoding: member "tenants" is given twice`},
		{"invalid-threshold-zero.json", `tenants[0] (a): tenant "a", metric "flag_injection": threshold 0 is outside (0,1]`},
		{"invalid-no-issuer.json", "auth.issuer: must be set (the iss your tokens carry)"},
		{"invalid-fragment.json", `auth.canonicalURI: "https://broker.test/mcp#frag" must not have a fragment`},
		{"invalid-relative-uri.json", `auth.canonicalURI: "/mcp" must be an absolute http or https URI`},
		{"invalid-no-keys.json", "auth: set publicKeyFile or jwksFile (the keys tokens are verified with)"},
		{"invalid-two-key-sources.json", "auth: set only one of publicKeyFile and jwksFile"},
		{"invalid-origin.json", `allowedOrigins[0]: "https://app.example/path" is not an origin: want scheme://host[:port]`},
		{"invalid-stdio.json", "stdio.tenant: must be set (the tenant every stdio call acts for)\nstdio.subject: must be set (who stdio calls act as)"},
		{"invalid-duplicate-tenant.json", `tenants[1].tenantId: "a" appears twice; merge the two policies`},
		{"invalid-no-tenant-id.json", "tenants[0].tenantId: must be set"},
		{"invalid-no-on-timeout.json", `tenants[0] (a): tenant "a", metric "flag_injection": onTimeout is not set and has no default: set "onTimeout" to "fail_open"`},
		{"invalid-unknown-metric-key.json", `decoding tenants[0]: decoding tenant policy: metrics[0]: unknown field "colour"`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(filepath.Join("testdata", tt.file))
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want %q", tt.file, tt.want)
			}
			got := strings.TrimPrefix(err.Error(), "loading config testdata/"+tt.file+": ")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("Load(%s) error =\n%s\nwant prefix\n%s", tt.file, got, tt.want)
			}
		})
	}
}

func TestNormalizeOrigin(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://App.Example", "https://app.example"},
		{"https://app.example:8443/", "https://app.example:8443"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
	}
	for _, tt := range tests {
		if got, err := NormalizeOrigin(tt.in); err != nil || got != tt.want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"null", "app.example", "https://a/b", "https://a?x=1"} {
		if got, err := NormalizeOrigin(bad); err == nil {
			t.Errorf("NormalizeOrigin(%q) = %q, want an error", bad, got)
		}
	}
}

// FuzzParse asserts that Parse never accepts a config that then fails Validate, and never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"tenants":[]}`, `{"auth":{"issuer":"x"}}`, `{"tenants":[{"tenantId":"a"}]}`, `{} {}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse accepted a config that fails Validate: %v", err)
		}
	})
}
