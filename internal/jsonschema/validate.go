package jsonschema

import (
	"fmt"
	"math/big"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-sentinel/sentinel/wire"
)

// ValidationError is an instance that does not satisfy the schema: where (a JSON pointer into
// the instance) and why.
type ValidationError struct {
	// InstancePath is the JSON pointer of the failing value within the instance ("" for the root).
	InstancePath string
	// Message says which keyword failed and how.
	Message string
}

func (e *ValidationError) Error() string {
	p := e.InstancePath
	if p == "" {
		p = "the root"
	}
	return fmt.Sprintf("validation failed at %s: %s", p, e.Message)
}

// Validate validates instance (JSON text, decoded by wire) against s.
func (s *Schema) Validate(instance []byte) error {
	v, err := wire.DecodeValue(instance)
	if err != nil {
		return fmt.Errorf("decoding the instance: %w", err)
	}
	return s.ValidateValue(v)
}

// maxValidateDepth bounds how deep references may nest while validating one value; a schema
// whose references loop without consuming the instance fails instead of recursing forever.
const maxValidateDepth = 256

// ValidateValue validates a value decoded by wire.DecodeValue against s.
func (s *Schema) ValidateValue(v any) error {
	vs := &validation{c: s.c, active: map[visit]bool{}}
	_, err := vs.validate(s.root, v, "", 0)
	return err
}

type validation struct {
	c      *compiler
	active map[visit]bool
	scope  []*node // resources entered, outermost first (for $dynamicRef)
}

// visit is a schema location applied to an instance location.
type visit struct {
	n    *node
	path string
}

// evaluated is what a schema evaluated of an instance, for unevaluatedProperties/Items.
type evaluated struct {
	props    map[string]bool
	allProps bool
	items    int // the first items counted as evaluated
	allItems bool
	itemSet  map[int]bool
}

func (e *evaluated) merge(o evaluated) {
	if o.allProps {
		e.allProps = true
	}
	for k := range o.props {
		if e.props == nil {
			e.props = map[string]bool{}
		}
		e.props[k] = true
	}
	e.items = max(e.items, o.items)
	e.allItems = e.allItems || o.allItems
	for i := range o.itemSet {
		if e.itemSet == nil {
			e.itemSet = map[int]bool{}
		}
		e.itemSet[i] = true
	}
}

func fail(path, format string, args ...any) error {
	return &ValidationError{InstancePath: path, Message: fmt.Sprintf(format, args...)}
}

// child is the node of a subschema at ptr (indexed at compile time).
func (vs *validation) child(ptr string) *node {
	return vs.c.nodes[ptr]
}

