// Package jsonschema is the JSON Schema validator linked into sentinel: it judges whether a
// schema a server publishes is valid in its dialect (drafts 4, 6, 7, 2019-09 and 2020-12, the
// last the default) and validates a value against one (a tool's structured output against its
// outputSchema). It fetches nothing: a reference outside the document is an error.
//
// Why our own: the validator the harness used before compiled the meta-schemas of five drafts in
// its package initialiser, about half of what every sentinel command cost at start-up, whatever
// the command. This package builds nothing before it is called. It judges schemas as that
// validator does — the meta-schema's constraints with the format assertions it makes on $id,
// $ref, $schema and pattern (Go regular expressions), references resolved through $id, $anchor
// and JSON pointers, duplicate anchors and ids refused — and the tests hold it to that validator,
// kept as a test-only oracle, on every schema the test servers publish and on hostile ones.
package jsonschema

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcp-sentinel/sentinel/wire"
)

// draft is a JSON Schema dialect, by the year or number of its meta-schema.
type draft int

const (
	draft4    draft = 4
	draft6    draft = 6
	draft7    draft = 7
	draft2019 draft = 2019
	draft2020 draft = 2020
)

func (d draft) String() string {
	switch d {
	case draft2019:
		return "2019-09"
	case draft2020:
		return "2020-12"
	case draft4, draft6, draft7:
	}
	return fmt.Sprintf("draft-0%d", int(d))
}

// draftOf maps a $schema (or $ref) URL to the draft whose meta-schema it names: http and https
// alike, an empty fragment allowed, and the unversioned json-schema.org/schema as the latest.
func draftOf(u string) (draft, bool) {
	u, frag, _ := strings.Cut(u, "#")
	if frag != "" {
		return 0, false
	}
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "https://"); !ok {
			return 0, false
		}
	}
	switch rest {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return draft2020, true
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, true
	case "json-schema.org/draft-07/schema":
		return draft7, true
	case "json-schema.org/draft-06/schema":
		return draft6, true
	case "json-schema.org/draft-04/schema":
		return draft4, true
	}
	return 0, false
}

// rootURL is the base URI of the document being compiled, as the old validator named it.
const rootURL = "mem:///schema.json"

// Schema is a compiled schema: its document, checked against its meta-schema, with every
// reference resolved.
type Schema struct {
	doc  any
	root *node
	c    *compiler
}

// Compile judges raw as a schema in its declared dialect ($schema), 2020-12 when it declares
// none. The error says what is wrong and where; nothing is fetched.
func Compile(raw []byte) (*Schema, error) {
	doc, err := wire.DecodeValue(raw)
	if err != nil {
		return nil, fmt.Errorf("decoding the schema: %w", err)
	}
	return CompileValue(doc)
}

// CompileValue is Compile for a document already decoded by wire.DecodeValue.
func CompileValue(doc any) (*Schema, error) {
	d := draft2020
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"].(string); ok {
			var known bool
			if d, known = draftOf(s); !known {
				return nil, fmt.Errorf("unsupported $schema %q: only drafts 4, 6, 7, 2019-09 and 2020-12 are known, and nothing is fetched", s)
			}
		}
	}
	return compileAs(doc, d)
}

// compileAs compiles doc as a schema of draft d: indexes its ids and anchors, checks it against
// the draft's meta-schema rules and resolves every reference reachable from the root.
func compileAs(doc any, d draft) (*Schema, error) {
	c := &compiler{
		doc:     doc,
		byURL:   map[string]*node{},
		anchors: map[string]*node{},
		ids:     map[string]string{},
		regexps: map[string]*regexp.Regexp{},
		nodes:   map[string]*node{},
	}
	root, err := c.index(doc, d, rootURL, "")
	if err != nil {
		return nil, err
	}
	if err := c.meta(root); err != nil {
		return nil, err
	}
	if err := c.resolveAll(root); err != nil {
		return nil, err
	}
	return &Schema{doc: doc, root: root, c: c}, nil
}

// node is one schema location in the document: its value, its dialect and base URI, and its
// JSON pointer from the document's root.
type node struct {
	v       any
	d       draft
	base    string // the base URI in effect for the node's own keywords
	ptr     string
	refs    map[string]*node // resolved $ref, $dynamicRef, $recursiveRef by keyword
	metaOf  map[string]draft // a reference keyword that names a meta-schema, and its draft
	checked bool
	// kids are the subschemas that apply to an instance (those of $defs and definitions do
	// not, until a reference reaches them).
	kids []*node
}

// compiler holds what one Compile has found.
type compiler struct {
	doc     any
	byURL   map[string]*node  // resource base URL (no fragment) -> resource root
	anchors map[string]*node  // base#anchor -> node
	ids     map[string]string // resource URL -> the pointer that declared it
	regexps map[string]*regexp.Regexp
	nodes   map[string]*node // pointer -> node
	order   []*node
}

// schemaError is a schema that is not valid in its dialect.
type schemaError struct {
	ptr, msg string
	d        draft
}

