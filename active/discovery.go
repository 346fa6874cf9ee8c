package active

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-sentinel/sentinel/wire"
)

// ErrUnreachable means nothing answered at the endpoint (refused, DNS failure, reset, or no
// response before the deadline): the scanner could not run, which is exit 2, not a verdict.
var ErrUnreachable = errors.New("the endpoint did not answer")

// LegacyVersion is the protocol version the legacy initialize characterisation offers.
const LegacyVersion = "2025-11-25"

// discover runs the era gate: a well-formed server/discover that lists 2026-07-28 makes the
// target modern; otherwise a legacy initialize characterises it. Only a transport failure on
// every attempt is an error. On a modern target eraPassed (if not nil) is called once the
// discover's answer is recorded and before the lists are read, on this goroutine: what it starts
// may read the era and the capabilities, nothing discovery sets after them.
func (t *Target) discover(ctx context.Context, eraPassed func()) error {
	ex := t.Call(ctx, "server/discover", nil, wire.WithLabel("well-formed server/discover"))
	t.Discover = ex
	if ex.Response == nil && t.stdio != nil {
		// Over stdio a legacy server may answer an unknown method with nothing at all: the
		// binding's backward-compatibility rule says to fall back to initialize then.
		t.EraWhy = fmt.Sprintf("a well-formed server/discover got %s", ex.Summary())
		if v, _, ok := t.ServesLegacy(ctx); ok {
			t.Era = fmt.Sprintf("legacy (%s)", v)
			t.EraWhy += fmt.Sprintf("; the legacy initialize handshake succeeded with protocolVersion %s", v)
			t.openLegacySession(ctx)
			return nil
		}
		return fmt.Errorf("%w: the stdio server answered neither server/discover nor initialize: %s", ErrUnreachable, t.stdio.whyUnreachable())
	}
	if ex.Response == nil {
		return fmt.Errorf("%w: POST server/discover to %s: %s", ErrUnreachable, ex.Target, ex.Err)
	}
	if reply := ex.Reply(); ex.Delivered() && reply != nil && reply.Error == nil {
		_ = wire.Decode(reply.ResultField("supportedVersions"), &t.SupportedVersions)
		var caps map[string]json.RawMessage
		if wire.Decode(reply.ResultField("capabilities"), &caps) == nil {
			t.Capabilities = caps
		}
		if slices.Contains(t.SupportedVersions, wire.ProtocolVersion) {
			t.Era, t.Modern = EraModern, true
			if eraPassed != nil {
				eraPassed()
			}
			// The lists and the legacy initialize (which settles the legacy-clients feature
			// before gating) depend on nothing but the discover: they go at once.
			t.parallel(ctx, t.listPrimitives, func(ctx context.Context) { t.ServesLegacy(ctx) })
			return nil
		}
		t.EraWhy = fmt.Sprintf("server/discover answered but its supportedVersions %v does not list %s", t.SupportedVersions, wire.ProtocolVersion)
	} else {
		t.EraWhy = fmt.Sprintf("a well-formed server/discover got %s", ex.Summary())
		if ex.Status() == http.StatusNotFound && ex.Reply() == nil {
			t.EraWhy += " (a 404 without a JSON-RPC body usually means the path is not the MCP endpoint: check --endpoint)"
		}
	}
	t.Era = "unknown"
	if reason := unauthorized(ex, t.Options.Header); reason != "" {
		t.Era = "unknown (authorization required)"
		t.EraWhy = reason
		t.couldNotRun = reason
		return nil
	}
	v, legacy, ok := t.ServesLegacy(ctx)
	if ok {
		t.Era = fmt.Sprintf("legacy (%s)", v)
		t.EraWhy += fmt.Sprintf("; the legacy initialize handshake succeeded with protocolVersion %s", v)
		t.openLegacySession(ctx)
		return nil
	}
	if !speaksJSONRPC(ex) && !speaksJSONRPC(legacy) {
		t.couldNotRun = notMCP(ex, legacy)
	}
	return nil
}