func (vs *validation) validate(n *node, inst any, path string, depth int) (evaluated, error) {
	var ev evaluated
	if n == nil {
		return ev, nil
	}
	if b, ok := n.v.(bool); ok {
		if !b {
			return ev, fail(path, "false schema")
		}
		return ev, nil
	}
	m := n.v.(map[string]any)
	key := visit{n, path}
	if vs.active[key] || depth > maxValidateDepth {
		return ev, fail(path, "reference cycle at schema %s", pointerOrRoot(n.ptr))
	}
	vs.active[key] = true
	defer delete(vs.active, key)
	if r, ok := vs.c.byURL[n.base]; ok && r == n {
		vs.scope = append(vs.scope, n)
		defer func() { vs.scope = vs.scope[:len(vs.scope)-1] }()
	}
	d := n.d
	// $ref first: in drafts up to 7 it is the whole schema.
	if _, hasRef := m["$ref"]; hasRef {
		sub, err := vs.ref(n, "$ref", inst, path, depth)
		if err != nil {
			return ev, err
		}
		if d <= draft7 {
			return sub, nil
		}
		ev.merge(sub)
	}
	for _, kw := range []string{"$dynamicRef", "$recursiveRef"} {
		if _, has := m[kw]; has && (kw == "$dynamicRef" && d >= draft2020 || kw == "$recursiveRef" && d >= draft2019) {
			sub, err := vs.ref(n, kw, inst, path, depth)
			if err != nil {
				return ev, err
			}
			ev.merge(sub)
		}
	}
	if err := vs.assertions(n, m, inst, path); err != nil {
		return ev, err
	}
	sub, err := vs.applicators(n, m, inst, path, depth)
	if err != nil {
		return ev, err
	}
	ev.merge(sub)
	if d >= draft2019 {
		if err := vs.unevaluated(n, m, inst, path, depth, &ev); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

// ref applies the schema a reference keyword names.
func (vs *validation) ref(n *node, kw string, inst any, path string, depth int) (evaluated, error) {
	if md, ok := n.metaOf[kw]; ok {
		// The instance is itself a schema, judged against a meta-schema.
		if _, err := compileValueDraft(inst, md); err != nil {
			return evaluated{}, fail(path, "not a valid %s schema: %v", md, err)
		}
		return evaluated{allProps: true, allItems: true}, nil
	}
	target := n.refs[kw]
	if target == nil {
		return evaluated{}, nil
	}
	if kw == "$dynamicRef" || kw == "$recursiveRef" {
		target = vs.dynamic(n, kw, target)
	}
	return vs.validate(target, inst, path, depth+1)
}

// dynamic resolves a $dynamicRef (or $recursiveRef) through the dynamic scope: when the static
// target declares the matching dynamic anchor, the outermost resource in scope that declares it
// too is used.
func (vs *validation) dynamic(n *node, kw string, target *node) *node {
	tm, ok := target.v.(map[string]any)
	if !ok {
		return target
	}
	if kw == "$recursiveRef" {
		if ra, _ := tm["$recursiveAnchor"].(bool); !ra {
			return target
		}
		for _, r := range vs.scope {
			if rm, ok := r.v.(map[string]any); ok {
				if ra, _ := rm["$recursiveAnchor"].(bool); ra {
					return r
				}
			}
		}
		return target
	}
	ref, _ := n.v.(map[string]any)[kw].(string)
	_, name, _ := strings.Cut(ref, "#")
	if da, _ := tm["$dynamicAnchor"].(string); da == "" || da != name {
		return target
	}
	for _, r := range vs.scope {
		if a, ok := vs.c.anchors[r.base+"#"+name]; ok {
			if am, ok := a.v.(map[string]any); ok && am["$dynamicAnchor"] == name {
				return a
			}
		}
	}
	return target
}

// compileValueDraft compiles doc as a schema of draft d whatever its $schema says; it is how a
// $ref to a meta-schema judges an instance.
func compileValueDraft(doc any, d draft) (*Schema, error) {
	if m, ok := doc.(map[string]any); ok {
		if _, has := m["$schema"]; has {
			return CompileValue(doc)
		}
	}
	return compileAs(doc, d)
}

// assertions are the keywords that judge the instance itself.
func (vs *validation) assertions(n *node, m map[string]any, inst any, path string) error {
	d := n.d
	if t, ok := m["type"]; ok && !typeMatches(t, inst) {
		return fail(path, "got %s, want %s", typeName(inst), typeList(t))
	}
	if e, ok := m["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if equal(x, inst) {
				found = true
				break
			}
		}
		if !found {
			return fail(path, "value must be one of the enum's %d values", len(e))
		}
	}
	if c, ok := m["const"]; ok && d >= draft6 && !equal(c, inst) {
		return fail(path, "value must be the const")
	}
	if r, ok := number(inst); ok {
		if mo, ok := number(m["multipleOf"]); ok {
			if !new(big.Rat).Quo(r, mo).IsInt() {
				return fail(path, "%s is not a multiple of %s", r.RatString(), mo.RatString())
			}
		}
		exMax, _ := m["exclusiveMaximum"].(bool)
		exMin, _ := m["exclusiveMinimum"].(bool)
		if mx, ok := number(m["maximum"]); ok {
			if c := r.Cmp(mx); c > 0 || c == 0 && d == draft4 && exMax {
				return fail(path, "%s is above the maximum %s", r.RatString(), mx.RatString())
			}
		}
		if mn, ok := number(m["minimum"]); ok {
			if c := r.Cmp(mn); c < 0 || c == 0 && d == draft4 && exMin {
				return fail(path, "%s is below the minimum %s", r.RatString(), mn.RatString())
			}
		}
		if d >= draft6 {
			if mx, ok := number(m["exclusiveMaximum"]); ok && r.Cmp(mx) >= 0 {
				return fail(path, "%s is not below the exclusiveMaximum %s", r.RatString(), mx.RatString())
			}
			if mn, ok := number(m["exclusiveMinimum"]); ok && r.Cmp(mn) <= 0 {
				return fail(path, "%s is not above the exclusiveMinimum %s", r.RatString(), mn.RatString())
			}
		}
	}
	switch x := inst.(type) {
	case string:
		l := utf8.RuneCountInString(x)
		if mx, ok := count(m["maxLength"]); ok && l > mx {
			return fail(path, "length %d is above maxLength %d", l, mx)
		}
		if mn, ok := count(m["minLength"]); ok && l < mn {
			return fail(path, "length %d is below minLength %d", l, mn)
		}
		if p, ok := m["pattern"].(string); ok {
			re, err := vs.c.regexp(p)
			if err == nil && !re.MatchString(x) {
				return fail(path, "%q does not match pattern %q", clip(x), p)
			}
		}
		if f, ok := m["format"].(string); ok && d <= draft7 {
			if err := checkFormat(f, x); err != nil {
				return fail(path, "%q is not valid %s: %v", clip(x), f, err)
			}
		}
	case []any:
		if mx, ok := count(m["maxItems"]); ok && len(x) > mx {
			return fail(path, "%d items, above maxItems %d", len(x), mx)
		}
		if mn, ok := count(m["minItems"]); ok && len(x) < mn {
			return fail(path, "%d items, below minItems %d", len(x), mn)
		}
		if u, _ := m["uniqueItems"].(bool); u {
			if i, j, dup := firstDuplicate(x); dup {
				return fail(path, "items at %d and %d are equal", i, j)
			}
		}
	case map[string]any:
		if mx, ok := count(m["maxProperties"]); ok && len(x) > mx {
			return fail(path, "%d properties, above maxProperties %d", len(x), mx)
		}
		if mn, ok := count(m["minProperties"]); ok && len(x) < mn {
			return fail(path, "%d properties, below minProperties %d", len(x), mn)
		}
		if req, ok := m["required"].([]any); ok {
			var missing []string
			for _, r := range req {
				if s, ok := r.(string); ok {
					if _, has := x[s]; !has {
						missing = append(missing, strconv.Quote(s))
					}
				}
			}
			if len(missing) > 0 {
				return fail(path, "missing properties: %s", strings.Join(missing, ", "))
			}
		}
		deps := []map[string]any{}
		if dr, ok := m["dependentRequired"].(map[string]any); ok && d >= draft2019 {
			deps = append(deps, dr)
		}
		if dep, ok := m["dependencies"].(map[string]any); ok {
			deps = append(deps, dep)
		}
		for _, dep := range deps {
			for _, k := range sortedKeys(dep) {
				arr, isArr := dep[k].([]any)
				if _, has := x[k]; !has || !isArr {
					continue
				}
				for _, r := range arr {
					if s, ok := r.(string); ok {
						if _, has := x[s]; !has {
							return fail(path, "property %q is required if %q exists", s, k)
						}
					}
				}
			}
		}
	}
	return nil
}