func (e *schemaError) Error() string {
	p := e.ptr
	if p == "" {
		p = "the root"
	}
	return fmt.Sprintf("not a valid %s schema: at %s: %s", e.d, p, e.msg)
}

func (c *compiler) errAt(n *node, key, format string, args ...any) error {
	ptr := n.ptr
	if key != "" {
		ptr += "/" + escape(key)
	}
	return &schemaError{ptr: ptr, d: n.d, msg: fmt.Sprintf(format, args...)}
}

// escape is a JSON pointer token for key.
func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// idKeyword is the keyword that declares a resource in d.
func idKeyword(d draft) string {
	if d == draft4 {
		return "id"
	}
	return "$id"
}

// index records v (a schema location at ptr, in dialect d, under base) and every schema
// location under it: resources by $id, anchors, and pointers. The meta-schema check is separate.
func (c *compiler) index(v any, d draft, base, ptr string) (*node, error) {
	n := &node{v: v, d: d, base: base, ptr: ptr}
	c.nodes[ptr] = n
	c.order = append(c.order, n)
	m, ok := v.(map[string]any)
	if !ok {
		if ptr == "" {
			c.byURL[base] = n
			c.ids[base] = ptr
		}
		return n, nil
	}
	// A subschema may switch dialect only where it starts a resource of its own.
	if ptr != "" {
		if _, hasID := m[idKeyword(d)]; hasID && d >= draft2019 {
			if s, ok := m["$schema"].(string); ok {
				if nd, known := draftOf(s); known {
					d, n.d = nd, nd
				} else {
					return nil, fmt.Errorf("unsupported $schema %q at %s", s, ptr)
				}
			}
		}
	}
	// In drafts up to 7 a $ref makes its siblings, $id included, ignored.
	_, hasRef := m["$ref"]
	siblingsIgnored := hasRef && d <= draft7
	if id, ok := m[idKeyword(d)].(string); ok && !siblingsIgnored {
		u, err := url.Parse(id)
		if err != nil {
			return nil, fmt.Errorf("error in parsing id at %s: %w", pointerOrRoot(ptr), err)
		}
		bu, _ := url.Parse(base)
		abs := bu.ResolveReference(u)
		frag := abs.Fragment
		abs.Fragment, abs.RawFragment = "", ""
		absS := abs.String()
		if d <= draft7 && id != "" && strings.HasPrefix(id, "#") {
			// "$id": "#name" is a plain-name anchor before 2019-09.
			if frag != "" && !strings.HasPrefix(frag, "/") {
				if err := c.addAnchor(base, frag, n); err != nil {
					return nil, err
				}
			}
		} else {
			if prev, dup := c.ids[absS]; dup && absS != base {
				return nil, fmt.Errorf("duplicate id %q at %q and %q", absS, prev, ptr)
			}
			if absS != base || ptr == "" {
				c.ids[absS] = ptr
				c.byURL[absS] = n
			}
			base = absS
			n.base = base
			if d <= draft7 && frag != "" && !strings.HasPrefix(frag, "/") {
				if err := c.addAnchor(base, frag, n); err != nil {
					return nil, err
				}
			}
		}
	}
	if ptr == "" {
		if _, ok := c.byURL[rootURL]; !ok {
			c.byURL[rootURL] = n
			c.ids[rootURL] = ""
		}
		c.byURL[base] = n
	}
	if d >= draft2019 && !siblingsIgnored {
		if a, ok := m["$anchor"].(string); ok {
			if err := c.addAnchor(base, a, n); err != nil {
				return nil, err
			}
		}
		if a, ok := m["$dynamicAnchor"].(string); ok && d >= draft2020 {
			if err := c.addAnchor(base, a, n); err != nil {
				return nil, err
			}
		}
	}
	// Even beside a $ref, subschemas are indexed: a reference may point into them.
	for _, k := range sortedKeys(m) {
		val := m[k]
		kind, ok := subschemaKind(k, d)
		if !ok {
			continue
		}
		p := ptr + "/" + escape(k)
		applies := k != "$defs" && k != "definitions"
		add := func(v any, at string) error {
			kid, err := c.indexSchema(v, d, base, at)
			if kid != nil && applies {
				n.kids = append(n.kids, kid)
			}
			return err
		}
		switch kind {
		case one:
			if err := add(val, p); err != nil {
				return nil, err
			}
		case oneOrArray, array:
			if arr, ok := val.([]any); ok {
				for i, e := range arr {
					if err := add(e, fmt.Sprintf("%s/%d", p, i)); err != nil {
						return nil, err
					}
				}
			} else if kind == oneOrArray {
				if err := add(val, p); err != nil {
					return nil, err
				}
			}
		case object, objectOrStrings:
			if obj, ok := val.(map[string]any); ok {
				for _, pk := range sortedKeys(obj) {
					e := obj[pk]
					if _, isArr := e.([]any); isArr && kind == objectOrStrings {
						continue
					}
					if err := add(e, p+"/"+escape(pk)); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return n, nil
}

// indexSchema indexes v when it can be a schema (an object or a boolean); the meta-schema check
// reports anything else.
func (c *compiler) indexSchema(v any, d draft, base, ptr string) (*node, error) {
	switch v.(type) {
	case map[string]any, bool:
		return c.index(v, d, base, ptr)
	}
	return nil, nil
}

func (c *compiler) addAnchor(base, a string, n *node) error {
	key := base + "#" + a
	if prev, dup := c.anchors[key]; dup && prev != n {
		return fmt.Errorf("duplicate anchor %q in %q at %q and %q", a, base, n.ptr, prev.ptr)
	}
	c.anchors[key] = n
	return nil
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// resolveAll resolves the references of every schema location an instance can reach from the
// root — through applicators and through the references themselves, as the old validator
// compiled them. A broken reference in a definition nothing uses is not an error (its
// meta-schema check is).
func (c *compiler) resolveAll(root *node) error {
	seen := map[*node]bool{root: true}
	queue := []*node{root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		next := append([]*node(nil), n.kids...)
		if m, ok := n.v.(map[string]any); ok {
			for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
				ref, ok := m[kw].(string)
				if !ok {
					continue
				}
				if kw == "$dynamicRef" && n.d < draft2020 || kw == "$recursiveRef" && n.d < draft2019 {
					continue
				}
				target, md, err := c.resolve(n, ref)
				if err != nil {
					return err
				}
				if md != 0 {
					if n.metaOf == nil {
						n.metaOf = map[string]draft{}
					}
					n.metaOf[kw] = md
					continue
				}
				if n.refs == nil {
					n.refs = map[string]*node{}
				}
				n.refs[kw] = target
				next = append(next, target)
			}
		}
		for _, k := range next {
			if !seen[k] {
				seen[k] = true
				queue = append(queue, k)
			}
		}
	}
	return nil
}

// resolve finds the node ref names, relative to n's base: a meta-schema (md), a resource of
// the document, an anchor in one, or a JSON pointer into one.
func (c *compiler) resolve(n *node, ref string) (*node, draft, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return nil, 0, fmt.Errorf("reference %q at %s: %w", ref, pointerOrRoot(n.ptr), err)
	}
	bu, _ := url.Parse(n.base)
	abs := bu.ResolveReference(u)
	frag := ref[strings.IndexByte(ref+"#", '#'):]
	frag = strings.TrimPrefix(frag, "#")
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	abs.Fragment, abs.RawFragment = "", ""
	absS := abs.String()
	res, ok := c.byURL[absS]
	if !ok {
		if md, known := draftOf(absS); known && (frag == "" || frag == "/") {
			return nil, md, nil
		}
		return nil, 0, fmt.Errorf("reference %q at %s: %s is outside the document and is not fetched", ref, pointerOrRoot(n.ptr), absS)
	}
	if frag == "" {
		return res, 0, nil
	}
	if !strings.HasPrefix(frag, "/") {
		t, ok := c.anchors[absS+"#"+frag]
		if !ok {
			return nil, 0, fmt.Errorf("reference %q at %s: anchor %q not found in %s", ref, pointerOrRoot(n.ptr), frag, absS)
		}
		return t, 0, nil
	}
	ptr := res.ptr + frag
	if t, ok := c.nodes[ptr]; ok {
		return t, 0, nil
	}
	// A pointer into a place no keyword makes a schema: the value there is compiled as one.
	v, found := lookup(c.doc, ptr)
	if !found {
		return nil, 0, fmt.Errorf("reference %q at %s: json-pointer %s not found", ref, pointerOrRoot(n.ptr), frag)
	}
	if _, isObj := v.(map[string]any); isObj && !c.insideSchemaValue(ptr) {
		return nil, 0, fmt.Errorf("reference %q at %s: json-pointer %s not found", ref, pointerOrRoot(n.ptr), frag)
	}
	t, err := c.index(v, res.d, res.base, ptr)
	if err != nil {
		return nil, 0, err
	}
	if err := c.meta(t); err != nil {
		return nil, 0, err
	}
	return t, 0, nil
}

// insideSchemaValue reports whether ptr's parent is a schema location holding ptr's last token
// as a keyword no vocabulary defines — where the old validator compiles an object it is pointed
// at. A pointer to the map of a keyword such as properties is not a schema.
func (c *compiler) insideSchemaValue(ptr string) bool {
	i := strings.LastIndexByte(ptr, '/')
	parent, ok := c.nodes[ptr[:i]]
	if !ok {
		return false
	}
	key := unescape(ptr[i+1:])
	_, known := subschemaKind(key, parent.d)
	return !known
}

func unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// lookup follows a JSON pointer from doc.
func lookup(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	v := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescape(tok)
		switch t := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = t[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := arrayIndex(tok)
			if err != nil || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func arrayIndex(tok string) (int, error) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return 0, errors.New("not an index")
	}
	n := 0
	for _, r := range tok {
		if r < '0' || r > '9' || n > 1<<30 {
			return 0, errors.New("not an index")
		}
		n = n*10 + int(r-'0')
	}
	return n, nil
}
