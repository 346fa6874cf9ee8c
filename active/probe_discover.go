package active

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// discoverProbes judge server/discover itself and the two-way consistency between declared
// capabilities and the methods that work. The shape of the DiscoverResult is judged by the
// passive checks on the discovery exchange.
func discoverProbes() []Probe {
	return []Probe{
		{Name: "discover-implemented", RuleIDs: ids("discover-implemented"), AnyEra: true, Run: probeDiscoverImplemented},
		{Name: "message-patterns", RuleIDs: ids("support-message-patterns"), AnyEra: true, Run: probeMessagePatterns},
		// extension-fallback is judged by the passive checks on whatever traffic shows an
		// extension; citing it here makes it n/a on a server that declares no extensions.
		{Name: "extension-ids", RuleIDs: ids("extension-id-grammar", "extension-fallback"), Requires: rules.FeatureExtensions, Run: probeExtensionIDs},
		{Name: "declared-capabilities", RuleIDs: ids("declare-tools", "declare-resources", "declare-prompts", "declare-completions"), Run: probeDeclared},
	}
}

// probeDiscoverImplemented: "Servers MUST implement server/discover" [U/server/discover]. It
// reads the era gate's exchange, so a server outside the era fails here, plainly.
func probeDiscoverImplemented(_ context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("discover-implemented")
	ex := t.Discover
	label := "a well-formed server/discover"
	if cut(ex) {
		return []rules.Outcome{undecidedCut(id, label, ex)}, nil
	}
	if t.Modern {
		return []rules.Outcome{stamp(rules.Passed(id, observed(label, ex)+fmt.Sprintf("; supportedVersions %v", t.SupportedVersions)), ex)}, nil
	}
	why := strings.TrimPrefix(strings.TrimPrefix(t.EraWhy, "a well-formed server/discover got "+ex.Summary()), "; ")
	obs := fmt.Sprintf("%s; era %s", observed(label, ex), t.Era)
	if why != "" {
		obs += ": " + why
	}
	return []rules.Outcome{stamp(rules.Failed(id, obs), ex)}, nil
}

// probeDeclared: "Servers that support tools MUST declare the tools capability" (and likewise
// resources, prompts, completions). An undeclared feature whose list method nevertheless works
// is a feature offered without being declared.
func probeDeclared(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	checks := []struct {
		rule, capability, method string
		params                   map[string]any
	}{
		{"declare-tools", "tools", "tools/list", nil},
		{"declare-resources", "resources", "resources/list", nil},
		{"declare-prompts", "prompts", "prompts/list", nil},
		{"declare-completions", "completions", "completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/prompt", "name": "sentinel-probe"},
			"argument": map[string]any{"name": "a", "value": ""},
		}},
	}
	// Completion of a prompt argument the server really has is answered by a server that serves
	// completion; an invented prompt would get -32602 from it, which proves nothing either way.
	if !t.HasCapability("completions") && t.HasCapability("prompts") {
		if prompts, _, ok := listPrompts(ctx, t); ok {
			for _, p := range prompts {
				if len(p.Arguments) > 0 {
					checks[3].params = map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": p.Name},
						"argument": map[string]any{"name": p.Arguments[0].Name, "value": ""}}
					break
				}
			}
		}
	}
	var out []rules.Outcome
	for _, c := range checks {
		id := rules.IDOf(c.rule)
		if t.HasCapability(c.capability) {
			out = append(out, stamp(rules.Passed(id, fmt.Sprintf("server/discover declares %s", c.capability)), t.Discover))
			continue
		}
		label := fmt.Sprintf("%s while %s is not declared", c.method, c.capability)
		ex := t.Call(ctx, c.method, c.params, wire.WithLabel(label))
		switch code, isErr := ex.ErrorCode(); {
		case cut(ex):
			out = append(out, undecidedCut(id, label, ex))
		case ex.Delivered() && ex.Reply() != nil && !isErr:
			out = append(out, stamp(rules.Failed(id, observed(label, ex)+fmt.Sprintf("; the server offers %s without declaring the capability", c.capability)), ex))
		case isErr && code == wire.CodeMethodNotFound:
			out = append(out, stamp(rules.Passed(id, observed(label, ex)), ex))
		default:
			out = append(out, stamp(rules.Undecided(id, observed(label, ex)+"; neither a result nor -32601, so whether the feature is offered is unclear"), ex))
		}
	}
	return out, nil
}

// Extension identifiers follow the _meta key grammar with the prefix required: dot-separated
// labels (a letter first, a letter or digit last), a slash, then a name (alphanumeric at both
// ends; '-', '_' and '.' inside).
var (
	extLabel = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?$`)
	extName  = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
)

// ExtensionIDProblem says what is wrong with an extension identifier, "" when it is well formed.
func ExtensionIDProblem(id string) string {
	prefix, name, ok := strings.Cut(id, "/")
	if !ok || strings.Contains(name, "/") {
		return "it has no prefix ending in one '/'"
	}
	for _, l := range strings.Split(prefix, ".") {
		if !extLabel.MatchString(l) {
			return fmt.Sprintf("prefix label %q must start with a letter and end with a letter or digit", l)
		}
	}
	if !extName.MatchString(name) {
		return fmt.Sprintf("name %q must start and end with a letter or digit", name)
	}
	return ""
}

// probeExtensionIDs: keys of capabilities.extensions MUST follow the _meta key grammar, prefix
// mandatory. It reads the DiscoverResult the era gate already holds.
func probeExtensionIDs(_ context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("extension-id-grammar")
	var exts map[string]json.RawMessage
	if err := json.Unmarshal(t.Capabilities["extensions"], &exts); err != nil {
		return []rules.Outcome{stamp(rules.Failed(id, "capabilities.extensions is not an object"), t.Discover)}, nil
	}
	keys := make([]string, 0, len(exts))
	for k := range exts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var bad []string
	for _, k := range keys {
		if p := ExtensionIDProblem(k); p != "" {
			bad = append(bad, fmt.Sprintf("%q: %s", k, p))
		}
	}
	if len(bad) > 0 {
		return []rules.Outcome{stamp(rules.Failed(id, "server/discover declares extension "+strings.Join(bad, "; ")), t.Discover)}, nil
	}
	return []rules.Outcome{stamp(rules.Passed(id, fmt.Sprintf("extension identifiers %v are well formed", keys)), t.Discover)}, nil
}

// probeMessagePatterns: servers MUST support the base protocol and its message patterns. From
// outside, request/response is settled by the era gate's server/discover; MRTR is seen only
// through a tool that answers input_required, and the listen rules judge subscribe/notify where it
// is offered. A server outside the era supports none of the revision's patterns.
func probeMessagePatterns(_ context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("support-message-patterns")
	ex := t.Discover
	if cut(ex) {
		return []rules.Outcome{undecidedCut(id, "a well-formed server/discover", ex)}, nil
	}
	if !t.Modern {
		return []rules.Outcome{stamp(rules.Failed(id, fmt.Sprintf("%s; the server does not serve the %s request/response pattern (era %s)",
			observed("a well-formed server/discover", ex), wire.ProtocolVersion, t.Era)), ex)}, nil
	}
	obs := "request/response served (server/discover answered with a result)"
	if t.MRTRTool != "" {
		obs += fmt.Sprintf("; MRTR seen: tool %q answered input_required", t.MRTRTool)
	} else {
		obs += "; MRTR not exercised (no callable tool answered input_required)"
	}
	return []rules.Outcome{stamp(rules.Passed(id, obs), ex)}, nil
}
