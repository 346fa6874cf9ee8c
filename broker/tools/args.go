package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/internal/strictjson"
)

// Limits on a ScoringRequest, in characters (Unicode code points), which is what the schema's
// maxLength counts (broker/schema/v1.json publishes the same numbers): a valid non-ASCII text is
// accepted exactly up to the limit it was promised.
const (
	MaxResponseChars     = 256 << 10
	MaxContextItems      = 64
	MaxContentChars      = 64 << 10
	MaxContextTotalChars = 1 << 20
	MaxContextIDChars    = 128
	MaxSourceChars       = 1024
	MaxTaskChars         = 8192
	MaxCorrelationChars  = 128
)

// Response formats. Concise is the default: it shortens reasons and leaves out evidence spans;
// every other field of a verdict is in both, so a concise result can still be audited.
const (
	FormatConcise  = "concise"
	FormatDetailed = "detailed"
)

// ScoringRequest is the documented request of flag_injection and check_groundedness (the
// FlagInjectionRequest and CheckGroundednessRequest definitions of broker/schema).
type ScoringRequest struct {
	// Response is the agent or tool output to score.
	Response string `json:"response"`
	// Context is the source material: what the response may rely on (check_groundedness, at
	// least one item) or travels with (flag_injection, screened too).
	Context []eval.ContextItem `json:"context,omitempty"`
	// TaskDescription is what the response was produced for.
	TaskDescription string `json:"taskDescription,omitempty"`
	// CorrelationID is the caller's own id, echoed in the result.
	CorrelationID string `json:"correlationId,omitempty"`
	// PolicyOverride tightens the tenant's policy for this request only.
	PolicyOverride *eval.PolicyOverride `json:"policyOverride,omitempty"`
	// ResponseFormat is concise (default) or detailed.
	ResponseFormat string `json:"response_format,omitempty"`
}

// InvalidArgumentError is an argument that fails validation. It becomes a tool result with
// isError set, so the model can correct the call. Problem names the limit and the size, never the
// argument's content.
type InvalidArgumentError struct {
	Argument string
	Problem  string
}

// Error names the argument and the problem, for the model to correct its call.
func (e *InvalidArgumentError) Error() string {
	return fmt.Sprintf("invalid argument %q: %s", e.Argument, e.Problem)
}

func invalid(arg, format string, a ...any) error {
	return &InvalidArgumentError{Argument: arg, Problem: fmt.Sprintf(format, a...)}
}

var scoringKeys = []string{"response", "context", "taskDescription", "correlationId", "policyOverride", "response_format"}

// DecodeScoringRequest reads a tool's raw arguments as a ScoringRequest: member names exactly as
// documented, none repeated or unknown, every value of its documented type, every string valid
// Unicode (see Args). It does not check limits; Validate does.
func DecodeScoringRequest(raw json.RawMessage) (ScoringRequest, error) {
	a, err := ReadArgs(raw, "")
	if err != nil {
		return ScoringRequest{}, err
	}
	if err := a.Known(scoringKeys...); err != nil {
		return ScoringRequest{}, err
	}
	var r ScoringRequest
	var errs []error
	keep := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	r.Response, _, err = a.String("response")
	keep(err)
	r.TaskDescription, _, err = a.String("taskDescription")
	keep(err)
	r.CorrelationID, _, err = a.String("correlationId")
	keep(err)
	r.ResponseFormat, _, err = a.String("response_format")
	keep(err)
	items, _, err := a.Array("context")
	keep(err)
	for i := 0; i < items.Len(); i++ {
		it, err := items.Object(i)
		if err != nil {
			keep(err)
			continue
		}
		if err := it.Known("id", "source", "content"); err != nil {
			keep(err)
			continue
		}
		var c eval.ContextItem
		c.ID, _, err = it.String("id")
		keep(err)
		c.Source, _, err = it.String("source")
		keep(err)
		c.Content, _, err = it.String("content")
		keep(err)
		r.Context = append(r.Context, c)
	}
	if o, ok, err := a.Object("policyOverride"); err != nil {
		keep(err)
	} else if ok {
		keep(o.Known("threshold", "maxJudgeLatencyMs", "onTimeout"))
		po := &eval.PolicyOverride{}
		po.Threshold, err = o.Number("threshold")
		keep(err)
		po.MaxJudgeLatencyMs, err = o.Integer("maxJudgeLatencyMs")
		keep(err)
		s, _, err := o.String("onTimeout")
		keep(err)
		po.OnTimeout = eval.OnTimeout(s)
		r.PolicyOverride = po
	}
	if len(errs) > 0 {
		return ScoringRequest{}, errs[0]
	}
	return r, nil
}

