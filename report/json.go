package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mcp-sentinel/sentinel/rules"
)

func init() {
	register(Format{Name: FormatJSON, Ext: ".json", Help: "the canonical result, rendered again by any command", order: 1,
		new: func(Options) Renderer { return jsonRenderer{} }})
}

var _ Renderer = jsonRenderer{}

// jsonRenderer writes the canonical JSON form of a result (docs/result-schema.md): schema set to
// SchemaVersion, fields in struct order, rules sorted by ID, two-space indent, no HTML escaping,
// one trailing newline. Equal results give equal bytes.
type jsonRenderer struct{}

// Render writes r as canonical JSON.
func (jsonRenderer) Render(w io.Writer, r *Result) error {
	if r == nil {
		return errNilResult
	}
	data, err := MarshalCanonical(r)
	if err != nil {
		return err
	}
	return writeAll(w, "JSON", data)
}

// document is the JSON form: the result, then what is derived from it for readers (the counts
// every format prints, and the findings). Decode reads the derived part and drops it: it is
// recomputed from the rules, so an edited file cannot make the counts disagree.
type document struct {
	*Result
	Summary  *Tally        `json:"summary,omitempty"`
	Findings []findingJSON `json:"findings,omitempty"`
}

// findingJSON is one Finding as the JSON form lists it, most urgent first.
type findingJSON struct {
	// Fingerprint is Finding.Fingerprint.
	Fingerprint string `json:"fingerprint"`
	// Rules are the IDs of every rule the behaviour breaks, primary first.
	Rules []string `json:"rules"`
	// Level is the primary rule's level; Rank the finding's rank ("root cause", "security", ...).
	Level rules.Level `json:"level"`
	Rank  string      `json:"rank"`
	// Headline says the finding in a few words.
	Headline string `json:"headline"`
	// Gated says whether the finding counts for the gate; Known whether the comparison knew it.
	Gated bool `json:"gated"`
	Known bool `json:"known,omitempty"`
}

// canonicalDocument is what the json format encodes for r: a copy with the schema version, the
// start time in UTC and the rules in report order, its tally and its findings. MarshalCanonical
// encodes it piecewise for speed; its test encodes the same document with the standard Encoder.
func canonicalDocument(r *Result) document {
	c := *r
	c.Schema = SchemaVersion
	c.Started = r.Started.UTC()
	c.Rules = sortedRules(r)
	if c.Rules == nil {
		c.Rules = []RuleResult{}
	}
	tl := c.Tally()
	doc := document{Result: &c, Summary: &tl}
	for _, f := range c.Findings() {
		doc.Findings = append(doc.Findings, findingJSON{Fingerprint: f.Fingerprint(), Rules: f.RuleIDs(), Level: f.Level(),
			Rank: f.Rank.String(), Headline: f.Headline(), Gated: f.Gated(tl.Gate), Known: c.Known(f)})
	}
	return doc
}

// MarshalCanonical returns the canonical JSON form of r, the bytes the json format writes and
// the findings store keeps. r is not modified.
func MarshalCanonical(r *Result) ([]byte, error) {
	if r == nil {
		return nil, errNilResult
	}
	doc := canonicalDocument(r)
	c := doc.Result
	// The document without its rules is encoded compact, then each rule is encoded compact on
	// its own into one small buffer, reused, and indented straight into the output (indentJSON:
	// json.Indent's bytes without its validation; indentAt indents a piece from the depth it sits
	// at) where the document without them has "rules":[] — the first such key, as nothing before
	// it (schema to probes) has one. No buffer grows by doubling to the third of a megabyte a
	// scan's result takes, and no compact copy of the whole is made: in a short-lived process
	// every fresh page written is a fault. The bytes are the indenting Encoder's
	// (TestMarshalCanonicalIsTheEncoders).
	all := c.Rules
	c.Rules = []RuleResult{}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("encoding the result as JSON: %w", err)
	}
	c.Rules = all
	at := bytes.Index(head.Bytes(), []byte(`"rules":[]`))
	if at < 0 {
		return nil, errors.New("encoding the result as JSON: no rules member in the document")
	}
	if len(all) == 0 {
		return indentJSON(make([]byte, 0, head.Len()*2), head.Bytes()), nil
	}
	at += len(`"rules":[`)
	out, depth := indentAt(make([]byte, 0, head.Len()*2+jsonSizeHint(len(all))), head.Bytes()[:at], 0)
	var rule bytes.Buffer
	enc = json.NewEncoder(&rule)
	enc.SetEscapeHTML(false)
	for i := range all {
		if i > 0 {
			out, _ = indentAt(out, []byte{','}, depth)
		}
		rule.Reset()
		if err := enc.Encode(&all[i]); err != nil {
			return nil, fmt.Errorf("encoding rule %s as JSON: %w", all[i].Rule.ID, err)
		}
		out, _ = indentAt(out, rule.Bytes()[:rule.Len()-1], depth) // without Encode's newline
	}
	out, _ = indentAt(out, head.Bytes()[at:], depth)
	return out, nil
}

