package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	oracle "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-sentinel/sentinel/wire"
)

// The validator sentinel linked before this package is kept as a test-only oracle: what it
// accepts and refuses is what the rules' verdicts were built on, so this package must accept and
// refuse the same schemas, and the same instances under them.

// oracleCompile is how passive and active compiled a schema with the old validator.
func oracleCompile(raw []byte) (*oracle.Schema, error) {
	doc, err := oracle.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := oracle.NewCompiler()
	c.DefaultDraft(oracle.Draft2020)
	c.UseLoader(refuse{})
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem:///schema.json")
}

type refuse struct{}

func (refuse) Load(url string) (any, error) { return nil, fmt.Errorf("%s not fetched", url) }

func oracleValidate(s *oracle.Schema, instance []byte) error {
	v, err := oracle.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// corpus is every schema of testdata: what the test servers publish and the edge cases, with
// the instance pairs of the edge cases.
func corpus(t testing.TB) (schemas []string, pairs [][2]string) {
	t.Helper()
	var servers struct {
		Sources map[string][]json.RawMessage `json:"sources"`
	}
	readJSON(t, "servers.json", &servers)
	names := make([]string, 0, len(servers.Sources))
	for k := range servers.Sources {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, s := range servers.Sources[k] {
			schemas = append(schemas, string(s))
		}
	}
	var edges struct {
		Schemas []string    `json:"schemas"`
		Pairs   [][2]string `json:"pairs"`
	}
	readJSON(t, "edges.json", &edges)
	schemas = append(schemas, edges.Schemas...)
	return schemas, edges.Pairs
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// agree compiles schema with both validators and, when both accept it, validates every
// instance with both; it reports each disagreement.
func agree(t *testing.T, schema string, instances []string) {
	t.Helper()
	ours, err1 := Compile([]byte(schema))
	theirs, err2 := oracleCompile([]byte(schema))
	if (err1 == nil) != (err2 == nil) {
		t.Errorf("schema %s:\n  ours:   %v\n  oracle: %v", clip200(schema), err1, firstLineOf(err2))
		return
	}
	if err1 != nil {
		return
	}
	for _, inst := range instances {
		e1, e2 := ours.Validate([]byte(inst)), oracleValidate(theirs, []byte(inst))
		if (e1 == nil) != (e2 == nil) {
			t.Errorf("schema %s, instance %s:\n  ours:   %v\n  oracle: %v", clip200(schema), clip200(inst), e1, firstLineOf(e2))
		}
	}
}

func clip200(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func firstLineOf(err error) string {
	if err == nil {
		return "<nil>"
	}
	return strings.ReplaceAll(err.Error(), "\n", " | ")
}

// TestAgreesWithOracle: on every schema of the corpus, both validators accept or both refuse;
// under an accepted one, both accept or both refuse each instance — the edge cases' own, and
// instances built from the schema (each property well typed, then each property ill typed) and
// a fixed set of JSON values.
func TestAgreesWithOracle(t *testing.T) {
	schemas, pairs := corpus(t)
	for _, s := range schemas {
		agree(t, s, instancesFor(s))
	}
	for _, p := range pairs {
		agree(t, p[0], append([]string{p[1]}, instancesFor(p[0])...))
	}
}

// TestAgreesWithOracleOnMutations: every schema the servers publish, with each value in it
// replaced by each of a set of wrong-typed or hostile values, or removed, is accepted or refused
// by both validators alike, and so is every instance under the ones both accept.
func TestAgreesWithOracleOnMutations(t *testing.T) {
	schemas, _ := corpus(t)
	n := 0
	for _, s := range schemas {
		if len(s) > maxMutated {
			continue // the broker's whole document: each of its definitions is mutated on its own
		}
		for _, m := range mutations(s) {
			agree(t, m, instancesFor(m))
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("only %d mutations: the corpus did not load", n)
	}
}

// fixedInstances are JSON values of every type.
var fixedInstances = []string{
	`null`, `true`, `false`, `0`, `1`, `-1`, `1.5`, `1.0`, `1e400`, `""`, `"a"`, `"2026-12-02T00:00:00Z"`,
	`"a@b.c"`, `"phone"`, `"email"`, `[]`, `[1]`, `["a","a"]`, `[1,"a",null]`, `{}`, `{"a":1}`,
}

// instancesFor builds instances for a schema: the fixed values, and for an object schema with
// properties, an object with every property well typed, then each property wrong-typed or missing.
func instancesFor(schema string) []string {
	out := append([]string(nil), fixedInstances...)
	var m map[string]any
	if json.Unmarshal([]byte(schema), &m) != nil {
		return out
	}
	props, _ := m["properties"].(map[string]any)
	if len(props) == 0 {
		return out
	}
	good := map[string]any{}
	for k, p := range props {
		good[k] = sample(p, true)
	}
	out = append(out, mustJSON(good))
	for k, p := range props {
		bad := clone(good)
		bad[k] = sample(p, false)
		out = append(out, mustJSON(bad))
		delete(bad, k)
		out = append(out, mustJSON(bad))
	}
	extra := clone(good)
	extra["zz_extra"] = 1
	out = append(out, mustJSON(extra))
	return out
}

// sample is a value the property schema p accepts (ok) or a value of another type.
func sample(p any, ok bool) any {
	pm, _ := p.(map[string]any)
	if e, isArr := pm["enum"].([]any); isArr && len(e) > 0 && ok {
		return e[0]
	}
	if c, has := pm["const"]; has && ok {
		return c
	}
	t, _ := pm["type"].(string)
	if !ok {
		if t == "string" {
			return 7
		}
		return "wrong"
	}
	switch t {
	case "string":
		if f, _ := pm["format"].(string); f == "date-time" {
			return "2026-12-02T00:00:00Z"
		}
		return "text"
	case "integer":
		return 2
	case "number":
		return 2.5
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	case "null":
		return nil
	}
	return "text"
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// maxMutated bounds the schemas that are mutated: mutations grow with the square of the size.
const maxMutated = 4 << 10

// hostileValues replace each value of a schema in turn.
var hostileValues = []any{5, -1, 1.5, "x", "(", "#foo", "http://[::1", []any{}, []any{"a", "a"}, map[string]any{}, true, false, nil}

// mutations are schema with each value (at any depth) replaced by each hostile value, and each
// object member removed.
func mutations(schema string) []string {
	var doc any
	if json.Unmarshal([]byte(schema), &doc) != nil {
		return nil
	}
	var out []string
	var walk func(v any, set func(any), del func())
	walk = func(v any, set func(any), del func()) {
		for _, h := range hostileValues {
			set(h)
			out = append(out, mustJSON(doc))
		}
		set(v)
		if del != nil {
			del()
			out = append(out, mustJSON(doc))
			set(v)
		}
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				kv := x[k]
				walk(kv, func(n any) { x[k] = n }, func() { delete(x, k) })
				x[k] = kv
			}
		case []any:
			for i := range x {
				iv := x[i]
				walk(iv, func(n any) { x[i] = n }, nil)
				x[i] = iv
			}
		}
	}
	root := doc
	walk(root, func(n any) { doc = n }, nil)
	doc = root
	return out
}

// FuzzAgreesWithOracle: on any bytes within the bounds the harness compiles (wire.SchemaTooLarge),
// both validators accept or both refuse the schema, and under an accepted one every fixed
// instance and the fuzzed instance alike.
func FuzzAgreesWithOracle(f *testing.F) {
	schemas, pairs := corpus(f)
	for _, s := range schemas {
		f.Add(s, `{}`)
	}
	for _, p := range pairs {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, schema, instance string) {
		if wire.SchemaTooLarge([]byte(schema)) || wire.SchemaTooLarge([]byte(instance)) {
			return
		}
		if _, err := wire.DecodeValue([]byte(instance)); err != nil {
			return
		}
		agree(t, schema, append([]string{instance}, fixedInstances...))
	})
}
