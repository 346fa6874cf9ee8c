package rules

import "fmt"

// Transport names the binding a rule is stated for. Most requirements are protocol-level and
// bind a server over every transport; some are about HTTP itself (headers, status codes, SSE,
// Origin, authorization) and some about the stdio binding (newline framing, stdout, shutdown by
// closing stdin). A scan over one transport grades the rules of that transport and the
// protocol-level ones; the others are n/a, with the reason Transport.NotApplicable gives.
type Transport string

// The transports a rule can be bound to.
const (
	// TransportAny: a protocol-level rule, graded over every transport.
	TransportAny Transport = ""
	// TransportHTTP: a rule of the Streamable HTTP binding (or of HTTP authorization).
	TransportHTTP Transport = "http"
	// TransportStdio: a rule of the stdio binding.
	TransportStdio Transport = "stdio"
)

// Valid reports whether t is one of the three values.
func (t Transport) Valid() bool {
	switch t {
	case TransportAny, TransportHTTP, TransportStdio:
		return true
	}
	return false
}

// AppliesOver reports whether the rule binds a server reached over transport t (TransportHTTP or
// TransportStdio); when it does not, why says so in a sentence fit for an n/a outcome.
func (r Rule) AppliesOver(t Transport) (ok bool, why string) {
	if r.Transport == TransportAny || r.Transport == t {
		return true, ""
	}
	switch r.Transport {
	case TransportAny: // handled above
	case TransportHTTP:
		return false, fmt.Sprintf("an HTTP-only rule (%s), and this server was reached over %s", httpReason(r), t)
	case TransportStdio:
		return false, fmt.Sprintf("a rule of the stdio binding, and this server was reached over %s", t)
	}
	return false, fmt.Sprintf("a rule of the %s transport, and this server was reached over %s", r.Transport, t)
}

// httpReason names what of HTTP an HTTP-only rule is about, for its n/a outcome over stdio.
func httpReason(r Rule) string {
	switch {
	case r.HasArea(AreaAuth):
		return "HTTP authorization; a stdio server takes its credentials from the environment"
	case r.HasArea(AreaHeaders):
		return "HTTP headers, which stdio does not have"
	case r.HasArea(AreaSSE):
		return "SSE streams; stdio has one shared channel"
	case r.HasArea(AreaIntermediary):
		return "HTTP intermediaries"
	}
	return "the Streamable HTTP binding"
}

// protocolLevel lists the rules the derivation below would make HTTP-only (they cite the
// Streamable HTTP page, or sit in an HTTP area) but that state what a server does over any
// transport, so they are graded over stdio too. Each says why.
var protocolLevel = map[string]string{
	"x-mcp-header-valid":        "it grades the tool definitions a server publishes, whatever the transport it publishes them on",
	"unsupported-version-error": "the −32022 error and its data are the protocol's; stdio's backward-compatibility section relies on them",
	"removed-methods-absent":    "the removed methods are gone on every transport; over stdio the −32601 half of the rule is what applies",
}

// httpByName lists HTTP-only rules that neither cite the Streamable HTTP page nor sit in an
// HTTP-only area: their clause is on another page, but what they require is an HTTP status.
var httpByName = map[string]bool{
	"meta-required-http-400":      true,
	"missing-capability-http-400": true,
}

// transportOf derives the binding of a rule that does not state one: HTTP when it cites the
// Streamable HTTP page (unless protocolLevel says otherwise), sits in an HTTP-only area (headers,
// SSE, auth, intermediary), or is listed in httpByName; otherwise every transport.
func transportOf(r Rule) Transport {
	if r.Transport != TransportAny {
		return r.Transport
	}
	if _, ok := protocolLevel[r.Name]; ok {
		return TransportAny
	}
	page, _, _ := SplitSpecURL(r.SpecURL)
	switch {
	case httpByName[r.Name], page == "basic/transports/streamable-http",
		r.HasArea(AreaHeaders), r.HasArea(AreaSSE), r.HasArea(AreaAuth), r.HasArea(AreaIntermediary):
		return TransportHTTP
	}
	return TransportAny
}
