package active

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// resourceProbes cover resources/list, reading a resource that does not exist, and malformed URIs.
func resourceProbes() []Probe {
	return []Probe{
		{Name: "resources-list", Requires: rules.FeatureResources, RuleIDs: ids("resources-list-current"), Run: probeResourcesList},
		{Name: "resource-not-found", Requires: rules.FeatureResources, RuleIDs: ids("resource-not-found-32602", "no-empty-contents-missing"), Run: probeResourceNotFound},
		{Name: "resource-bad-uri", Requires: rules.FeatureResources, RuleIDs: ids("validate-resource-uris"), Run: probeResourceBadURI},
		{Name: "resource-path-traversal", Requires: rules.FeatureResources, RuleIDs: ids("no-path-traversal"), Run: probePathTraversal},
		{Name: "resource-read", Requires: rules.FeatureResources, RuleIDs: ids("binary-properly-encoded", "custom-uri-rfc3986", "content-blocks-valid"), Run: probeResourceRead},
	}
}

// maxResourceReads bounds how many listed resources probeResourceRead reads.
const maxResourceReads = 8

// probeResourceRead reads the first listed resources (a read has no side effects) so the passive
// checks grade what they contain: blobs MUST be base64, URIs RFC 3986. The probe itself judges
// nothing; a resource that cannot be read is the business of the resources rules.
func probeResourceRead(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	for i, uri := range t.Resources {
		if i == maxResourceReads || ctx.Err() != nil {
			break
		}
		t.readResource(ctx, uri, fmt.Sprintf("resources/read of listed %q", uri))
	}
	return nil, nil
}

// probeResourcesList: with resources declared, resources/list MUST return the current set.
func probeResourcesList(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	return []rules.Outcome{listCurrent(ctx, t, "resources-list-current", "resources/list", "resources")}, nil
}

// listCurrent judges one list method: a result carrying the named array.
func listCurrent(ctx context.Context, t *Target, rule, method, member string) rules.Outcome {
	id := rules.IDOf(rule)
	ex := t.firstPage(ctx, method, method)
	if cut(ex) {
		return undecidedCut(id, method, ex)
	}
	var items []json.RawMessage
	if r := resultOf(ex); r != nil && r[member] != nil && wire.Decode(r[member], &items) == nil {
		return stamp(rules.Passed(id, fmt.Sprintf("%s; %d item(s) listed", observed(method, ex), len(items))), ex)
	}
	return stamp(rules.Failed(id, fmt.Sprintf("%s; expected a result with a %s array although the capability is declared", observed(method, ex), member)), ex)
}

// probeResourceNotFound: reading a resource that does not exist MUST get -32602 (not the retired
// -32002) and MUST NOT get empty contents.
func probeResourceNotFound(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	uri := "sentinel-missing://nowhere/7f3a9c"
	label := fmt.Sprintf("resources/read of %q, which does not exist", uri)
	ex := t.Call(ctx, "resources/read", map[string]any{"uri": uri}, wire.WithLabel(label))
	notFound, empty := rules.IDOf("resource-not-found-32602"), rules.IDOf("no-empty-contents-missing")
	if cut(ex) {
		return []rules.Outcome{undecidedCut(notFound, label, ex), undecidedCut(empty, label, ex)}, nil
	}
	out := []rules.Outcome{reject(notFound, label, ex, 0, wire.CodeInvalidParams)}
	if r := resultOf(ex); r != nil {
		var contents []json.RawMessage
		_ = wire.Decode(r["contents"], &contents)
		if len(contents) == 0 {
			out = append(out, stamp(rules.Failed(empty, observed(label, ex)+"; a missing resource was answered with empty contents"), ex))
		} else {
			out = append(out, stamp(rules.Failed(empty, observed(label, ex)+"; a resource that does not exist was served"), ex))
		}
	} else {
		out = append(out, stamp(rules.Passed(empty, observed(label, ex)+"; answered with an error, not empty contents"), ex))
	}
	return out, nil
}

