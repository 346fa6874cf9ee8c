package active

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestMinimalArgumentsFillsOnlyRequiredProperties(t *testing.T) {
	def := json.RawMessage(`{"name":"t","inputSchema":{"type":"object","required":["s","n","b","e","d","u"],
		"properties":{"s":{"type":"string"},"n":{"type":"integer"},"b":{"type":"boolean"},"e":{"type":"string","enum":["x","y"]},
		"d":{"type":"string","default":"dv"},"opt":{"type":"string"}}}}`)
	got := MinimalArguments(def)
	want := map[string]any{"s": "sentinel", "n": 1, "b": false, "e": "x", "d": "dv", "u": "sentinel"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MinimalArguments = %v, want %v", got, want)
	}
	if got := MinimalArguments(json.RawMessage(`not json`)); len(got) != 0 {
		t.Errorf("bad definition gave %v", got)
	}
}

func TestParseToolReadsAnnotationsAndHeaderParams(t *testing.T) {
	tl, ok := parseTool(json.RawMessage(`{"name":"w","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`))
	if !ok || !tl.ReadOnly || tl.HeaderParams["Region"] != "region" {
		t.Errorf("parseTool = %+v, %v", tl, ok)
	}
	if _, ok := parseTool(json.RawMessage(`{"name":""}`)); ok {
		t.Error("a nameless tool was accepted")
	}
}

func TestExtensionIDProblem(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"io.modelcontextprotocol/tasks", true},
		{"com.example/my-ext.v2", true},
		{"x/y", true},
		{"tasks", false},
		{"1bad/x", false},
		{"com.example-/x", false},
		{"com.example/-x", false},
		{"a/b/c", false},
		{"/x", false},
	}
	for _, tc := range tests {
		if got := ExtensionIDProblem(tc.id); (got == "") != tc.ok {
			t.Errorf("ExtensionIDProblem(%q) = %q, want ok=%v", tc.id, got, tc.ok)
		}
	}
}

func TestFeatureSaysAbsentUnusableOrUsable(t *testing.T) {
	caps := map[string]json.RawMessage{"tools": json.RawMessage(`{}`), "resources": json.RawMessage(`{"subscribe":true}`)}
	tests := []struct {
		name            string
		tg              *Target
		f               rules.Feature
		present, usable bool
	}{
		{"declared capability", &Target{Capabilities: caps}, rules.FeatureTools, true, true},
		{"undeclared capability", &Target{Capabilities: caps}, rules.FeaturePrompts, false, false},
		{"dotted capability", &Target{Capabilities: caps}, rules.FeatureSubscribe, true, true},
		{"tools but none callable", &Target{Capabilities: caps}, rules.FeatureCallableTool, true, false},
		{"a callable tool", &Target{Capabilities: caps, Callable: []string{"x"}}, rules.FeatureCallableTool, true, true},
		{"no pagination seen", &Target{}, rules.FeaturePagination, false, false},
		{"pagination seen", &Target{Paginated: true}, rules.FeaturePagination, true, true},
		{"file resource", &Target{Resources: []string{"FILE:///etc/x"}}, rules.FeatureFileResources, true, true},
		{"no file resource", &Target{Resources: []string{"test://a"}}, rules.FeatureFileResources, false, false},
		{"legacy served", &Target{legacyVer: "2025-11-25"}, rules.FeatureLegacyClients, true, true},
		{"second principal", &Target{}, rules.FeatureTwoPrincipals, true, false},
	}
	for _, tc := range tests {
		p, u, why := tc.tg.Feature(tc.f)
		if p != tc.present || u != tc.usable {
			t.Errorf("%s: present %v usable %v (%s), want %v %v", tc.name, p, u, why, tc.present, tc.usable)
		}
		if (!p || !u) && why == "" {
			t.Errorf("%s: no reason given", tc.name)
		}
	}
}
