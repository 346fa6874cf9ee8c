package active

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// versioningProbes cover version negotiation and the methods this revision removed.
func versioningProbes() []Probe {
	return []Probe{
		{Name: "unsupported-version", RuleIDs: ids("unsupported-version-error", "unsupported-version-http-400", "discover-versions-consistent"), Run: probeUnsupportedVersion},
		{Name: "removed-methods", RuleIDs: ids("removed-methods-absent"), Run: probeRemovedMethods},
		{Name: "legacy-initialize", RuleIDs: ids("initialize-error-names-versions"), Run: probeLegacyInitialize},
	}
}

// unsupportedVersion is a version no server implements, well formed so only support is at issue.
// It sorts after 2026-07-28 so that no dual-era server can mistake it for a legacy version, whose
// handling the older revisions define differently.
const unsupportedVersion = "2999-01-01"

// probeUnsupportedVersion: a request for a version the server does not implement gets 400 and
// -32022 with data.supported (which agrees with supportedVersions) and data.requested.
func probeUnsupportedVersion(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	label := fmt.Sprintf("server/discover for version %s (header and _meta agree)", unsupportedVersion)
	ex := t.Send(ctx, wire.NewCall("server/discover", nil, wire.WithVersion(unsupportedVersion), wire.WithLabel(label)))
	errID, statusID, consID := rules.IDOf("unsupported-version-error"), rules.IDOf("unsupported-version-http-400"), rules.IDOf("discover-versions-consistent")
	out := []rules.Outcome{reject(statusID, label, ex, http.StatusBadRequest, 0)}
	if cut(ex) {
		return append(out, undecidedCut(errID, label, ex), undecidedCut(consID, label, ex)), nil
	}
	obs := observed(label, ex)
	code, isErr := ex.ErrorCode()
	if !isErr || code != wire.CodeUnsupportedVersion {
		return append(out, stamp(rules.Failed(errID, obs+"; expected JSON-RPC error -32022"), ex),
			stamp(rules.Undecided(consID, obs+"; no -32022 data to compare with supportedVersions"), ex)), nil
	}
	var data struct {
		Supported []string `json:"supported"`
		Requested *string  `json:"requested"`
	}
	raw := ex.Reply().Error.Data
	var problems []string
	if err := json.Unmarshal(raw, &data); err != nil || len(raw) == 0 {
		problems = append(problems, "error.data is not an object with supported and requested")
	} else {
		if data.Supported == nil {
			problems = append(problems, "error.data.supported is missing")
		}
		if data.Requested == nil || *data.Requested != unsupportedVersion {
			problems = append(problems, fmt.Sprintf("error.data.requested does not echo %q", unsupportedVersion))
		}
	}
	if len(problems) > 0 {
		out = append(out, stamp(rules.Failed(errID, obs+"; "+strings.Join(problems, "; ")), ex))
	} else {
		out = append(out, stamp(rules.Passed(errID, obs+fmt.Sprintf("; data.supported %v", data.Supported)), ex))
	}
	switch {
	case data.Supported == nil:
		out = append(out, stamp(rules.Undecided(consID, obs+"; no data.supported to compare"), ex))
	case !slices.Contains(t.SupportedVersions, wire.ProtocolVersion):
		out = append(out, stamp(rules.Failed(consID, fmt.Sprintf("supportedVersions %v does not list %s, the version in use", t.SupportedVersions, wire.ProtocolVersion)), ex))
	case !subset(data.Supported, t.SupportedVersions):
		out = append(out, stamp(rules.Failed(consID, fmt.Sprintf("%s; data.supported %v is not among supportedVersions %v", obs, data.Supported, t.SupportedVersions)), ex))
	default:
		out = append(out, stamp(rules.Passed(consID, fmt.Sprintf("data.supported %v agrees with supportedVersions %v", data.Supported, t.SupportedVersions)), ex))
	}
	return out, nil
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// probeRemovedMethods: initialize, ping, logging/setLevel, resources/subscribe and
// resources/unsubscribe sent with a valid 2026-07-28 envelope get 404 and -32601.
func probeRemovedMethods(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	removed := []struct {
		method string
		params map[string]any
	}{
		{"initialize", map[string]any{"protocolVersion": wire.ProtocolVersion, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": wire.ClientName, "version": wire.ClientVersion}}},
		{"ping", nil},
		{"logging/setLevel", map[string]any{"level": "info"}},
		{"resources/subscribe", map[string]any{"uri": "sentinel://probe/absent"}},
		{"resources/unsubscribe", map[string]any{"uri": "sentinel://probe/absent"}},
	}
	id := rules.IDOf("removed-methods-absent")
	var out []rules.Outcome
	for _, r := range removed {
		label := r.method + " with a valid 2026-07-28 envelope"
		ex := t.Send(ctx, wire.NewCall(r.method, r.params, wire.WithLabel(label)))
		out = append(out, reject(id, label, ex, http.StatusNotFound, wire.CodeMethodNotFound))
	}
	return out, nil
}

// probeLegacyInitialize: any error answering initialize SHOULD name the supported versions, as
// it is all a legacy client's user will see. Any 4xx JSON-RPC error is accepted as the refusal.
func probeLegacyInitialize(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("initialize-error-names-versions")
	label := "a legacy initialize (protocolVersion " + LegacyVersion + ", no _meta, no Mcp-* headers)"
	_, ex, _ := t.ServesLegacy(ctx)
	if cut(ex) {
		return []rules.Outcome{undecidedCut(id, label, ex)}, nil
	}
	obs := observed(label, ex)
	reply := ex.Reply()
	if reply != nil && reply.Error == nil && ex.Delivered() {
		return []rules.Outcome{stamp(rules.Absent(id, obs+"; the server also serves the legacy handshake, so initialize gets no error"), ex)}, nil
	}
	if reply == nil || reply.Error == nil {
		return []rules.Outcome{stamp(rules.Failed(id, obs+"; the refusal carries no JSON-RPC error naming the supported versions"), ex)}, nil
	}
	text := reply.Error.Message + " " + string(reply.Error.Data)
	for _, v := range t.SupportedVersions {
		if strings.Contains(text, v) {
			return []rules.Outcome{stamp(rules.Passed(id, obs+fmt.Sprintf("; the error names %s", v)), ex)}, nil
		}
	}
	return []rules.Outcome{stamp(rules.Failed(id, fmt.Sprintf("%s; neither the message %q nor data names a supported version %v", obs, reply.Error.Message, t.SupportedVersions)), ex)}, nil
}
