package active

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
)

func TestAuthProbes(t *testing.T) {
	P, F, NA := rules.Pass, rules.Fail, rules.NotApplicable
	withToken := Options{Header: http.Header{"Authorization": {"Bearer t0k3n"}}, Secrets: []string{"t0k3n"}}
	all := func(s rules.Status, names ...string) map[string]rules.Status {
		m := map[string]rules.Status{}
		for _, n := range names {
			m[n] = s
		}
		return m
	}
	runAreaCases(t, []areaCase{
		{"conformant protected server", &areaServer{token: "t0k3n"}, withToken, all(P,
			"unauthenticated-401", "401-bearer-challenge", "challenge-includes-scope", "invalid-token-401",
			"token-validated-per-request", "no-query-string-token", "prm-implemented", "prm-discoverable",
			"prm-authorization-servers", "prm-resource-identifier", "no-offline-access-scope", "no-data-to-unauthorized")},
		{"no challenge, token in the query string, offline_access offered", &areaServer{token: "t0k3n", noChallenge: true, queryToken: true, offlineScope: true}, withToken,
			map[string]rules.Status{"401-bearer-challenge": F, "no-query-string-token": F, "no-offline-access-scope": F, "prm-discoverable": P}},
		{"open server: auth rules are n/a", &areaServer{}, Options{}, all(NA, "unauthenticated-401", "prm-implemented")},
	})
}

func TestAuthParam(t *testing.T) {
	ch := `Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b", error=invalid_token`
	tests := []struct{ name, want string }{{"resource_metadata", "https://x/.well-known/oauth-protected-resource"}, {"scope", "a b"}, {"error", "invalid_token"}}
	for _, tt := range tests {
		if got, ok := authParam(ch, tt.name); !ok || got != tt.want {
			t.Errorf("%s = %q, %v", tt.name, got, ok)
		}
	}
	if _, ok := authParam(ch, "realm"); ok {
		t.Error("found an absent param")
	}
}

// TestAuthProbeRecordsDCR proves the scan's traffic shows a deprecated registration mechanism to
// the deprecation inventory, and that only loopback was contacted.
func TestAuthProbeRecordsDCR(t *testing.T) {
	for _, dcr := range []bool{true, false} {
		srv := &areaServer{token: "t0k3n", dcr: dcr}
		url := srv.start(t)
		out, err := Scan(context.Background(), Options{Endpoint: url, Timeout: 20 * time.Second, Rules: []string{"prm-implemented"},
			Header: http.Header{"Authorization": {"Bearer t0k3n"}}, Secrets: []string{"t0k3n"}})
		if err != nil {
			t.Fatal(err)
		}
		seen := false
		for _, ex := range out.Exchanges {
			if !strings.HasPrefix(ex.Request.URL, srv.url) {
				t.Errorf("the scan contacted %s", ex.Request.URL)
			}
			for _, s := range passive.Deprecations(ex) {
				if s.Kind == rules.EvidenceDCREndpoint {
					seen = true
				}
			}
		}
		if seen != dcr {
			t.Errorf("dcr=%v: DCR sighting seen=%v", dcr, seen)
		}
	}
}
