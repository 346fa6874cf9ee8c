package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestEveryDefinitionIsAValidStandaloneSchema(t *testing.T) {
	if len(Names()) < 10 {
		t.Fatalf("Names() = %v: the document lost its definitions", Names())
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			raw := Def(name)
			if bytes.Contains(raw, []byte(`"$ref"`)) {
				t.Fatalf("Def(%s) still has a $ref: %s", name, raw)
			}
			if !bytes.Equal(raw, Def(name)) {
				t.Fatal("Def is not the same bytes on every call")
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource("def.json", doc); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile("def.json"); err != nil {
				t.Fatalf("Def(%s) does not compile: %v", name, err)
			}
		})
	}
}

func TestTheDocumentCompilesAndNamesItsVersion(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Document()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(ID, doc); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(ID); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(ID, "v"+Version) {
		t.Errorf("ID %q does not end in the version %q", ID, Version)
	}
	var m map[string]any
	_ = json.Unmarshal(Def("CheckGroundednessRequest"), &m)
	ctx := m["properties"].(map[string]any)["context"].(map[string]any)
	if ctx["minItems"] != 1.0 || ctx["items"].(map[string]any)["required"] == nil {
		t.Errorf("CheckGroundednessRequest.context = %v: want the inlined GroundingContext", ctx)
	}
}
