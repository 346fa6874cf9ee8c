package jsonschema

import (
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-sentinel/sentinel/internal/lazyre"
)

// kind is how a keyword holds subschemas.
type kind int

const (
	one             kind = iota + 1 // a schema
	oneOrArray                      // a schema or an array of schemas (items before 2020-12)
	array                           // a non-empty array of schemas
	object                          // an object whose values are schemas
	objectOrStrings                 // an object whose values are schemas or string arrays (dependencies)
)

// subschemaKind says whether keyword k holds subschemas in d, and how.
func subschemaKind(k string, d draft) (kind, bool) {
	switch k {
	case "not", "additionalProperties":
		return one, true
	case "additionalItems":
		return one, d <= draft2019
	case "items":
		if d == draft2020 {
			return one, true
		}
		return oneOrArray, true
	case "contains", "propertyNames":
		return one, d >= draft6
	case "if", "then", "else":
		return one, d >= draft7
	case "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return one, d >= draft2019
	case "allOf", "anyOf", "oneOf":
		return array, true
	case "prefixItems":
		return array, d == draft2020
	case "properties", "patternProperties", "definitions":
		return object, true
	case "$defs", "dependentSchemas":
		return object, d >= draft2019
	case "dependencies":
		return objectOrStrings, true
	}
	return 0, false
}

var simpleTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// meta checks n, and every schema location under it, against the constraints of n's dialect's
// meta-schema, with the format assertions (uri, uri-reference, regex) the old validator made.
func (c *compiler) meta(n *node) error {
	if n.checked {
		return nil
	}
	n.checked = true
	m, ok := n.v.(map[string]any)
	if !ok {
		if _, isBool := n.v.(bool); isBool && n.d >= draft6 {
			return nil
		}
		want := "boolean or object"
		if n.d == draft4 {
			want = "object"
		}
		return c.errAt(n, "", "got %s, want %s", typeName(n.v), want)
	}
	d := n.d
	for _, k := range sortedKeys(m) {
		if err := c.metaKeyword(n, d, k, m[k], m); err != nil {
			return err
		}
	}
	if d == draft4 {
		for _, pair := range [][2]string{{"exclusiveMaximum", "maximum"}, {"exclusiveMinimum", "minimum"}} {
			if _, ok := m[pair[0]]; ok {
				if _, ok := m[pair[1]]; !ok {
					return c.errAt(n, "", "property %q is required if %q exists", pair[1], pair[0])
				}
			}
		}
	}
	// The meta-schema knows nothing of $ref overriding its siblings (drafts up to 7): they are
	// checked like any other.
	for _, k := range sortedKeys(m) {
		kd, ok := subschemaKind(k, d)
		if !ok {
			continue
		}
		p := n.ptr + "/" + escape(k)
		var kids []string
		switch val := m[k].(type) {
		case []any:
			for i := range val {
				kids = append(kids, fmt.Sprintf("%s/%d", p, i))
			}
		case map[string]any:
			if kd == object || kd == objectOrStrings {
				for _, pk := range sortedKeys(val) {
					if _, isArr := val[pk].([]any); isArr && kd == objectOrStrings {
						continue
					}
					kids = append(kids, p+"/"+escape(pk))
				}
			} else {
				kids = append(kids, p)
			}
		default:
			kids = append(kids, p)
		}
		for _, kp := range kids {
			kn, ok := c.nodes[kp]
			if !ok {
				continue // not a schema-shaped value: metaKeyword has reported it
			}
			if err := c.meta(kn); err != nil {
				return err
			}
		}
	}
	return nil
}