// unauthorized returns why the scan cannot go on when the discover was refused for want of
// authorization (401, or 403 with a Bearer challenge), "" otherwise. Without a token that the
// server accepts, every answer would be the same refusal, and grading it as an MCP server would
// only report the refusal many times over.
func unauthorized(ex *wire.Exchange, sent http.Header) string {
	st := ex.Status()
	challenges := wire.HeaderValues(ex.Response.Header, wire.HeaderAuthenticate)
	if st != http.StatusUnauthorized && (st != http.StatusForbidden || len(challenges) == 0) {
		return ""
	}
	what := fmt.Sprintf("%d", st)
	if len(challenges) > 0 {
		what += ", WWW-Authenticate: " + clipText(strings.Join(challenges, ", "), 200)
	}
	for _, c := range challenges {
		if rm, ok := authParam(c, "resource_metadata"); ok && rm != "" {
			what += ", resource metadata " + clipText(rm, 200)
			break
		}
	}
	if len(wire.HeaderValues(sent, wire.HeaderAuthorization)) > 0 {
		if st == http.StatusForbidden {
			return fmt.Sprintf("the endpoint refused the token given (%s): it lacks a scope the server requires; use a token with the scope the challenge names", what)
		}
		return fmt.Sprintf("the endpoint refused the token given (%s): check the token in --token-file or %s", what, "SENTINEL_TOKEN")
	}
	return fmt.Sprintf("the endpoint requires authorization (%s): pass --token-file or SENTINEL_TOKEN", what)
}

// speaksJSONRPC reports whether ex got an answer carrying at least one JSON-RPC message.
func speaksJSONRPC(ex *wire.Exchange) bool {
	return ex != nil && ex.Response != nil && len(ex.Response.Messages) > 0
}

// notMCP says why an endpoint that answered neither server/discover nor the legacy initialize
// with any JSON-RPC message is not an MCP endpoint (a web page, a 404, a proxy's error page).
func notMCP(discover, legacy *wire.Exchange) string {
	path := "/"
	if u, err := url.Parse(discover.Request.URL); err == nil && u.Path != "" {
		path = u.Path
	}
	what := func(ex *wire.Exchange) string {
		s := ex.Summary()
		if ex.Response != nil && len(ex.Response.Body) > 0 {
			s += fmt.Sprintf(" (%d bytes, no JSON-RPC message)", len(ex.Response.Body))
		}
		return s
	}
	msg := fmt.Sprintf("not an MCP endpoint: POST %s → %s", path, strings.TrimPrefix(what(discover), "POST server/discover → "))
	if legacy != nil && legacy.Response != nil {
		msg += "; a legacy initialize got " + strings.TrimPrefix(what(legacy), "POST initialize → ")
	}
	return msg + ": check --endpoint (the URL of the MCP endpoint itself, e.g. https://host/mcp)"
}

// clipText shortens a server-supplied string quoted in a message.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// LegacyInitialize builds the pre-2026 initialize request exactly as a 2025 client sends it: no
// _meta claim and no Mcp-* headers. It declares sampling, as the 2025 clients that servers were
// written against did, so that a legacy server shows whether it sends server-initiated requests
// (sampling/createMessage on a call's stream), the mechanism the new era removed; the scan never
// answers them, and a server that gives up says so with notifications/cancelled.
func LegacyInitialize(version string) wire.RequestSpec {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"sentinel-init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{"sampling":{}},"clientInfo":{"name":%q,"version":%q}}}`,
		version, wire.ClientName, wire.ClientVersion)
	return wire.RequestSpec{
		Method: http.MethodPost,
		Header: http.Header{wire.HeaderContentType: {wire.ContentTypeJSON}, wire.HeaderAccept: {wire.AcceptBoth}},
		Body:   []byte(body),
		Label:  "legacy initialize",
	}
}

// ServesLegacy reports whether the server completes a legacy initialize handshake (it also
// serves pre-2026 clients), with the version it answered and the exchange. The handshake is sent
// once per scan, ungraded: the new era's rules say nothing about a legacy answer.
func (t *Target) ServesLegacy(ctx context.Context) (version string, ex *wire.Exchange, ok bool) {
	t.legacyOnce.Do(func() {
		if t.stdio != nil && t.Modern {
			// On stdio an initialize selects legacy semantics for the whole process: ask a
			// throwaway one, so the scan's own process stays modern.
			ctx = withAside(ctx)
		}
		t.legacyEx = t.SendUngraded(ctx, LegacyInitialize(LegacyVersion))
		reply := t.legacyEx.Reply()
		if !t.legacyEx.Delivered() || reply == nil || reply.Error != nil {
			return
		}
		t.legacyVer, _ = reply.ResultString("protocolVersion")
	})
	return t.legacyVer, t.legacyEx, t.legacyVer != ""
}

