// Package schema is the broker's documented, versioned data model: the JSON Schema document
// v1.json, whose definitions are the tools' request and result shapes (ScoringRequest as
// FlagInjectionRequest and CheckGroundednessRequest, EvaluationResult, Verdict, MetricPolicy,
// TenantPolicy, ...). The manifest serves Def(name) as a tool's inputSchema or outputSchema, so
// what tools/list publishes, what docs/broker.md documents and what the contract tests validate
// real results against are one document.
//
// A new incompatible shape is a new file (v2.json) and a new Version; v1 is never edited in a way
// that refuses what it accepted or drops what it promised.
//
// schema imports nothing of Sentinel's.
package schema

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Version is the data model's version, the suffix of ID.
const Version = "1"

// ID is the document's $id.
const ID = "urn:sentinel:broker:schema:v" + Version

//go:embed v1.json
var document []byte

// Document returns the schema document as committed.
func Document() []byte { return append([]byte(nil), document...) }

var defs = mustDefs()

func mustDefs() map[string]any {
	var doc struct {
		ID   string         `json:"$id"`
		Defs map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(document, &doc); err != nil {
		panic(fmt.Sprintf("broker/schema: v1.json: %v", err)) // caught by every test
	}
	if doc.ID != ID {
		panic(fmt.Sprintf("broker/schema: v1.json has $id %q, want %q", doc.ID, ID))
	}
	return doc.Defs
}

// Names lists the definitions, sorted.
func Names() []string {
	out := make([]string, 0, len(defs))
	for k := range defs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Def returns definition name as a standalone schema: every local $ref replaced by the definition
// it names, compact JSON with sorted keys (so the bytes are the same on every call), and a
// $comment naming where it comes from. It panics on an unknown name: tool definitions are fixed
// at build time, and a wrong name is a programming error every test catches.
func Def(name string) json.RawMessage {
	d, ok := defs[name]
	if !ok {
		panic(fmt.Sprintf("broker/schema: no definition %q", name))
	}
	inlined := inline(d, map[string]bool{name: true})
	if m, ok := inlined.(map[string]any); ok {
		m["$comment"] = ID + "#/$defs/" + name
	}
	b, err := json.Marshal(inlined)
	if err != nil {
		panic(fmt.Sprintf("broker/schema: encoding %s: %v", name, err))
	}
	return b
}

// Properties returns the property names of definition name and which of them are required.
func Properties(name string) (props []string, required map[string]bool) {
	d, _ := defs[name].(map[string]any)
	p, _ := d["properties"].(map[string]any)
	for k := range p {
		props = append(props, k)
	}
	sort.Strings(props)
	required = map[string]bool{}
	r, _ := d["required"].([]any)
	for _, v := range r {
		if s, ok := v.(string); ok {
			required[s] = true
		}
	}
	return props, required
}

const refPrefix = "#/$defs/"

func inline(v any, seen map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, refPrefix) {
			name := strings.TrimPrefix(ref, refPrefix)
			if seen[name] {
				panic(fmt.Sprintf("broker/schema: %s refers to itself", name))
			}
			target, ok := defs[name]
			if !ok {
				panic(fmt.Sprintf("broker/schema: unknown $ref %q", ref))
			}
			next := map[string]bool{name: true}
			for k := range seen {
				next[k] = true
			}
			out, _ := inline(target, next).(map[string]any)
			for k, val := range x { // keywords beside the $ref (a description) win
				if k != "$ref" {
					out[k] = inline(val, seen)
				}
			}
			return out
		}
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = inline(val, seen)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = inline(val, seen)
		}
		return out
	}
	return v
}