// metaKeyword checks one keyword's value against d's meta-schema.
func (c *compiler) metaKeyword(n *node, d draft, k string, v any, m map[string]any) error {
	bad := func(format string, args ...any) error { return c.errAt(n, k, format, args...) }
	wantType := func(want string) error { return bad("got %s, want %s", typeName(v), want) }
	isSchema := func(x any) bool {
		switch x.(type) {
		case map[string]any:
			return true
		case bool:
			return d >= draft6
		}
		return false
	}
	schemaWord := "boolean or object"
	if d == draft4 {
		schemaWord = "object"
	}
	kd, holds := subschemaKind(k, d)
	if holds {
		switch kd {
		case one:
			if k == "additionalProperties" || k == "additionalItems" {
				if _, isBool := v.(bool); isBool {
					return nil
				}
			}
			if !isSchema(v) {
				return wantType(schemaWord)
			}
		case oneOrArray:
			if arr, ok := v.([]any); ok {
				if len(arr) == 0 {
					return bad("minItems: got 0, want 1")
				}
				for i, e := range arr {
					if !isSchema(e) {
						return c.errAt(n, fmt.Sprintf("%s/%d", k, i), "got %s, want %s", typeName(e), schemaWord)
					}
				}
			} else if !isSchema(v) {
				return wantType(schemaWord + " or array")
			}
		case array:
			arr, ok := v.([]any)
			if !ok {
				return wantType("array")
			}
			if len(arr) == 0 {
				return bad("minItems: got 0, want 1")
			}
			for i, e := range arr {
				if !isSchema(e) {
					return c.errAt(n, fmt.Sprintf("%s/%d", k, i), "got %s, want %s", typeName(e), schemaWord)
				}
			}
		case object, objectOrStrings:
			obj, ok := v.(map[string]any)
			if !ok {
				return wantType("object")
			}
			for _, pk := range sortedKeys(obj) {
				e := obj[pk]
				if kd == objectOrStrings {
					if arr, isArr := e.([]any); isArr {
						if err := stringArray(arr, d == draft4); err != nil {
							return c.errAt(n, k+"/"+pk, "%s", err)
						}
						continue
					}
				}
				if !isSchema(e) {
					return c.errAt(n, k+"/"+escape(pk), "got %s, want %s", typeName(e), schemaWord)
				}
				if k == "patternProperties" {
					if _, err := c.regexp(pk); err != nil {
						return bad("invalid propertyName %q: not a valid regex: %v", pk, err)
					}
				}
			}
		}
		return nil
	}
	switch k {
	case "type":
		switch t := v.(type) {
		case string:
			if !slices.Contains(simpleTypes, t) {
				return bad("value must be one of %s", strings.Join(simpleTypes, ", "))
			}
		case []any:
			if len(t) == 0 {
				return bad("minItems: got 0, want 1")
			}
			for _, e := range t {
				s, ok := e.(string)
				if !ok || !slices.Contains(simpleTypes, s) {
					return bad("items must be one of %s", strings.Join(simpleTypes, ", "))
				}
			}
			if i, j, dup := firstDuplicate(t); dup {
				return bad("items at %d and %d are equal", i, j)
			}
		default:
			return wantType("string or array")
		}
	case "enum":
		arr, ok := v.([]any)
		if !ok {
			return wantType("array")
		}
		if d <= draft6 && len(arr) == 0 {
			return bad("minItems: got 0, want 1")
		}
		if d == draft4 {
			if i, j, dup := firstDuplicate(arr); dup {
				return bad("items at %d and %d are equal", i, j)
			}
		}
	case "multipleOf":
		r, ok := number(v)
		if !ok {
			return wantType("number")
		}
		if r.Sign() <= 0 {
			return bad("exclusiveMinimum: got %v, want 0", v)
		}
	case "maximum", "minimum":
		if _, ok := number(v); !ok {
			return wantType("number")
		}
	case "exclusiveMaximum", "exclusiveMinimum":
		if d == draft4 {
			if _, ok := v.(bool); !ok {
				return wantType("boolean")
			}
		} else if _, ok := number(v); !ok {
			return wantType("number")
		}
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
		return nonNegativeInteger(v, bad)
	case "maxContains", "minContains":
		if d >= draft2019 {
			return nonNegativeInteger(v, bad)
		}
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return wantType("string")
		}
		if _, err := c.regexp(s); err != nil {
			return bad("%q is not valid regex: %v", s, err)
		}
	case "uniqueItems":
		if _, ok := v.(bool); !ok {
			return wantType("boolean")
		}
	case "required":
		arr, ok := v.([]any)
		if !ok {
			return wantType("array")
		}
		if err := stringArray(arr, d == draft4); err != nil {
			return bad("%s", err)
		}
	case "dependentRequired":
		if d < draft2019 {
			return nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return wantType("object")
		}
		for _, pk := range sortedKeys(obj) {
			arr, ok := obj[pk].([]any)
			if !ok {
				return c.errAt(n, k+"/"+escape(pk), "got %s, want array", typeName(obj[pk]))
			}
			if err := stringArray(arr, false); err != nil {
				return c.errAt(n, k+"/"+escape(pk), "%s", err)
			}
		}
	case "format", "title", "description":
		if _, ok := v.(string); !ok {
			return wantType("string")
		}
	case "$comment", "contentMediaType", "contentEncoding":
		if d >= draft7 {
			if _, ok := v.(string); !ok {
				return wantType("string")
			}
		}
	case "examples":
		if d >= draft6 {
			if _, ok := v.([]any); !ok {
				return wantType("array")
			}
		}
	case "readOnly", "writeOnly":
		if d >= draft7 {
			if _, ok := v.(bool); !ok {
				return wantType("boolean")
			}
		}
	case "deprecated":
		if d >= draft2019 {
			if _, ok := v.(bool); !ok {
				return wantType("boolean")
			}
		}
	case "$schema":
		s, ok := v.(string)
		if !ok {
			return wantType("string")
		}
		if err := isURI(s); err != nil {
			return bad("%q is not valid uri: %v", s, err)
		}
	case "id":
		if d == draft4 {
			s, ok := v.(string)
			if !ok {
				return wantType("string")
			}
			if _, err := url.Parse(s); err != nil {
				return bad("%q is not valid uri-reference: %v", s, err)
			}
		}
	case "$id":
		if d == draft4 {
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return wantType("string")
		}
		if _, err := url.Parse(s); err != nil {
			return bad("%q is not valid uri-reference: %v", s, err)
		}
		if d >= draft2019 && !idPattern().MatchString(s) {
			return bad("%q does not match pattern %q", s, idPattern().String())
		}
	case "$ref", "$dynamicRef", "$recursiveRef":
		if k == "$dynamicRef" && d < draft2020 || k == "$recursiveRef" && d < draft2019 {
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return wantType("string")
		}
		if _, err := url.Parse(s); err != nil {
			return bad("%q is not valid uri-reference: %v", s, err)
		}
	case "$anchor", "$dynamicAnchor":
		if k == "$dynamicAnchor" && d < draft2020 || d < draft2019 {
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return wantType("string")
		}
		p := anchorPattern()
		if d == draft2019 {
			p = anchorPattern2019()
		}
		if !p.MatchString(s) {
			return bad("%q does not match pattern %q", s, p.String())
		}
	case "$recursiveAnchor":
		switch d {
		case draft2019:
			if _, ok := v.(bool); !ok {
				return wantType("boolean")
			}
		case draft2020:
			s, ok := v.(string)
			if !ok {
				return wantType("string")
			}
			if !anchorPattern().MatchString(s) {
				return bad("%q does not match pattern %q", s, anchorPattern().String())
			}
		case draft4, draft6, draft7:
		}
	case "$vocabulary":
		if d < draft2019 {
			return nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return wantType("object")
		}
		for _, pk := range sortedKeys(obj) {
			if err := isURI(pk); err != nil {
				return bad("invalid propertyName %q: not a valid uri: %v", pk, err)
			}
			if _, ok := obj[pk].(bool); !ok {
				return c.errAt(n, k+"/"+escape(pk), "got %s, want boolean", typeName(obj[pk]))
			}
		}
	}
	_ = m
	return nil
}