// jsonSizeHint is a first guess at the indented JSON size of n rules (a full scan's take about
// 1.2 KB each), so the buffer they are written into is allocated once.
func jsonSizeHint(n int) int { return n * 1536 }

// ErrSchema is wrapped by Decode's error when the document declares a schema version this build
// does not read (or none at all).
var ErrSchema = errors.New("unsupported result schema")

// Decode reads one JSON result as written by the json format. It rejects a missing or unknown
// schema version, unknown fields (a typo or a newer writer would otherwise be silently dropped),
// trailing data, and statuses or levels outside the closed sets. Rules come back sorted by ID, so
// a hand-edited file still renders in canonical order.
func Decode(rd io.Reader) (*Result, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxResultBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the JSON result: %w", err)
	}
	if len(data) > MaxResultBytes {
		return nil, fmt.Errorf("reading the JSON result: larger than %d bytes", MaxResultBytes)
	}
	if err := checkKeyCase(data); err != nil {
		return nil, fmt.Errorf("decoding the JSON result: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Result
	if err := dec.Decode(&document{Result: &r}); err != nil {
		return nil, fmt.Errorf("decoding the JSON result: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("decoding the JSON result: unexpected data after the result object")
	}
	if r.Schema != SchemaVersion {
		return nil, fmt.Errorf("decoding the JSON result: %w %q: this build of Sentinel reads %q; re-export the findings with a matching version",
			ErrSchema, r.Schema, SchemaVersion)
	}
	for i, p := range r.Probes {
		if p.Name == "" || p.StartMs < 0 || p.DurationMs < 0 || p.Requests < 0 {
			return nil, fmt.Errorf("decoding the JSON result: probes[%d]: a step needs a name and non-negative times and counts", i)
		}
	}
	for i, rr := range r.Rules {
		if err := validRuleResult(rr); err != nil {
			return nil, fmt.Errorf("decoding the JSON result: rules[%d] (%s): %w", i, rr.Rule.ID, err)
		}
	}
	normalise(&r)
	return &r, nil
}

// MaxResultBytes bounds what Decode reads: a full scan is well under a megabyte, so anything far
// larger is not a result.
const MaxResultBytes = 64 << 20

// normalise gives a decoded result the canonical in-memory shape, so that decoding what
// MarshalCanonical wrote yields an equal value: rules sorted and never nil, empty lists that the
// JSON form omits as nil, the start time in UTC.
func normalise(r *Result) {
	if r.Rules == nil {
		r.Rules = []RuleResult{}
	}
	slices.SortStableFunc(r.Rules, byRuleID)
	if len(r.Notes) == 0 {
		r.Notes = nil
	}
	if len(r.Probes) == 0 {
		r.Probes = nil
	}
	for i := range r.Rules {
		if len(r.Rules[i].Evidence) == 0 {
			r.Rules[i].Evidence = nil
		}
	}
	r.Started = r.Started.UTC()
}

func validRuleResult(rr RuleResult) error {
	if rr.Rule.ID == "" {
		return errors.New("rule has no id")
	}
	if !rr.Rule.Level.Valid() {
		return fmt.Errorf("unknown level %q: want MUST, MUST NOT, SHOULD or SHOULD NOT", rr.Rule.Level)
	}
	if !rr.Status.Valid() {
		return fmt.Errorf("unknown status %q: want pass, fail, indeterminate or n/a", rr.Status)
	}
	for j, o := range rr.Evidence {
		if !o.Status.Valid() {
			return fmt.Errorf("evidence[%d]: unknown status %q", j, o.Status)
		}
	}
	if rr.Rule.Check != "" && !rr.Rule.Check.Valid() {
		return fmt.Errorf("unknown check mode %q: want active, passive, both or indeterminate", rr.Rule.Check)
	}
	return nil
}
