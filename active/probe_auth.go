package active

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// authRuleNames are the rules the auth probe can settle from outside with at most the operator's
// one token.
var authRuleNames = []string{
	"unauthenticated-401", "401-bearer-challenge", "challenge-includes-scope", "auth-status-codes",
	"no-data-to-unauthorized", "invalid-token-401", "token-validated-per-request", "no-query-string-token",
	"prm-implemented", "prm-discoverable", "prm-authorization-servers", "prm-resource-identifier",
	"no-offline-access-scope", "canonical-uri-no-trailing-slash", "insufficient-scope-403", "scope-single-challenge",
}

// authProbes grade the server as an OAuth 2.1 resource server: the 401 challenge, the Protected
// Resource Metadata document, and token handling on every request.
func authProbes() []Probe {
	return []Probe{{Name: "auth", AnyEra: false, RuleIDs: ids(authRuleNames...), Run: probeAuth}}
}

// authParam extracts one auth-param of a WWW-Authenticate challenge (quoted or token value).
func authParam(challenge, name string) (string, bool) {
	re := regexp.MustCompile(`(?i)(?:^|[\s,])` + regexp.QuoteMeta(name) + `\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))`)
	m := re.FindStringSubmatch(challenge)
	if m == nil {
		return "", false
	}
	if m[1] != "" || strings.Contains(m[0], `""`) {
		return strings.ReplaceAll(m[1], `\"`, `"`), true
	}
	return m[2], true
}

// operatorToken returns the bearer token the operator supplied (--token), "" when none.
func operatorToken(t *Target) string {
	v := t.Options.Header.Get(wire.HeaderAuthorization)
	if tok, ok := strings.CutPrefix(v, "Bearer "); ok {
		return strings.TrimSpace(tok)
	}
	return ""
}

// discoverSpec is a well-formed server/discover, labelled.
func discoverSpec(label string) wire.RequestSpec {
	return wire.NewCall("server/discover", nil, wire.WithLabel(label))
}

// probeAuth: a protected endpoint MUST answer a missing or invalid token with 401 carrying a
// Bearer challenge (scope SHOULD be included), MUST publish Protected Resource Metadata that is
// discoverable (resource_metadata on the 401, or a well-known URI), lists an authorization
// server and names this resource, and MUST validate the token on every request. A server that
// serves requests without credentials does not use authorization, and these rules are n/a.
func probeAuth(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	label := "server/discover with no Authorization header"
	var bare *wire.Exchange
	if len(t.Options.Header) == 0 {
		// No operator header, so discovery's server/discover carried no credentials either: it
		// is this very request.
		bare = t.sharedDiscover(ctx, label)
	} else {
		bare = t.SendBare(ctx, discoverSpec(label))
	}
	if cut(bare) {
		return each(ids(authRuleNames...), func(id string) rules.Outcome { return undecidedCut(id, label, bare) }), nil
	}
	if bare.Status() != http.StatusUnauthorized {
		if bare.Status() == http.StatusOK {
			why := fmt.Sprintf("the server answered %s: it does not require authorization", bare.Summary())
			return each(ids(authRuleNames...), func(id string) rules.Outcome { return rules.Absent(id, why) }), nil
		}
		if operatorToken(t) == "" {
			why := fmt.Sprintf("without credentials the server answered %s, not 401; supply --token to grade authorization", bare.Summary())
			return each(ids(authRuleNames...), func(id string) rules.Outcome { return rules.Undecided(id, why) }), nil
		}
		obs := observed(label, bare) + "; a missing token on a protected endpoint MUST get 401"
		return []rules.Outcome{stamp(rules.Failed(rules.IDOf("unauthenticated-401"), obs), bare),
			stamp(rules.Failed(rules.IDOf("auth-status-codes"), obs), bare)}, nil
	}
	obs := observed(label, bare)
	out := []rules.Outcome{
		stamp(rules.Passed(rules.IDOf("unauthenticated-401"), obs), bare),
		stamp(rules.Passed(rules.IDOf("auth-status-codes"), obs), bare),
	}
	if r := bare.Reply(); r != nil && r.Error == nil {
		out = append(out, stamp(rules.Failed(rules.IDOf("no-data-to-unauthorized"), obs+"; the 401 carried a JSON-RPC result"), bare))
	} else {
		out = append(out, stamp(rules.Passed(rules.IDOf("no-data-to-unauthorized"), obs+"; no result reached the unauthenticated caller"), bare))
	}
	challenge := ""
	for _, v := range bare.Response.Header.Values(wire.HeaderAuthenticate) {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(v)), "bearer") {
			challenge = v
		}
	}
	if challenge == "" {
		out = append(out, stamp(rules.Failed(rules.IDOf("401-bearer-challenge"), obs+"; the 401 has no WWW-Authenticate: Bearer challenge"), bare))
	} else {
		out = append(out, stamp(rules.Passed(rules.IDOf("401-bearer-challenge"), "WWW-Authenticate: "+challenge), bare))
	}
	scope, hasScope := authParam(challenge, "scope")
	if hasScope {
		out = append(out, stamp(rules.Passed(rules.IDOf("challenge-includes-scope"), "scope="+scope), bare))
	} else if challenge != "" {
		out = append(out, stamp(rules.Failed(rules.IDOf("challenge-includes-scope"), "the Bearer challenge names no scope: "+challenge), bare))
	}
	why := "needs a token with a reduced scope from the operator, which the scan does not have"
	out = append(out, rules.Undecided(rules.IDOf("insufficient-scope-403"), why), rules.Undecided(rules.IDOf("scope-single-challenge"), why))
	out = append(out, invalidTokenOutcome(ctx, t))
	out = append(out, tokenReuseOutcomes(ctx, t)...)
	out = append(out, prmOutcomes(ctx, t, challenge, scope)...)
	return out, nil
}

