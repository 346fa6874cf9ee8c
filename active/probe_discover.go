package active

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// discoverProbes judge server/discover itself and the two-way consistency between declared
// capabilities and the methods that work. The shape of the DiscoverResult is judged by the
// passive checks on the discovery exchange.
func discoverProbes() []Probe {
	return []Probe{
		{Name: "discover-implemented", RuleIDs: ids("discover-implemented"), AnyEra: true, Run: probeDiscoverImplemented},
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
	return []rules.Outcome{stamp(rules.Failed(id, fmt.Sprintf("%s; era %s: %s", observed(label, ex), t.Era, t.EraWhy)), ex)}, nil
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
		case ex.Status() == http.StatusOK && ex.Reply() != nil && !isErr:
			out = append(out, stamp(rules.Failed(id, observed(label, ex)+fmt.Sprintf("; the server offers %s without declaring the capability", c.capability)), ex))
		case isErr && code == wire.CodeMethodNotFound:
			out = append(out, stamp(rules.Passed(id, observed(label, ex)), ex))
		default:
			out = append(out, stamp(rules.Undecided(id, observed(label, ex)+"; neither a result nor -32601, so whether the feature is offered is unclear"), ex))
		}
	}
	return out, nil
}