// applicators are the keywords that apply subschemas.
func (vs *validation) applicators(n *node, m map[string]any, inst any, path string, depth int) (evaluated, error) {
	var ev evaluated
	d, p := n.d, n.ptr
	sub := func(key string, v any, ipath string) (evaluated, error) {
		return vs.validate(vs.child(p+"/"+key), v, ipath, depth+1)
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		arr, ok := m[kw].([]any)
		if !ok {
			continue
		}
		passed := 0
		var first error
		for i := range arr {
			e, err := sub(fmt.Sprintf("%s/%d", kw, i), inst, path)
			if err != nil {
				if kw == "allOf" {
					return ev, err
				}
				if first == nil {
					first = err
				}
				continue
			}
			passed++
			ev.merge(e)
		}
		switch {
		case kw == "anyOf" && passed == 0:
			return ev, fail(path, "anyOf failed: %v", first)
		case kw == "oneOf" && passed == 0:
			return ev, fail(path, "oneOf failed: %v", first)
		case kw == "oneOf" && passed > 1:
			return ev, fail(path, "oneOf failed: %d subschemas valid, want 1", passed)
		}
	}
	if _, ok := m["not"]; ok {
		if _, err := sub("not", inst, path); err == nil {
			return ev, fail(path, "not failed")
		}
	}
	if _, ok := m["if"]; ok && d >= draft7 {
		e, err := sub("if", inst, path)
		if err == nil {
			ev.merge(e)
			if _, has := m["then"]; has {
				e, err := sub("then", inst, path)
				if err != nil {
					return ev, err
				}
				ev.merge(e)
			}
		} else if _, has := m["else"]; has {
			e, err := sub("else", inst, path)
			if err != nil {
				return ev, err
			}
			ev.merge(e)
		}
	}
	switch x := inst.(type) {
	case map[string]any:
		keys := sortedKeys(x)
		matched := map[string]bool{}
		if props, ok := m["properties"].(map[string]any); ok {
			for _, k := range keys {
				if _, has := props[k]; has {
					matched[k] = true
					if _, err := sub("properties/"+escape(k), x[k], path+"/"+escape(k)); err != nil {
						return ev, err
					}
				}
			}
		}
		if pp, ok := m["patternProperties"].(map[string]any); ok {
			for _, pat := range sortedKeys(pp) {
				re, err := vs.c.regexp(pat)
				if err != nil {
					continue
				}
				for _, k := range keys {
					if re.MatchString(k) {
						matched[k] = true
						if _, err := sub("patternProperties/"+escape(pat), x[k], path+"/"+escape(k)); err != nil {
							return ev, err
						}
					}
				}
			}
		}
		if _, ok := m["additionalProperties"]; ok {
			for _, k := range keys {
				if matched[k] {
					continue
				}
				if b, isBool := m["additionalProperties"].(bool); isBool {
					if !b {
						return ev, fail(path+"/"+escape(k), "additional property %q not allowed", k)
					}
					continue
				}
				if _, err := sub("additionalProperties", x[k], path+"/"+escape(k)); err != nil {
					return ev, err
				}
			}
			ev.allProps = true
		}
		for k := range matched {
			if ev.props == nil {
				ev.props = map[string]bool{}
			}
			ev.props[k] = true
		}
		if _, ok := m["propertyNames"]; ok && d >= draft6 {
			for _, k := range keys {
				if _, err := sub("propertyNames", k, path); err != nil {
					return ev, fail(path, "invalid propertyName %q: %v", k, err)
				}
			}
		}
		for _, kw := range []string{"dependentSchemas", "dependencies"} {
			ds, ok := m[kw].(map[string]any)
			if !ok || kw == "dependentSchemas" && d < draft2019 {
				continue
			}
			for _, k := range sortedKeys(ds) {
				if _, has := x[k]; !has {
					continue
				}
				if _, isArr := ds[k].([]any); isArr {
					continue
				}
				e, err := sub(kw+"/"+escape(k), inst, path)
				if err != nil {
					return ev, err
				}
				ev.merge(e)
			}
		}
	case []any:
		start := 0
		if d == draft2020 {
			if pi, ok := m["prefixItems"].([]any); ok {
				for i := 0; i < len(pi) && i < len(x); i++ {
					if _, err := sub(fmt.Sprintf("prefixItems/%d", i), x[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
						return ev, err
					}
				}
				start = min(len(pi), len(x))
				ev.items = start
			}
			if _, ok := m["items"]; ok {
				for i := start; i < len(x); i++ {
					if _, err := sub("items", x[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
						return ev, err
					}
				}
				ev.allItems = true
			}
		} else {
			switch it := m["items"].(type) {
			case []any:
				for i := 0; i < len(it) && i < len(x); i++ {
					if _, err := sub(fmt.Sprintf("items/%d", i), x[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
						return ev, err
					}
				}
				start = min(len(it), len(x))
				ev.items = start
				if ai, ok := m["additionalItems"]; ok {
					for i := start; i < len(x); i++ {
						if b, isBool := ai.(bool); isBool {
							if !b {
								return ev, fail(fmt.Sprintf("%s/%d", path, i), "additional item not allowed")
							}
							continue
						}
						if _, err := sub("additionalItems", x[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
							return ev, err
						}
					}
					ev.allItems = true
				}
			case nil:
			default:
				for i := range x {
					if _, err := sub("items", x[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
						return ev, err
					}
				}
				ev.allItems = true
			}
		}
		if _, ok := m["contains"]; ok && d >= draft6 {
			hits := 0
			for i := range x {
				if _, err := sub("contains", x[i], fmt.Sprintf("%s/%d", path, i)); err == nil {
					hits++
					if ev.itemSet == nil {
						ev.itemSet = map[int]bool{}
					}
					ev.itemSet[i] = true
				}
			}
			minC, maxC := 1, -1
			if d >= draft2019 {
				if v, ok := count(m["minContains"]); ok {
					minC = v
				}
				if v, ok := count(m["maxContains"]); ok {
					maxC = v
				}
			}
			if hits < minC {
				return ev, fail(path, "contains: %d items match, want at least %d", hits, minC)
			}
			if maxC >= 0 && hits > maxC {
				return ev, fail(path, "contains: %d items match, want at most %d", hits, maxC)
			}
		}
	}
	return ev, nil
}

// unevaluated applies unevaluatedProperties and unevaluatedItems after everything else.
func (vs *validation) unevaluated(n *node, m map[string]any, inst any, path string, depth int, ev *evaluated) error {
	switch x := inst.(type) {
	case map[string]any:
		if _, ok := m["unevaluatedProperties"]; !ok || ev.allProps {
			return nil
		}
		un := vs.child(n.ptr + "/unevaluatedProperties")
		for _, k := range sortedKeys(x) {
			if ev.props[k] {
				continue
			}
			if _, err := vs.validate(un, x[k], path+"/"+escape(k), depth+1); err != nil {
				return err
			}
		}
		ev.allProps = true
	case []any:
		if _, ok := m["unevaluatedItems"]; !ok || ev.allItems {
			return nil
		}
		un := vs.child(n.ptr + "/unevaluatedItems")
		for i := ev.items; i < len(x); i++ {
			if ev.itemSet[i] {
				continue
			}
			if _, err := vs.validate(un, x[i], fmt.Sprintf("%s/%d", path, i), depth+1); err != nil {
				return err
			}
		}
		ev.allItems = true
	}
	return nil
}

func typeMatches(t, inst any) bool {
	switch tt := t.(type) {
	case string:
		return typeIs(tt, inst)
	case []any:
		for _, e := range tt {
			if s, ok := e.(string); ok && typeIs(s, inst) {
				return true
			}
		}
		return false
	}
	return true
}

func typeIs(t string, inst any) bool {
	got := typeName(inst)
	return t == got || t == "number" && got == "integer"
}

func typeList(t any) string {
	if arr, ok := t.([]any); ok {
		parts := make([]string, 0, len(arr))
		for _, e := range arr {
			parts = append(parts, fmt.Sprint(e))
		}
		return strings.Join(parts, " or ")
	}
	return fmt.Sprint(t)
}

// count reads a non-negative integer keyword. A value past 64 bits keeps its low 64 bits, as
// the old validator read it (18446744073709551617 is 1): the verdicts were built on that.
func count(v any) (int, bool) {
	r, ok := number(v)
	if !ok || !r.IsInt() || r.Sign() < 0 {
		return 0, false
	}
	return int(r.Num().Uint64()), true //nolint:gosec // the old validator's wrap-around, on purpose
}

func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "…"
}

// checkFormat asserts the formats drafts 4 to 7 assert; an unknown format passes.
func checkFormat(f, s string) error {
	switch f {
	case "date-time":
		return dateTime(s)
	case "date":
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return fmt.Errorf("not a full-date")
		}
	case "time":
		if _, err := time.Parse("2006-01-02T"+rfc3339Time(s), "2000-01-01T"+s); err != nil {
			return fmt.Errorf("not a full-time")
		}
	case "email", "idn-email":
		local, domain, ok := strings.Cut(s, "@")
		if !ok {
			return fmt.Errorf("missing @")
		}
		if local == "" || len(local) > 64 {
			return fmt.Errorf("bad local part")
		}
		if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
			if _, err := netip.ParseAddr(strings.TrimPrefix(domain[1:len(domain)-1], "IPv6:")); err != nil {
				return fmt.Errorf("bad domain literal")
			}
			return nil
		}
		return hostname(domain)
	case "hostname", "idn-hostname":
		return hostname(s)
	case "ipv4", "ip-address":
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return fmt.Errorf("not an IPv4 address")
		}
	case "ipv6":
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return fmt.Errorf("not an IPv6 address")
		}
	case "uri", "iri":
		return isURI(s)
	case "uri-reference", "iri-reference", "uriref":
		_, err := url.Parse(s)
		return err
	case "regex":
		_, err := regexp.Compile(s)
		return err
	case "uuid":
		if len(s) != 36 {
			return fmt.Errorf("not 36 characters")
		}
		for i, r := range s {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				if r != '-' {
					return fmt.Errorf("no hyphen at %d", i)
				}
			} else if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return fmt.Errorf("not hexadecimal at %d", i)
			}
		}
	case "json-pointer":
		if s != "" && !strings.HasPrefix(s, "/") {
			return fmt.Errorf("does not start with /")
		}
		for i := 0; i < len(s); i++ {
			if s[i] == '~' && (i+1 >= len(s) || s[i+1] != '0' && s[i+1] != '1') {
				return fmt.Errorf("~ not followed by 0 or 1")
			}
		}
	}
	return nil
}

// rfc3339Time is the layout for a full-time value s (with or without a fraction).
func rfc3339Time(s string) string {
	if strings.Contains(s, ".") {
		return "15:04:05.999999999Z07:00"
	}
	return "15:04:05Z07:00"
}

func dateTime(s string) error {
	if len(s) < 20 {
		return fmt.Errorf("less than 20 characters long")
	}
	u := strings.ToUpper(s)
	if _, err := time.Parse(time.RFC3339Nano, u); err != nil {
		// A leap second is valid in RFC 3339 and not in Go's parser.
		if len(u) > 19 && u[17:19] == "60" {
			if _, err2 := time.Parse(time.RFC3339Nano, u[:17]+"59"+u[19:]); err2 == nil {
				return nil
			}
		}
		return fmt.Errorf("not an RFC 3339 date-time")
	}
	return nil
}

func hostname(s string) error {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return fmt.Errorf("empty or longer than 253 characters")
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("bad label %q", label)
		}
		for _, r := range label {
			if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '-' {
				return fmt.Errorf("bad character %q", r)
			}
		}
	}
	return nil
}
