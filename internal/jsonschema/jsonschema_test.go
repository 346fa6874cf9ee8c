package jsonschema

import (
	"errors"
	"strings"
	"testing"
)

// TestCompileAndValidate pins verdicts the rules depend on, each with the reason it matters.
func TestCompileAndValidate(t *testing.T) {
	for _, tc := range []struct {
		name, schema, instance string
		compileErr, invalid    bool
	}{
		{name: "2020-12 is the default dialect: items must be a schema", schema: `{"items":[{}]}`, compileErr: true},
		{name: "draft-07 declared: items may be an array", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}]}`, instance: `[1]`},
		{name: "an unknown dialect is refused, never fetched", schema: `{"$schema":"http://json-schema.org/draft-03/schema#"}`, compileErr: true},
		{name: "a pattern must be a Go regular expression", schema: `{"pattern":"(?=x)"}`, compileErr: true},
		{name: "an external reference is refused", schema: `{"$ref":"http://example.com/s.json"}`, compileErr: true},
		{name: "a reference to the 2020-12 meta-schema resolves", schema: `{"$ref":"https://json-schema.org/draft/2020-12/schema"}`, instance: `{"type":5}`, invalid: true},
		{name: "a broken reference nothing uses is not an error", schema: `{"$defs":{"a":{"$ref":"#/nope"}}}`, instance: `1`},
		{name: "a broken reference the root uses is", schema: `{"$ref":"#/$defs/nope"}`, compileErr: true},
		{name: "a wrong-typed property", schema: `{"type":"object","properties":{"t":{"type":"number"}}}`, instance: `{"t":"warm"}`, invalid: true},
		{name: "1.0 is an integer", schema: `{"type":"integer"}`, instance: `1.0`},
		{name: "0.3 is a multiple of 0.1, exactly", schema: `{"multipleOf":0.1}`, instance: `0.3`},
		{name: "unevaluatedProperties sees through allOf", schema: `{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}`, instance: `{"a":1,"b":2}`, invalid: true},
		{name: "format is an annotation in 2020-12", schema: `{"format":"email"}`, instance: `"x"`},
		{name: "format is an assertion in draft-07", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","format":"email"}`, instance: `"x"`, invalid: true},
		{name: "a reference loop that consumes nothing fails instead of recursing", schema: `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, instance: `1`, invalid: true},
		{name: "trailing data after a schema is refused", schema: `{} {}`, compileErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile([]byte(tc.schema))
			if (err != nil) != tc.compileErr {
				t.Fatalf("Compile(%s) = %v, want error %v", tc.schema, err, tc.compileErr)
			}
			if err != nil {
				return
			}
			err = s.Validate([]byte(tc.instance))
			if (err != nil) != tc.invalid {
				t.Fatalf("Validate(%s) = %v, want invalid %v", tc.instance, err, tc.invalid)
			}
			var ve *ValidationError
			if err != nil && !errors.As(err, &ve) {
				t.Errorf("an invalid instance is reported as %T, not a ValidationError", err)
			}
		})
	}
}

// TestErrorsSayWhere: a refused schema and an invalid instance name the place and the reason on
// the first line, which is what an outcome's evidence shows.
func TestErrorsSayWhere(t *testing.T) {
	_, err := Compile([]byte(`{"properties":{"a":{"minLength":-1}}}`))
	if err == nil || !strings.Contains(err.Error(), "/properties/a/minLength") {
		t.Errorf("Compile error %v does not name /properties/a/minLength", err)
	}
	s, err := Compile([]byte(`{"properties":{"a":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(`{"a":1}`)); err == nil || !strings.Contains(err.Error(), "/a") || !strings.Contains(err.Error(), "want string") {
		t.Errorf("Validate error %v does not say /a wants a string", err)
	}
}

// BenchmarkCompile compiles the largest schema the everything-server publishes: passive compiles
// every published schema once per content.
func BenchmarkCompile(b *testing.B) {
	schemas, _ := corpus(b)
	big := schemas[0]
	for _, s := range schemas {
		if len(s) > len(big) && len(s) < maxMutated {
			big = s
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile([]byte(big)); err != nil {
			b.Fatal(err)
		}
	}
}
