package tools

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-sentinel/sentinel/eval"
)

// Limits on arguments. The MCP layer's schema declares the same bounds; they are enforced here
// again so a transport that skipped the schema still cannot pass an oversized input to a metric.
const (
	MaxResponseBytes     = 256 << 10
	MaxContextItems      = 64
	MaxContextItemBytes  = 64 << 10
	MaxContextTotalBytes = 1 << 20
	MaxContextIDBytes    = 128
)

// Response formats. Concise is the default: it drops evidence spans, thresholds, tier and model
// names and timings, which an agent deciding what to do next rarely reads.
const (
	FormatConcise  = "concise"
	FormatDetailed = "detailed"
)

// FlagInjectionArgs are the flag_injection tool's arguments.
type FlagInjectionArgs struct {
	// Response is the agent output (or tool output) to screen for prompt injection.
	Response string `json:"response"`
	// Context is optional text the response was produced for (the user's task), which helps tell
	// an instruction the user asked for from an injected one.
	Context string `json:"context,omitempty"`
	// ResponseFormat is concise (default) or detailed.
	ResponseFormat string `json:"response_format,omitempty"`
}

// ContextArg is one item of check_groundedness's context; ID is optional and defaults to
// "ctx-<position>" (1-based) so verdicts can cite it.
type ContextArg struct {
	ID   string `json:"id,omitempty"`
	Text string `json:"text"`
}

// CheckGroundednessArgs are the check_groundedness tool's arguments.
type CheckGroundednessArgs struct {
	// Response is the agent output whose claims are checked.
	Response string `json:"response"`
	// Context is the source material the response should be grounded in; at least one item.
	Context []ContextArg `json:"context"`
	// ResponseFormat is concise (default) or detailed.
	ResponseFormat string `json:"response_format,omitempty"`
}

// InvalidArgumentError is an argument that fails validation. It becomes a tool result with
// isError set, so the model can correct the call.
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

func validateFormat(f string) (string, error) {
	switch f {
	case "", FormatConcise:
		return FormatConcise, nil
	case FormatDetailed:
		return FormatDetailed, nil
	default:
		return "", invalid("response_format", "%q is not one of %q, %q", f, FormatConcise, FormatDetailed)
	}
}

func validateResponse(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return invalid("response", "must not be empty")
	case len(s) > MaxResponseBytes:
		return invalid("response", "is %d bytes; the limit is %d", len(s), MaxResponseBytes)
	case !utf8.ValidString(s):
		return invalid("response", "is not valid UTF-8")
	}
	return nil
}

// validate checks a and returns the metric input and the chosen format.
func (a FlagInjectionArgs) validate() (Input, string, error) {
	format, err := validateFormat(a.ResponseFormat)
	if err != nil {
		return Input{}, "", err
	}
	if err := validateResponse(a.Response); err != nil {
		return Input{}, "", err
	}
	in := Input{Response: a.Response}
	if a.Context != "" {
		if len(a.Context) > MaxContextItemBytes {
			return Input{}, "", invalid("context", "is %d bytes; the limit is %d", len(a.Context), MaxContextItemBytes)
		}
		if !utf8.ValidString(a.Context) {
			return Input{}, "", invalid("context", "is not valid UTF-8")
		}
		in.Context = []eval.ContextItem{{ID: "context", Content: a.Context}}
	}
	return in, format, nil
}

// validate checks a and returns the metric input and the chosen format.
func (a CheckGroundednessArgs) validate() (Input, string, error) {
	format, err := validateFormat(a.ResponseFormat)
	if err != nil {
		return Input{}, "", err
	}
	if err := validateResponse(a.Response); err != nil {
		return Input{}, "", err
	}
	if len(a.Context) == 0 {
		return Input{}, "", invalid("context", "needs at least one item: the source material to check the response against")
	}
	if len(a.Context) > MaxContextItems {
		return Input{}, "", invalid("context", "has %d items; the limit is %d", len(a.Context), MaxContextItems)
	}
	in := Input{Response: a.Response, Context: make([]eval.ContextItem, 0, len(a.Context))}
	seen := map[string]bool{}
	total := 0
	for i, c := range a.Context {
		arg := fmt.Sprintf("context[%d]", i)
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("ctx-%d", i+1)
		}
		switch {
		case strings.TrimSpace(c.Text) == "":
			return Input{}, "", invalid(arg+".text", "must not be empty")
		case len(c.Text) > MaxContextItemBytes:
			return Input{}, "", invalid(arg+".text", "is %d bytes; the limit is %d", len(c.Text), MaxContextItemBytes)
		case !utf8.ValidString(c.Text):
			return Input{}, "", invalid(arg+".text", "is not valid UTF-8")
		case len(id) > MaxContextIDBytes:
			return Input{}, "", invalid(arg+".id", "is longer than %d bytes", MaxContextIDBytes)
		case seen[id]:
			return Input{}, "", invalid(arg+".id", "%q is used twice; ids must be unique", id)
		}
		seen[id] = true
		total += len(c.Text)
		if total > MaxContextTotalBytes {
			return Input{}, "", invalid("context", "totals more than %d bytes", MaxContextTotalBytes)
		}
		in.Context = append(in.Context, eval.ContextItem{ID: id, Content: c.Text})
	}
	return in, format, nil
}

// ErrNoPrincipal is returned when a call reaches the core without an established principal,
// which a correctly wired transport never allows.
var ErrNoPrincipal = errors.New("no authenticated principal for this call")
