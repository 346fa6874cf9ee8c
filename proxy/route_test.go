package proxy

import (
	"strings"
	"testing"
)

func TestRoutesMatch(t *testing.T) {
	var rs []Route
	for _, s := range []string{"http://root:1/mcp", "/a=http://a:1/mcp", "/a/deeper=http://deep:1", "/b=http://b:1"} {
		r, err := ParseRoute(s)
		if err != nil {
			t.Fatalf("ParseRoute(%q) = %v", s, err)
		}
		rs = append(rs, r)
	}
	table := newRoutes(rs)
	tests := []struct {
		name, path, query, want string
	}{
		{"root goes to the upstream endpoint", "/", "", "http://root:1/mcp"},
		{"the upstream's own path is not doubled", "/mcp", "", "http://root:1/mcp"},
		{"another path keeps its path on the upstream host", "/.well-known/oauth-protected-resource", "", "http://root:1/.well-known/oauth-protected-resource"},
		{"query kept", "/mcp", "x=1", "http://root:1/mcp?x=1"},
		{"prefix alone", "/a", "", "http://a:1/mcp"},
		{"prefix plus the endpoint path", "/a/mcp", "", "http://a:1/mcp"},
		{"longest prefix wins", "/a/deeper/x", "", "http://deep:1/x"},
		{"upstream without a path", "/b", "", "http://b:1/"},
		{"a prefix is not a bare string prefix", "/ab", "", "http://root:1/ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok := table.match(tt.path, tt.query)
			if !ok || u.String() != tt.want {
				t.Fatalf("match(%q) = %v, %v; want %s", tt.path, u, ok, tt.want)
			}
		})
	}
}

func TestParseRouteRejects(t *testing.T) {
	for _, s := range []string{"a=http://x", "/a=ftp://x", "/a=", "http://", "/a=http:///nohost"} {
		if _, err := ParseRoute(s); err == nil {
			t.Errorf("ParseRoute(%q) = nil error, want one", s)
		}
	}
}

func TestRouteEndpoint(t *testing.T) {
	for in, want := range map[string]string{"http://h:1/mcp": "/mcp", "http://h:1": "/", "/a=http://h:1/mcp": "/a"} {
		r, _ := ParseRoute(in)
		if got := r.Endpoint(); got != want {
			t.Errorf("ParseRoute(%q).Endpoint() = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseRoute: a route that parses has a prefix starting with "/" and an http(s) upstream
// with a host, and every path it matches maps onto that upstream's host.
func FuzzParseRoute(f *testing.F) {
	for _, s := range []string{"http://h/mcp", "/a=http://h:1/x", "/=https://h", "/a=http://h/%zz", "/%2F=http://h", "\x00=http://h"} {
		f.Add(s, "/a/mcp")
	}
	f.Fuzz(func(t *testing.T, spec, path string) {
		r, err := ParseRoute(spec)
		if err != nil {
			return
		}
		if !strings.HasPrefix(r.Prefix, "/") || r.Upstream.Host == "" || (r.Upstream.Scheme != "http" && r.Upstream.Scheme != "https") {
			t.Fatalf("ParseRoute(%q) accepted %+v", spec, r)
		}
		if u, ok := newRoutes([]Route{r}).match(path, ""); ok && u.Host != r.Upstream.Host {
			t.Fatalf("match(%q) left the upstream host: %s", path, u)
		}
	})
}