// listPrimitives reads the first page of each declared list and works out which tools the scan
// may call. Failures here are left to the probes and passive checks to judge; which lists were
// read is recorded, because only a list the server served proves that something is absent. The
// three lists depend on nothing but the discover, so they are read at once; the search for a
// tool that answers input_required needs the tools list, so it comes after.
func (t *Target) listPrimitives(ctx context.Context) {
	t.parallel(ctx, t.readTools, t.readPrompts, t.readResources)
	allowed := map[string]bool{}
	for _, n := range t.Options.AllowCall {
		allowed[n] = true
	}
	for _, tl := range t.Tools {
		if tl.ReadOnly || allowed[tl.Name] {
			t.Callable = append(t.Callable, tl.Name)
		}
	}
	t.findMRTRTool(ctx)
	names := make([]string, 0, len(allowed))
	for n := range allowed {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if t.Listed("tools/list") && !slices.ContainsFunc(t.Tools, func(tl Tool) bool { return tl.Name == n }) {
			t.Note("--allow-call %q names no tool the server lists; it was ignored", n)
		}
	}
}

// readTools reads the first page of tools/list when tools are declared.
func (t *Target) readTools(ctx context.Context) {
	if !t.HasCapability("tools") {
		return
	}
	var res struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if ex := t.firstPage(ctx, "tools/list", "tools/list"); t.readList(ex, "tools", &res) {
		t.notePagination(ex)
	}
	var tools []Tool
	for _, raw := range res.Tools {
		if tl, ok := parseTool(raw); ok {
			tools = append(tools, tl)
		}
	}
	// Every choice the probes make among tools is made in name order, so identical scans
	// make identical choices whatever order the server lists them in.
	slices.SortStableFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	t.Tools = tools
}

// readPrompts reads the first page of prompts/list when prompts are declared.
func (t *Target) readPrompts(ctx context.Context) {
	if !t.HasCapability("prompts") {
		return
	}
	var res struct {
		Prompts []struct {
			Name string `json:"name"`
		} `json:"prompts"`
	}
	if ex := t.firstPage(ctx, "prompts/list", "prompts/list"); t.readList(ex, "prompts", &res) {
		t.notePagination(ex)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	t.Prompts = names
}

// readResources reads the first page of resources/list when resources are declared.
func (t *Target) readResources(ctx context.Context) {
	if !t.HasCapability("resources") {
		return
	}
	var res struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	if ex := t.firstPage(ctx, "resources/list", "resources/list"); t.readList(ex, "resources", &res) {
		t.notePagination(ex)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	t.Resources = uris
}

// parallel runs fs at once and returns when all have finished, when the scan may send requests
// concurrently (Options.Concurrency above 1); one after the other otherwise. Each f writes only
// its own fields of t, or takes t.mu.
func (t *Target) parallel(ctx context.Context, fs ...func(context.Context)) {
	if t.Options.Concurrency <= 1 {
		for _, f := range fs {
			f(ctx)
		}
		return
	}
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(func() { f(ctx) })
	}
	wg.Wait()
}

// readList decodes a list reply into v and records whether the server served the list: a
// result carrying the member array. A refused or malformed list is recorded as not read.
func (t *Target) readList(ex *wire.Exchange, member string, v any) bool {
	r := ex.Reply()
	ok := ex.Delivered() && r != nil && r.Error == nil && wire.Decode(r.Result, v) == nil
	if ok {
		var arr []json.RawMessage
		ok = wire.Decode(r.ResultField(member), &arr) == nil && r.ResultField(member) != nil
	}
	t.mu.Lock()
	if t.listed == nil {
		t.listed = map[string]bool{}
	}
	t.listed[ex.Request.Message.Method] = ok
	t.mu.Unlock()
	return ok
}

// Listed reports whether discovery read the named list (tools/list, prompts/list,
// resources/list) as a result with its array. Absence is concluded only from a list that was
// read; anything else is unknown.
func (t *Target) Listed(method string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.listed[method]
}

// notePagination records that a list answered with a nextCursor: the server paginates.
func (t *Target) notePagination(ex *wire.Exchange) {
	if c, ok := ex.Reply().ResultString("nextCursor"); ok && c != "" {
		t.mu.Lock()
		t.Paginated = true
		t.mu.Unlock()
	}
}

func parseTool(raw json.RawMessage) (Tool, bool) {
	var def struct {
		Name        string `json:"name"`
		Annotations struct {
			ReadOnlyHint *bool `json:"readOnlyHint"`
		} `json:"annotations"`
		InputSchema struct {
			Properties map[string]struct {
				Header string `json:"x-mcp-header"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if wire.Decode(raw, &def) != nil || strings.TrimSpace(def.Name) == "" {
		return Tool{}, false
	}
	tl := Tool{Name: def.Name, Raw: raw, ReadOnly: def.Annotations.ReadOnlyHint != nil && *def.Annotations.ReadOnlyHint}
	for arg, p := range def.InputSchema.Properties {
		if p.Header != "" {
			if tl.HeaderParams == nil {
				tl.HeaderParams = map[string]string{}
			}
			tl.HeaderParams[p.Header] = arg
		}
	}
	return tl, true
}
