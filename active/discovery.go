package active

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcp-sentinel/sentinel/wire"
)

// ErrUnreachable means nothing answered at the endpoint (refused, DNS failure, reset, or no
// response before the deadline): the scanner could not run, which is exit 2, not a verdict.
var ErrUnreachable = errors.New("the endpoint did not answer")

// LegacyVersion is the protocol version the legacy initialize characterisation offers.
const LegacyVersion = "2025-11-25"

// discover runs the era gate: a well-formed server/discover that lists 2026-07-28 makes the
// target modern; otherwise a legacy initialize characterises it. Only a transport failure on
// every attempt is an error.
func (t *Target) discover(ctx context.Context) error {
	ex := t.Call(ctx, "server/discover", nil, wire.WithLabel("well-formed server/discover"))
	t.Discover = ex
	if ex.Response == nil {
		return fmt.Errorf("%w: POST server/discover to %s: %s", ErrUnreachable, ex.Target, ex.Err)
	}
	if reply := ex.Reply(); ex.Status() == http.StatusOK && reply != nil && reply.Error == nil {
		_ = wire.Decode(reply.ResultField("supportedVersions"), &t.SupportedVersions)
		var caps map[string]json.RawMessage
		if wire.Decode(reply.ResultField("capabilities"), &caps) == nil {
			t.Capabilities = caps
		}
		if slices.Contains(t.SupportedVersions, wire.ProtocolVersion) {
			t.Era, t.Modern = EraModern, true
			t.listPrimitives(ctx)
			t.ServesLegacy(ctx) // settles the legacy-clients feature before gating
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
	if st := ex.Status(); (st == http.StatusUnauthorized || st == http.StatusForbidden) && len(wire.HeaderValues(ex.Response.Header, wire.HeaderAuthenticate)) > 0 {
		t.Era = "unknown (authorization required)"
		hint := "supply a token with --token, --token-file or SENTINEL_TOKEN"
		if len(wire.HeaderValues(t.Options.Header, wire.HeaderAuthorization)) > 0 {
			hint = "the token given was not accepted"
		}
		t.EraWhy = fmt.Sprintf("the server requires authorization (%s with WWW-Authenticate): %s", ex.Summary(), hint)
		return nil
	}
	if v, _, ok := t.ServesLegacy(ctx); ok {
		t.Era = fmt.Sprintf("legacy (%s)", v)
		t.EraWhy += fmt.Sprintf("; the legacy initialize handshake succeeded with protocolVersion %s", v)
		t.openLegacySession(ctx)
	}
	return nil
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
		t.legacyEx = t.SendUngraded(ctx, LegacyInitialize(LegacyVersion))
		reply := t.legacyEx.Reply()
		if t.legacyEx.Status() != http.StatusOK || reply == nil || reply.Error != nil {
			return
		}
		t.legacyVer, _ = reply.ResultString("protocolVersion")
	})
	return t.legacyVer, t.legacyEx, t.legacyVer != ""
}

// listPrimitives reads the first page of each declared list and works out which tools the scan
// may call. Failures here are left to the probes and passive checks to judge.
func (t *Target) listPrimitives(ctx context.Context) {
	if t.HasCapability("tools") {
		var res struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if ex := t.Call(ctx, "tools/list", nil, wire.WithLabel("tools/list")); ex.Reply() != nil {
			_ = wire.Decode(ex.Reply().Result, &res)
			t.notePagination(ex)
		}
		for _, raw := range res.Tools {
			if tl, ok := parseTool(raw); ok {
				t.Tools = append(t.Tools, tl)
			}
		}
	}
	if t.HasCapability("prompts") {
		var res struct {
			Prompts []struct {
				Name string `json:"name"`
			} `json:"prompts"`
		}
		if ex := t.Call(ctx, "prompts/list", nil, wire.WithLabel("prompts/list")); ex.Reply() != nil {
			_ = wire.Decode(ex.Reply().Result, &res)
			t.notePagination(ex)
		}
		for _, p := range res.Prompts {
			t.Prompts = append(t.Prompts, p.Name)
		}
	}
	if t.HasCapability("resources") {
		var res struct {
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		}
		if ex := t.Call(ctx, "resources/list", nil, wire.WithLabel("resources/list")); ex.Reply() != nil {
			_ = wire.Decode(ex.Reply().Result, &res)
			t.notePagination(ex)
		}
		for _, r := range res.Resources {
			t.Resources = append(t.Resources, r.URI)
		}
	}
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
	for n := range allowed {
		if !slices.ContainsFunc(t.Tools, func(tl Tool) bool { return tl.Name == n }) {
			t.Note("--allow-call %q names no tool the server lists; it was ignored", n)
		}
	}
}

// notePagination records that a list answered with a nextCursor: the server paginates.
func (t *Target) notePagination(ex *wire.Exchange) {
	if c, ok := ex.Reply().ResultString("nextCursor"); ok && c != "" {
		t.Paginated = true
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
	if json.Unmarshal(raw, &def) != nil || strings.TrimSpace(def.Name) == "" {
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
