package passive

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// MaxOutcomes bounds what Run returns for one exchange, so a hostile stream of thousands of
// messages cannot turn one exchange into an unbounded report. Outcomes past the cap are dropped
// and one indeterminate outcome says so.
const MaxOutcomes = 512

// viewCheck is a check over an already decoded exchange; Run decodes once for all of them.
type viewCheck func(v *view, h *History) []rules.Outcome

// entry is the internal form of Entry: rule names (resolved to IDs through rules.IDOf, so a level
// corrected in the registry breaks nothing) and the check over a view.
type entry struct {
	name  string
	rules []string
	fn    viewCheck
}

// entries is the registry of checks, in the order Run applies them. Checks that record into
// History (discover capabilities, issued requestState) come before the checks that read it.
func entries() []entry {
	return []entry{
		{"discover-result", []string{"discover-result-shape", "discover-server-info"}, checkDiscover},
		{"jsonrpc-envelope", []string{"jsonrpc-envelope", "utf8-messages"}, checkEnvelope},
		{"id-echo", []string{"result-id-echo", "error-id-echo"}, checkIDEcho},
		{"result-member", []string{"result-member-present", "result-type-present", "result-type-known", "extension-fallback"}, checkResultMember},
		{"error-object", []string{"error-object-shape"}, checkErrorShape},
		{"error-codes", []string{"spec-reserved-codes", "retired-codes", "legacy-range-codes", "app-codes-outside-reserved"}, checkErrorCodes},
		{"error-status", []string{"unknown-method-404", "missing-capability-error", "missing-capability-http-400", "unsupported-version-error", "unsupported-version-http-400"}, checkErrorStatus},
		{"server-messages", []string{"notification-no-id", "no-server-initiated-requests"}, checkServerMessages},
		{"notification-reply", []string{"notification-202", "no-response-to-notification"}, checkNotificationReply},
		{"meta-required", []string{"meta-required-reject", "meta-required-http-400"}, checkMetaRequired},
		{"header-body", []string{"pv-header-required", "pv-header-body-match", "mcp-method-required", "mcp-method-match", "mcp-name-required", "mcp-name-match"}, checkHeaderBody},
		{"server-info", []string{"server-info-in-result-meta"}, checkServerInfo},
		{"meta-keys", []string{"meta-key-grammar", "otel-meta-format"}, checkMetaKeys},
		{"reply-content-type", []string{"request-reply-content-type"}, checkReplyContentType},
		{"sse-stream", []string{"sse-x-accel-buffering", "sse-final-response-terminates", "mrtr-nothing-after-interim"}, checkSSEStream},
		{"sse-related", []string{"sse-notifications-related", "request-scoped-off-listen", "server-cancelled-listen-only"}, checkSSERelated},
		{"logging", []string{"no-log-without-loglevel", "log-at-or-above-level", "declare-logging"}, checkLogging},
		{"progress", []string{"progress-token-scope", "progress-increases", "progress-stops"}, checkProgress},
		{"listen", []string{"listen-is-open-sse", "listen-ack-first", "listen-ack-honoured-subset", "listen-subscription-id", "listen-only-requested-types", "resource-updated-opt-in"}, checkListen},
		{"cache-hints", []string{"cache-hints-present", "ttl-nonnegative-integer", "cache-scope-enum", "no-hints-on-input-required", "cache-scope-same-all-pages"}, checkCacheHints},
		{"mrtr-shape", []string{"mrtr-allowed-methods", "mrtr-nonempty", "mrtr-keys-unique", "mrtr-request-kinds"}, checkMRTRShape},
		{"mrtr-capabilities", []string{"mrtr-declared-capabilities", "no-undeclared-capability-use", "elicitation-declared-modes", "sampling-tools-declared", "include-context-declared"}, checkMRTRCapabilities},
		{"streamed-sampling", []string{"include-context-declared"}, checkStreamedSampling},
		{"request-state", []string{"request-state-integrity"}, checkRequestState},
		{"tools-list", []string{"tool-name-syntax", "tool-name-unique", "input-schema-object", "tools-deterministic-order", "lists-not-connection-scoped"}, checkToolsList},
		{"tool-result", []string{"content-blocks-valid", "embedded-resources-capability"}, checkToolResult},
		{"prompt-result", []string{"prompt-media-base64", "prompt-embedded-resource-fields", "content-blocks-valid"}, checkPromptResult},
		{"resource-contents", []string{"binary-properly-encoded", "custom-uri-rfc3986"}, checkResourceContents},
		{"completion", []string{"completion-max-100"}, checkCompletion},
		{"deprecated", []string{"removed-methods-absent", "ignore-session-id", "get-delete-405", "no-new-http-sse", "deprecated-features-avoided", "explicit-state-ids"}, checkDeprecated},
		{"capability-negotiation", []string{"respect-capability-negotiation"}, checkCapabilityNegotiation},
		{"x-mcp-header", []string{"x-mcp-header-valid"}, checkXMCPHeader},
		{"schema-dialect", []string{"schemas-valid-dialect"}, checkSchemaDialect},
		{"injection", []string{"tool-outputs-sanitized"}, checkInjection},
	}
}

// All returns every passive check with the rule IDs it can produce outcomes for. The slice is
// built on each call, so callers may keep or filter it.
func All() []Entry {
	es := entries()
	out := make([]Entry, 0, len(es))
	for _, e := range es {
		fn := e.fn
		out = append(out, Entry{Name: e.name, RuleIDs: ids(e.rules), Check: func(ex *wire.Exchange, h *History) []rules.Outcome {
			return stamp(fn(newView(ex), h), ex)
		}})
	}
	return out
}