// probeResourceBadURI: servers MUST validate resource URIs; a string that is no URI at all must
// be refused with an error, never served.
func probeResourceBadURI(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	uri := "::not a uri::\x7f"
	label := "resources/read with a malformed URI"
	ex := t.Call(ctx, "resources/read", map[string]any{"uri": uri}, wire.WithLabel(label))
	id := rules.IDOf("validate-resource-uris")
	if cut(ex) {
		return []rules.Outcome{undecidedCut(id, label, ex)}, nil
	}
	if ex.Response != nil && ex.Status() >= 500 {
		return []rules.Outcome{stamp(rules.Failed(id, observed(label, ex)+"; a malformed URI crashed the handler instead of being refused"), ex)}, nil
	}
	if r := resultOf(ex); r != nil {
		return []rules.Outcome{stamp(rules.Failed(id, observed(label, ex)+"; a malformed URI was served"), ex)}, nil
	}
	if ex.Reply() == nil {
		// An answer with no JSON-RPC response at all (an empty event stream) is no validation:
		// the client learns nothing, not even that the URI was refused.
		return []rules.Outcome{stamp(rules.Failed(id, observed(label, ex)+"; the malformed URI got no JSON-RPC answer instead of an error"), ex)}, nil
	}
	return []rules.Outcome{stamp(rules.Passed(id, observed(label, ex)+"; refused"), ex)}, nil
}

// fileURIs returns the file:// URIs among the listed resources and resource templates (a
// template's variables cut off at the first "{").
func fileURIs(ctx context.Context, t *Target) []string {
	var out []string
	for _, u := range t.Resources {
		if strings.HasPrefix(strings.ToLower(u), "file://") {
			out = append(out, u)
		}
	}
	ex := t.firstPage(ctx, "resources/templates/list", "resources/templates/list")
	var res struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	if r := ex.Reply(); r != nil && r.Error == nil && wire.Decode(r.Result, &res) == nil {
		for _, tpl := range res.ResourceTemplates {
			if strings.HasPrefix(strings.ToLower(tpl.URITemplate), "file://") {
				base, _, _ := strings.Cut(tpl.URITemplate, "{")
				out = append(out, base)
			}
		}
	}
	return out
}

// traversalURI climbs out of the directory of a file:// URI to /etc/passwd.
func traversalURI(base string) string {
	dir := base
	if i := strings.LastIndex(dir, "/"); i > len("file://") {
		dir = dir[:i+1]
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	return dir + strings.Repeat("../", 12) + "etc/passwd"
}

// probePathTraversal: servers MUST sanitize file:// paths against directory traversal. The probe
// reads ../ sequences out of the directory of a file resource the server lists (plain and
// percent-encoded) and fails the server if either read is served. It only applies to servers
// that expose file:// resources or templates.
func probePathTraversal(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("no-path-traversal")
	bases := fileURIs(ctx, t)
	if len(bases) == 0 {
		return []rules.Outcome{rules.Absent(id, "the server lists no file:// resources or templates")}, nil
	}
	plain := traversalURI(bases[0])
	encoded := strings.ReplaceAll(plain, "../", "%2e%2e/")
	var out []rules.Outcome
	for _, uri := range []string{plain, encoded} {
		label := fmt.Sprintf("resources/read of %q", uri)
		ex := t.Call(ctx, "resources/read", map[string]any{"uri": uri}, wire.WithLabel(label))
		if cut(ex) {
			out = append(out, undecidedCut(id, label, ex))
			continue
		}
		var contents []json.RawMessage
		if r := resultOf(ex); r != nil && wire.Decode(r["contents"], &contents) == nil && len(contents) > 0 {
			out = append(out, stamp(rules.Failed(id, observed(label, ex)+"; a path outside the resource root was served"), ex))
		} else {
			out = append(out, stamp(rules.Passed(id, observed(label, ex)+"; the traversal was not served"), ex))
		}
	}
	return out, nil
}
