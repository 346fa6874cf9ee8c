package rules

import (
	"strings"
	"testing"
)

func TestTransportDerivation(t *testing.T) {
	tests := []struct {
		name string
		want Transport
	}{
		{"jsonrpc-envelope", TransportAny},
		{"meta-required-reject", TransportAny},
		{"cache-hints-present", TransportAny},
		{"request-reply-content-type", TransportHTTP},   // cites the Streamable HTTP page
		{"pv-header-required", TransportHTTP},           // headers
		{"sse-x-accel-buffering", TransportHTTP},        // SSE
		{"unauthenticated-401", TransportHTTP},          // authorization
		{"meta-required-http-400", TransportHTTP},       // an HTTP status, clause on another page
		{"nothing-after-cancel", TransportHTTP},         // the HTTP clause; stdio has its own rule
		{"unsupported-version-error", TransportAny},     // protocol-level despite its page
		{"removed-methods-absent", TransportAny},        // protocol-level despite its page
		{"no-server-initiated-requests", TransportHTTP}, // its stdio twin is stdio-no-server-requests
	}
	for _, tt := range tests {
		r, ok := ByName(tt.name)
		if !ok {
			t.Errorf("rule %s is not in the registry", tt.name)
			continue
		}
		if r.Transport != tt.want {
			t.Errorf("%s: transport %q, want %q", tt.name, r.Transport, tt.want)
		}
	}
}

// TestTransportExceptionsNameRealRules keeps the hand-kept tables honest: every name they list is
// a rule, and each entry changes what the derivation would say on its own.
func TestTransportExceptionsNameRealRules(t *testing.T) {
	for name, why := range protocolLevel {
		r, ok := ByName(name)
		if !ok {
			t.Errorf("protocolLevel lists %s, which is not a rule", name)
			continue
		}
		delete(protocolLevel, name)
		derived := transportOf(Rule{Name: r.Name, SpecURL: r.SpecURL, Areas: r.Areas})
		protocolLevel[name] = why
		if derived != TransportHTTP {
			t.Errorf("protocolLevel lists %s, which the derivation already grades over every transport", name)
		}
	}
	for name := range httpByName {
		r, ok := ByName(name)
		if !ok {
			t.Errorf("httpByName lists %s, which is not a rule", name)
			continue
		}
		delete(httpByName, name)
		derived := transportOf(Rule{Name: r.Name, SpecURL: r.SpecURL, Areas: r.Areas})
		httpByName[name] = true
		if derived == TransportHTTP {
			t.Errorf("httpByName lists %s, which the derivation already makes HTTP-only", name)
		}
	}
}

func TestAppliesOver(t *testing.T) {
	http, _ := ByName("pv-header-required")
	if ok, why := http.AppliesOver(TransportStdio); ok || !strings.Contains(why, "HTTP headers") {
		t.Errorf("pv-header-required over stdio: %v %q", ok, why)
	}
	if ok, _ := http.AppliesOver(TransportHTTP); !ok {
		t.Error("pv-header-required does not apply over HTTP")
	}
	any, _ := ByName("jsonrpc-envelope")
	for _, tr := range []Transport{TransportHTTP, TransportStdio} {
		if ok, _ := any.AppliesOver(tr); !ok {
			t.Errorf("jsonrpc-envelope does not apply over %s", tr)
		}
	}
	stdio := catalogStdio()[0]
	if ok, why := stdio.AppliesOver(TransportHTTP); ok || !strings.Contains(why, "stdio binding") {
		t.Errorf("%s over HTTP: %v %q", stdio.Name, ok, why)
	}
}

// TestStdioCatalog checks the stdio rules: registered, citing real headings of the stdio page,
// bound to stdio; and every rule that cites that page is bound to stdio.
func TestStdioCatalog(t *testing.T) {
	anchors := readAnchors(t)
	for _, r := range catalogStdio() {
		reg, ok := ByName(r.Name)
		if !ok {
			t.Errorf("%s is not registered", r.Name)
			continue
		}
		page, anchor, _ := SplitSpecURL(reg.SpecURL)
		if page != "basic/transports/stdio" {
			t.Errorf("%s cites %s, not the stdio page", r.Name, page)
		}
		key := page
		if anchor != "" {
			key += "#" + anchor
		}
		if !anchors[key] {
			t.Errorf("%s: %s is not a heading of the spec", r.Name, key)
		}
		if reg.Transport != TransportStdio || !reg.HasArea(AreaStdio) {
			t.Errorf("%s: transport %q, areas %v; want stdio", r.Name, reg.Transport, reg.Areas)
		}
	}
	for _, r := range All() {
		if page, _, _ := SplitSpecURL(r.SpecURL); page == "basic/transports/stdio" && r.Transport != TransportStdio {
			t.Errorf("%s cites the stdio page but binds %q", r.Name, r.Transport)
		}
	}
}