// Run applies every check to one exchange and returns their outcomes, each stamped with the
// exchange's ID. A check that panics yields one indeterminate outcome naming it; the panic never
// reaches the caller, so one bad check cannot take down a proxy or a scan. h may be nil.
func Run(ex *wire.Exchange, h *History) []rules.Outcome {
	return run(ex, h, registered())
}

// registered is the registry Run applies, built on first use (nothing runs at init) and shared:
// Run is called for every exchange a proxy grades, and the registry never changes.
func registered() []entry {
	registry.once.Do(func() { registry.entries = entries() })
	return registry.entries
}

var registry struct {
	once    sync.Once
	entries []entry
}

// RunFor applies only the checks that can produce outcomes for the named rules and returns
// those rules' outcomes, stamped as Run stamps them. A probe that judges its own exchange the way
// live traffic is judged wants a rule or two of one exchange: Run's thirty-odd checks on every
// sample (probeToolsList compares each of five tools/list results with every other) were most of
// a scan's passive work for outcomes it threw away. The outcomes are Run's for the same
// rules: every check reads only the History it writes itself, but for the capabilities the
// discover check records, so that check always runs too. Only Run's MaxOutcomes cut differs,
// which drops nothing here that Run would have kept for these rules.
func RunFor(ex *wire.Exchange, h *History, names ...string) []rules.Outcome {
	if ex == nil {
		return nil
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
		want[rules.IDOf(n)] = true
	}
	all := registered()
	es := make([]entry, 0, 4)
	for _, e := range all {
		if e.name == "discover-result" || slices.ContainsFunc(e.rules, func(r string) bool { return want[r] }) {
			es = append(es, e)
		}
	}
	var out []rules.Outcome
	for _, o := range run(ex, h, es) {
		if want[o.RuleID] {
			out = append(out, o)
		}
	}
	return out
}

func run(ex *wire.Exchange, h *History, es []entry) []rules.Outcome {
	if ex == nil {
		return nil
	}
	v := newView(ex)
	scratch := outcomeScratch.Get().(*[]rules.Outcome)
	out := (*scratch)[:0]
	for _, e := range es {
		out = append(out, safe(e, v, h)...)
		if len(out) > MaxOutcomes {
			out = append(out[:MaxOutcomes], rules.Undecided(rules.IDOf("jsonrpc-envelope"),
				fmt.Sprintf("the exchange produced more than %d outcomes; the rest were dropped", MaxOutcomes)))
			break
		}
	}
	res := make([]rules.Outcome, len(out))
	copy(res, out)
	clear(out)
	*scratch = out[:0]
	outcomeScratch.Put(scratch)
	return stamp(res, ex)
}

// outcomeScratch recycles the slice run collects an exchange's outcomes in, so that what it
// returns is sized to the outcomes: sized for every check (about forty), each exchange's slice
// was two-thirds empty, and a scan keeps every one of them until its result is built.
var outcomeScratch = sync.Pool{New: func() any { s := make([]rules.Outcome, 0, 64); return &s }}

// panicFormat is the Why of every outcome Run makes from a check that panicked; IsPanic is its
// only reader, so callers that count such panics (the proxy's /metrics) never match prose.
const panicFormat = "passive check %q panicked: %v"

// IsPanic reports whether o is Run's report of a check that panicked and was recovered. The proxy
// counts these in /metrics; testing through this function instead of matching the message means
// rewording it cannot silently stop the count.
func IsPanic(o rules.Outcome) bool {
	if o.Status != rules.Indeterminate || !strings.HasPrefix(o.Why, `passive check "`) {
		return false
	}
	var name string
	var rest string
	n, _ := fmt.Sscanf(o.Why, "passive check %q panicked: %s", &name, &rest)
	return n >= 1 && strings.Contains(o.Why, fmt.Sprintf("%q panicked: ", name))
}

// safe runs one check, turning a panic into an indeterminate outcome that names the check.
func safe(e entry, v *view, h *History) (out []rules.Outcome) {
	defer func() {
		if r := recover(); r != nil {
			id := rules.IDOf("jsonrpc-envelope")
			if len(e.rules) > 0 {
				id = rules.IDOf(e.rules[0])
			}
			out = []rules.Outcome{rules.Undecided(id, fmt.Sprintf(panicFormat, e.name, r))}
		}
	}()
	return e.fn(v, h)
}

// stamp sets the exchange ID on outcomes that do not name one.
func stamp(out []rules.Outcome, ex *wire.Exchange) []rules.Outcome {
	if ex == nil {
		return out
	}
	for i := range out {
		if out[i].Exchange == "" {
			out[i].Exchange = ex.ID
		}
	}
	return out
}

func ids(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = rules.IDOf(n)
	}
	return out
}

// pass and fail build outcomes from a rule name; they keep checks short.
func pass(name, observed string) rules.Outcome { return rules.Passed(rules.IDOf(name), observed) }

func fail(name, format string, args ...any) rules.Outcome {
	return rules.Failed(rules.IDOf(name), fmt.Sprintf(format, args...))
}

func undecided(name, observed, why string) rules.Outcome {
	o := rules.Undecided(rules.IDOf(name), why)
	o.Observed = observed
	return o
}