// Validate checks r against the limits of tool's request (requireContext for
// check_groundedness) and returns the chosen format. Every limit counts characters.
func (r ScoringRequest) Validate(requireContext bool) (string, error) {
	format, err := validateFormat(r.ResponseFormat)
	if err != nil {
		return "", err
	}
	if err := checkText("response", r.Response, 1, MaxResponseChars); err != nil {
		return "", err
	}
	if strings.TrimSpace(r.Response) == "" {
		return "", invalid("response", "must not be only whitespace")
	}
	if err := checkText("taskDescription", r.TaskDescription, 0, MaxTaskChars); err != nil {
		return "", err
	}
	if r.CorrelationID != "" {
		if err := checkCorrelationID("correlationId", r.CorrelationID); err != nil {
			return "", err
		}
	}
	switch {
	case requireContext && len(r.Context) == 0:
		return "", invalid("context", "needs at least one item: the source material to check the response against")
	case len(r.Context) > MaxContextItems:
		return "", invalid("context", "has %d items; the limit is %d", len(r.Context), MaxContextItems)
	}
	seen := map[string]bool{}
	total := 0
	for i, c := range r.Context {
		arg := fmt.Sprintf("context[%d]", i)
		id := contextID(c.ID, i)
		if err := checkText(arg+".content", c.Content, 1, MaxContentChars); err != nil {
			return "", err
		}
		if strings.TrimSpace(c.Content) == "" {
			return "", invalid(arg+".content", "must not be only whitespace")
		}
		if c.ID != "" {
			if err := checkText(arg+".id", c.ID, 1, MaxContextIDChars); err != nil {
				return "", err
			}
		}
		if err := checkText(arg+".source", c.Source, 0, MaxSourceChars); err != nil {
			return "", err
		}
		if seen[id] {
			return "", invalid(arg+".id", "is used twice (ids must be unique; an item without one is ctx-N for position N)")
		}
		seen[id] = true
		total += utf8.RuneCountInString(c.Content)
		if total > MaxContextTotalChars {
			return "", invalid("context", "totals more than %d characters of content", MaxContextTotalChars)
		}
	}
	return format, nil
}

// contextID is an item's id: its own, or ctx-N for position N (1-based).
func contextID(id string, i int) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("ctx-%d", i+1)
}

// input is the metric input r describes, with defaulted context ids.
func (r ScoringRequest) input() Input {
	in := Input{Response: r.Response, TaskDescription: r.TaskDescription}
	if len(r.Context) > 0 {
		in.Context = make([]eval.ContextItem, len(r.Context))
		for i, c := range r.Context {
			c.ID = contextID(c.ID, i)
			in.Context[i] = c
		}
	}
	return in
}

func validateFormat(f string) (string, error) {
	switch f {
	case "", FormatConcise:
		return FormatConcise, nil
	case FormatDetailed:
		return FormatDetailed, nil
	}
	return "", invalid("response_format", `must be "concise" or "detailed" (got a string of %d characters)`, utf8.RuneCountInString(f))
}

// checkText enforces a character range on s and says what was wrong by size only.
func checkText(arg, s string, minChars, maxChars int) error {
	if !utf8.ValidString(s) {
		return invalid(arg, "is not valid UTF-8")
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n < minChars && minChars == 1:
		return invalid(arg, "must not be empty")
	case n < minChars:
		return invalid(arg, "is %d characters; the minimum is %d", n, minChars)
	case n > maxChars:
		return invalid(arg, "is %d characters; the limit is %d", n, maxChars)
	}
	return nil
}

// checkCorrelationID requires 1 to MaxCorrelationChars printable ASCII characters, the pattern
// the schema publishes: it is echoed back and logged, so it must not carry text.
func checkCorrelationID(arg, s string) error {
	if len(s) == 0 || len(s) > MaxCorrelationChars {
		return invalid(arg, "must be 1 to %d printable ASCII characters (got %d bytes)", MaxCorrelationChars, len(s))
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return invalid(arg, "must be 1 to %d printable ASCII characters without spaces", MaxCorrelationChars)
		}
	}
	return nil
}

// CheckKey checks an idempotency key the way correlationId is checked (same pattern).
func CheckKey(arg, s string) error { return checkCorrelationID(arg, s) }

// ErrNoPrincipal is returned when a call reaches the core without an established principal,
// which a correctly wired transport never allows.
var ErrNoPrincipal = errors.New("no authenticated principal for this call")