// invalidTokenOutcome: an invalid token MUST get 401.
func invalidTokenOutcome(ctx context.Context, t *Target) rules.Outcome {
	label := "server/discover with a garbage bearer token"
	spec := discoverSpec(label)
	spec.Header.Set(wire.HeaderAuthorization, "Bearer sentinel.invalid.token")
	ex := t.SendBare(ctx, spec)
	return reject(rules.IDOf("invalid-token-401"), label, ex, http.StatusUnauthorized, 0)
}

// tokenReuseOutcomes: every request is authenticated on its own (a request without the token
// after one with it still gets 401), and a token in the query string is not accepted.
func tokenReuseOutcomes(ctx context.Context, t *Target) []rules.Outcome {
	perRequest, query := rules.IDOf("token-validated-per-request"), rules.IDOf("no-query-string-token")
	tok := operatorToken(t)
	if tok == "" {
		why := "no --token was supplied, so a request the server accepts cannot be made"
		return []rules.Outcome{rules.Undecided(perRequest, why), rules.Undecided(query, why)}
	}
	var out []rules.Outcome
	first := t.Send(ctx, discoverSpec("server/discover with the operator's token"))
	if first.Status() != http.StatusOK {
		why := fmt.Sprintf("the operator's token was not accepted (%s)", first.Summary())
		return []rules.Outcome{rules.Undecided(perRequest, why), rules.Undecided(query, why)}
	}
	label := "server/discover without a token, right after one with it"
	ex := t.SendBare(ctx, discoverSpec(label))
	out = append(out, reject(perRequest, label, ex, http.StatusUnauthorized, 0))
	u, err := url.Parse(t.Endpoint)
	if err != nil {
		return append(out, rules.Undecided(query, "the endpoint URL could not be parsed"))
	}
	q := u.Query()
	q.Set("access_token", tok)
	u.RawQuery = q.Encode()
	label = "server/discover with the token in the query string and no Authorization header"
	spec := discoverSpec(label)
	spec.URL = u.String()
	ex = t.SendBare(ctx, spec)
	return append(out, reject(query, label, ex, http.StatusUnauthorized, 0))
}

// prmDoc is the part of RFC 9728 metadata the rules read.
type prmDoc struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// prmCandidates lists where the PRM document may be, in the order clients try them.
func prmCandidates(endpoint, challenge string) []string {
	var out []string
	if rm, ok := authParam(challenge, "resource_metadata"); ok && rm != "" {
		out = append(out, rm)
	}
	if u, err := url.Parse(endpoint); err == nil {
		path := strings.TrimSuffix(u.Path, "/")
		root := u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource"
		if path != "" {
			out = append(out, root+path)
		}
		out = append(out, root)
	}
	return out
}

