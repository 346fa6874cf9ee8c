package active

import (
	"encoding/json"
	"reflect"
	"testing"
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