// Args reads one JSON object of tool arguments strictly, for every tool: exact member names, no
// repeated member, values of the documented JSON type, strings that are valid Unicode text
// (encoding/json would replace invalid UTF-8 and lone surrogate escapes with U+FFFD, and evidence
// offsets would no longer match the caller's bytes). Errors are *InvalidArgumentError naming the
// argument path, never its content.
type Args struct {
	obj  *strictjson.Object
	path string
}

// ReadArgs reads raw (absent or null means no arguments) as the object at path ("" for the top).
func ReadArgs(raw json.RawMessage, path string) (*Args, error) {
	if b := strings.TrimSpace(string(raw)); b == "" || b == "null" {
		raw = json.RawMessage(`{}`)
	}
	if err := strictjson.CheckText(raw, 0); err != nil {
		return nil, invalid(orArguments(path), "%v", err)
	}
	o, err := strictjson.ParseObject(raw)
	if err != nil {
		return nil, invalid(orArguments(path), "%v", err)
	}
	return &Args{obj: o, path: path}, nil
}

func orArguments(path string) string {
	if path == "" {
		return "arguments"
	}
	return path
}

func (a *Args) name(member string) string {
	if a.path == "" {
		return member
	}
	return a.path + "." + member
}

// Known refuses a member that is not exactly one of names.
func (a *Args) Known(names ...string) error {
	if u := a.obj.Unknown(names...); len(u) > 0 {
		return invalid(orArguments(a.path), "has an unknown member %s (known: %s)", strictjson.Name(u[0]), strings.Join(names, ", "))
	}
	return nil
}

// get returns a present, non-null member of the given JSON kind.
func (a *Args) get(member, kind string) (json.RawMessage, bool, error) {
	raw, ok := a.obj.Get(member)
	if !ok || strictjson.KindOf(raw) == "null" {
		return nil, false, nil
	}
	if k := strictjson.KindOf(raw); k != kind {
		return nil, false, invalid(a.name(member), "must be %s, not %s", kind, k)
	}
	return raw, true, nil
}

// String reads a string member ("" and false when absent).
func (a *Args) String(member string) (string, bool, error) {
	raw, ok, err := a.get(member, "a string")
	if !ok || err != nil {
		return "", false, err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, invalid(a.name(member), "is not a valid JSON string")
	}
	return s, true, nil
}

// Number reads a number member (nil when absent).
func (a *Args) Number(member string) (*float64, error) {
	raw, ok, err := a.get(member, "a number")
	if !ok || err != nil {
		return nil, err
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, invalid(a.name(member), "is not a number in range")
	}
	return &f, nil
}

// Integer reads an integer member (nil when absent); 3.0 is an integer, 3.5 is not.
func (a *Args) Integer(member string) (*int, error) {
	f, err := a.Number(member)
	if f == nil || err != nil {
		return nil, err
	}
	if *f != float64(int(*f)) || *f > 1<<31 || *f < -(1<<31) {
		return nil, invalid(a.name(member), "must be an integer")
	}
	n := int(*f)
	return &n, nil
}

// Bool reads a boolean member (nil when absent).
func (a *Args) Bool(member string) (*bool, error) {
	raw, ok, err := a.get(member, "a boolean")
	if !ok || err != nil {
		return nil, err
	}
	b := string(raw) == "true"
	return &b, nil
}

// Object reads an object member.
func (a *Args) Object(member string) (*Args, bool, error) {
	raw, ok, err := a.get(member, "an object")
	if !ok || err != nil {
		return nil, false, err
	}
	o, err := ReadArgs(raw, a.name(member))
	return o, err == nil, err
}

// Items is an array member's elements.
type Items struct {
	raw  []json.RawMessage
	path string
}

// Array reads an array member.
func (a *Args) Array(member string) (Items, bool, error) {
	raw, ok, err := a.get(member, "an array")
	if !ok || err != nil {
		return Items{}, false, err
	}
	items, err := strictjson.Array(raw)
	if err != nil {
		return Items{}, false, invalid(a.name(member), "%v", err)
	}
	return Items{raw: items, path: a.name(member)}, true, nil
}

// Len is the number of elements.
func (it Items) Len() int { return len(it.raw) }

// Object reads element i as an object.
func (it Items) Object(i int) (*Args, error) {
	path := fmt.Sprintf("%s[%d]", it.path, i)
	if k := strictjson.KindOf(it.raw[i]); k != "an object" {
		return nil, invalid(path, "must be an object, not %s", k)
	}
	return ReadArgs(it.raw[i], path)
}