// prmOutcomes fetches the PRM document and grades it.
func prmOutcomes(ctx context.Context, t *Target, challenge, scope string) []rules.Outcome {
	impl, disc, servers, resource := rules.IDOf("prm-implemented"), rules.IDOf("prm-discoverable"), rules.IDOf("prm-authorization-servers"), rules.IDOf("prm-resource-identifier")
	offline, slash := rules.IDOf("no-offline-access-scope"), rules.IDOf("canonical-uri-no-trailing-slash")
	var doc prmDoc
	var ex *wire.Exchange
	found := ""
	for _, c := range prmCandidates(t.Endpoint, challenge) {
		spec := wire.RequestSpec{Method: http.MethodGet, URL: c, Header: http.Header{wire.HeaderAccept: {"application/json"}}, Label: "GET " + c}
		e := t.SendBare(ctx, spec)
		if e.Status() == http.StatusOK && e.Response != nil && wire.Decode(e.Response.Body, &doc) == nil {
			ex, found = e, c
			break
		}
	}
	if ex == nil {
		obs := "no Protected Resource Metadata at resource_metadata or the well-known URIs (" + strings.Join(prmCandidates(t.Endpoint, challenge), ", ") + ")"
		return []rules.Outcome{rules.Failed(impl, obs), rules.Failed(disc, obs)}
	}
	obs := "GET " + found + " → " + ex.Summary()
	out := []rules.Outcome{stamp(rules.Passed(impl, obs), ex), stamp(rules.Passed(disc, obs), ex)}
	if len(doc.AuthorizationServers) > 0 {
		out = append(out, stamp(rules.Passed(servers, obs), ex))
	} else {
		out = append(out, stamp(rules.Failed(servers, obs+"; authorization_servers is empty or missing"), ex))
	}
	switch {
	case doc.Resource == "":
		out = append(out, stamp(rules.Failed(resource, obs+"; the document has no resource member"), ex))
	case !sameResource(doc.Resource, t.Endpoint):
		out = append(out, stamp(rules.Failed(resource, fmt.Sprintf("%s; resource %q does not name the endpoint %s", obs, doc.Resource, t.Endpoint)), ex))
	default:
		out = append(out, stamp(rules.Passed(resource, obs+"; resource "+doc.Resource), ex))
	}
	if strings.HasSuffix(doc.Resource, "/") && !strings.HasSuffix(t.Endpoint, "/") {
		out = append(out, stamp(rules.Failed(slash, fmt.Sprintf("%s; resource %q ends with a slash the endpoint does not have", obs, doc.Resource)), ex))
	} else if doc.Resource != "" {
		out = append(out, stamp(rules.Passed(slash, obs), ex))
	}
	if len(doc.AuthorizationServers) > 0 {
		fetchASMetadata(ctx, t, doc.AuthorizationServers[0])
	}
	hasOffline := strings.Contains(" "+scope+" ", " offline_access ")
	for _, s := range doc.ScopesSupported {
		if s == "offline_access" {
			hasOffline = true
		}
	}
	if hasOffline {
		out = append(out, stamp(rules.Failed(offline, obs+"; offline_access is offered in scopes_supported or the challenge"), ex))
	} else {
		out = append(out, stamp(rules.Passed(offline, obs), ex))
	}
	return out
}

// sameResource compares a PRM resource with the endpoint: scheme and host case-insensitively,
// the path exactly, a trailing slash ignored.
func sameResource(resource, endpoint string) bool {
	a, err1 := url.Parse(resource)
	b, err2 := url.Parse(endpoint)
	if err1 != nil || err2 != nil {
		return false
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host) &&
		strings.TrimSuffix(a.Path, "/") == strings.TrimSuffix(b.Path, "/")
}

// fetchASMetadata reads the first authorization server's metadata (RFC 8414, path-inserted then
// root) so the recorded traffic shows whether it still offers Dynamic Client Registration, a
// deprecated mechanism the deprecation inventory lists. It grades nothing itself: the
// authorization server is not the server under test.
func fetchASMetadata(ctx context.Context, t *Target, issuer string) {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return
	}
	root := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server"
	candidates := []string{root}
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		candidates = []string{root + p, root}
	}
	for _, c := range candidates {
		ex := t.SendBare(ctx, wire.RequestSpec{Method: http.MethodGet, URL: c, Header: http.Header{wire.HeaderAccept: {"application/json"}}, Label: "GET " + c})
		if ex.Status() == http.StatusOK {
			return
		}
	}
}