// idPattern: "$id" has no fragment other than an empty one (2019-09 and later).
var idPattern = lazyre.New(`^[^#]*#?$`)

// anchorPattern is 2020-12's anchorString; anchorPattern2019 is 2019-09's.
var (
	anchorPattern     = lazyre.New(`^[A-Za-z_][-A-Za-z0-9._]*$`)
	anchorPattern2019 = lazyre.New(`^[A-Za-z][-A-Za-z0-9.:_]*$`)
)

// isURI is the uri format: a reference that parses and is absolute.
func isURI(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() {
		return fmt.Errorf("relative url")
	}
	return nil
}

// stringArray checks a meta-schema stringArray: strings, unique, non-empty in draft 4.
func stringArray(arr []any, nonEmpty bool) error {
	if nonEmpty && len(arr) == 0 {
		return fmt.Errorf("minItems: got 0, want 1")
	}
	for i, e := range arr {
		if _, ok := e.(string); !ok {
			return fmt.Errorf("item %d: got %s, want string", i, typeName(e))
		}
	}
	if i, j, dup := firstDuplicate(arr); dup {
		return fmt.Errorf("items at %d and %d are equal", i, j)
	}
	return nil
}

func nonNegativeInteger(v any, bad func(string, ...any) error) error {
	r, ok := number(v)
	if !ok || !r.IsInt() {
		return bad("got %s, want integer", typeName(v))
	}
	if r.Sign() < 0 {
		return bad("minimum: got %v, want 0", v)
	}
	return nil
}

// regexp compiles a pattern as the old validator did (Go's syntax), once per Compile.
func (c *compiler) regexp(s string) (*regexp.Regexp, error) {
	if re, ok := c.regexps[s]; ok {
		return re, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, err
	}
	c.regexps[s] = re
	return re, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// number reads a JSON number exactly.
func number(v any) (*big.Rat, bool) {
	n, ok := v.(interface{ String() string })
	if !ok {
		return nil, false
	}
	if _, isStr := v.(string); isStr {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(n.String())
	return r, ok
}

// typeName is the JSON type of v, "integer" for an integral number.
func typeName(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		if r, ok := number(t); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	}
}

// firstDuplicate finds two equal items of arr.
func firstDuplicate(arr []any) (int, int, bool) {
	for i := range arr {
		for j := i + 1; j < len(arr); j++ {
			if equal(arr[i], arr[j]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// equal is JSON equality: numbers by value, objects regardless of order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil, bool, string:
		return a == b
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	ra, ok1 := number(a)
	rb, ok2 := number(b)
	return ok1 && ok2 && ra.Cmp(rb) == 0
}
