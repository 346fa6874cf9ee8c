package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Aggregations a TenantPolicy may choose. They decide how the trust score combines verdicts; the
// action is always strictest-wins, so a block can never be averaged away.
const (
	AggregationStrictest = "strictest" // trust score = the lowest per-verdict trust (also what "" means)
	AggregationWeighted  = "weighted"  // trust score = the MetricPolicy.Weight-weighted mean
)

// ErrInvalidPolicy is wrapped by every policy validation error, so callers can tell a
// misconfiguration (fix the policy) from a failure to evaluate (retry).
var ErrInvalidPolicy = errors.New("invalid policy")

// Bounds every policy value is checked against, wherever it comes from (the broker's config file,
// its set_metric_policy tool, a scoring request's policyOverride). Tools publish the same numbers
// in their input schemas.
const (
	// MaxThreshold is the largest threshold; thresholds are in (0, MaxThreshold]. A threshold of 0
	// would block every text, including an empty one, so it is refused rather than honoured.
	MaxThreshold = 1.0
	// MaxJudgeLatencyLimitMs bounds maxJudgeLatencyMs: a judge budget past a minute is a mistake.
	// 0 means DefaultMaxJudgeLatency.
	MaxJudgeLatencyLimitMs = 60000
)

// PolicyError is one problem with a policy: where it is, which field, and what to set.
type PolicyError struct {
	TenantID string
	Metric   string // empty for tenant-level problems
	// Field is the JSON name of the offending field ("threshold", "onTimeout", ...), so a caller
	// can point at the argument or config key to change.
	Field   string
	Problem string
	Fix     string
}

// Error says what is wrong and what to do about it.
func (e *PolicyError) Error() string {
	where := fmt.Sprintf("tenant %q", e.TenantID)
	if e.Metric != "" {
		where += fmt.Sprintf(", metric %q", e.Metric)
	}
	return fmt.Sprintf("%s: %s: %s", where, e.Problem, e.Fix)
}

// Unwrap lets errors.Is(err, ErrInvalidPolicy) match.
func (e *PolicyError) Unwrap() error { return ErrInvalidPolicy }

// knownMetrics are the metrics this package implements.
var knownMetrics = []string{MetricInjection, MetricGroundedness}

// Validate reports every problem with the policy, joined. A metric whose onTimeout is not set is
// an error naming the metric and both choices: there is no system-wide default, because failing
// open and failing closed are opposite promises to the tenant and only the tenant can make one.
func (p TenantPolicy) Validate() error {
	var errs []error
	add := func(metric, field, problem, fix string) {
		errs = append(errs, &PolicyError{TenantID: p.TenantID, Metric: metric, Field: field, Problem: problem, Fix: fix})
	}
	if p.TenantID == "" {
		add("", "tenantId", "tenantId is empty", `set "tenantId" to the tenant this policy belongs to`)
	}
	switch p.Aggregation {
	case "", AggregationStrictest, AggregationWeighted:
	default:
		add("", "aggregation", fmt.Sprintf("aggregation %s is not known", quoteShort(p.Aggregation)), `set "aggregation" to "strictest" or "weighted"`)
	}
	if len(p.Metrics) == 0 {
		add("", "metrics", "no metrics are configured", fmt.Sprintf(`add at least one entry to "metrics" (known: %v)`, knownMetrics))
	}
	seen := map[string]bool{}
	for _, m := range p.Metrics {
		if seen[m.Metric] {
			add(m.Metric, "metric", "metric is configured twice", "keep one entry per metric")
		}
		seen[m.Metric] = true
		for _, pe := range m.problems() {
			pe.TenantID = p.TenantID
			errs = append(errs, pe)
		}
	}
	return errors.Join(errs...)
}

// Validate checks one metric's policy on its own (the Evaluator calls it before every run).
func (m MetricPolicy) Validate() error {
	var errs []error
	for _, pe := range m.problems() {
		errs = append(errs, pe)
	}
	return errors.Join(errs...)
}

func (m MetricPolicy) problems() []*PolicyError {
	var out []*PolicyError
	add := func(field, problem, fix string) {
		out = append(out, &PolicyError{Metric: m.Metric, Field: field, Problem: problem, Fix: fix})
	}
	if !slices.Contains(knownMetrics, m.Metric) {
		add("metric", "metric is not known", fmt.Sprintf(`set "metric" to one of %v`, knownMetrics))
	}
	if p := m.OnTimeout.problem(); p != "" {
		fix := `set "onTimeout" to "fail_open" or "fail_closed"`
		if m.OnTimeout == "" {
			fix = `set "onTimeout" to "fail_open" (allow when the judge misses its budget) or "fail_closed" (block when it does)`
		}
		add("onTimeout", p, fix)
	}
	if p := thresholdProblem(m.Threshold); p != "" {
		add("threshold", p, `set "threshold" to the score at which the metric blocks, e.g. 0.5`)
	}
	switch {
	case m.MaxJudgeLatencyMs < 0:
		add("maxJudgeLatencyMs", fmt.Sprintf("maxJudgeLatencyMs %d is negative", m.MaxJudgeLatencyMs),
			fmt.Sprintf(`set "maxJudgeLatencyMs" to a budget in milliseconds, or 0 for %d`, DefaultMaxJudgeLatency.Milliseconds()))
	case m.MaxJudgeLatencyMs > MaxJudgeLatencyLimitMs:
		add("maxJudgeLatencyMs", fmt.Sprintf("maxJudgeLatencyMs %d is above the limit of %d", m.MaxJudgeLatencyMs, MaxJudgeLatencyLimitMs),
			fmt.Sprintf(`set "maxJudgeLatencyMs" to at most %d`, MaxJudgeLatencyLimitMs))
	}
	if m.Weight < 0 || math.IsNaN(m.Weight) || math.IsInf(m.Weight, 0) {
		add("weight", fmt.Sprintf("weight %v is not a non-negative number", m.Weight), `set "weight" to a positive number, or 0 for 1`)
	}
	if m.Judge != "" && !judgeNameRe().MatchString(m.Judge) {
		add("judge", fmt.Sprintf("judge %s is not a judge name", quoteShort(m.Judge)), `set "judge" to the name of a configured judge (letters, digits, "-", "_", "."), or leave it out for the default judge`)
	}
	return out
}

// problem says what is wrong with an onTimeout value, or "" when it is one of the two choices.
func (o OnTimeout) problem() string {
	switch o {
	case FailOpen, FailClosed:
		return ""
	case "":
		return "onTimeout is not set and has no default"
	}
	return fmt.Sprintf("onTimeout %s is not known", quoteShort(string(o)))
}

// thresholdProblem says what is wrong with a threshold, or "" when it is in (0, MaxThreshold].
func thresholdProblem(t float64) string {
	if math.IsNaN(t) || t <= 0 || t > MaxThreshold {
		return fmt.Sprintf("threshold %v is outside (0,1]", t)
	}
	return ""
}

// Override applies a scoring request's override to the tenant's metric policy m and returns the
// policy the request runs under. Only strictness may change: a lower threshold, a shorter judge
// budget, fail_closed instead of fail_open. Anything that would loosen m is a *PolicyError naming
// the policyOverride field, so a caller can never score under more than the tenant allows.
func (m MetricPolicy) Override(o PolicyOverride) (MetricPolicy, error) {
	var errs []error
	add := func(field, problem, fix string) {
		errs = append(errs, &PolicyError{Metric: m.Metric, Field: "policyOverride." + field, Problem: problem, Fix: fix})
	}
	out := m
	if o.Threshold != nil {
		t := *o.Threshold
		switch {
		case thresholdProblem(t) != "":
			add("threshold", thresholdProblem(t), "send a threshold in (0,1], or omit it")
		case t > m.Threshold:
			add("threshold", fmt.Sprintf("threshold %v is above the tenant's %v", t, m.Threshold),
				fmt.Sprintf("an override may only lower the threshold: send at most %v, or omit it", m.Threshold))
		default:
			out.Threshold = t
		}
	}
	if o.MaxJudgeLatencyMs != nil {
		v, budget := *o.MaxJudgeLatencyMs, int(m.JudgeBudget().Milliseconds())
		switch {
		case v < 1:
			add("maxJudgeLatencyMs", fmt.Sprintf("maxJudgeLatencyMs %d is below 1", v), "send a budget of at least 1 ms, or omit it")
		case v > budget:
			add("maxJudgeLatencyMs", fmt.Sprintf("maxJudgeLatencyMs %d is above the tenant's budget of %d", v, budget),
				fmt.Sprintf("an override may only shorten the judge budget: send at most %d, or omit it", budget))
		default:
			out.MaxJudgeLatencyMs = v
		}
	}
	switch o.OnTimeout {
	case "":
	case FailClosed:
		out.OnTimeout = FailClosed
	case FailOpen:
		if m.OnTimeout != FailOpen {
			add("onTimeout", "fail_open would loosen the tenant's fail_closed", `an override may only tighten: send "fail_closed", or omit it`)
		}
	default:
		add("onTimeout", o.OnTimeout.problem(), `send "fail_closed", or omit it`)
	}
	if err := errors.Join(errs...); err != nil {
		return m, err
	}
	return out, nil
}

// identRune reports whether r may appear in a value quoteShort quotes.
func identRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return r == '_' || r == '-' || r == '.'
}

// quoteShort quotes a value for an error message when it is a short identifier-like string, and
// otherwise says only how long it is: a policy error must never echo arbitrary caller content.
func quoteShort(v string) string {
	if len(v) <= 32 {
		ok := true
		for _, r := range v {
			if !identRune(r) {
				ok = false
				break
			}
		}
		if ok {
			return strconv.Quote(v)
		}
	}
	return fmt.Sprintf("(a value of %d bytes)", len(v))
}

// judgeNameRe is what a judge's name may be: short, no spaces, safe to log.
var judgeNameRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
})

// JudgeBudget is the metric's judge deadline: MaxJudgeLatencyMs, or DefaultMaxJudgeLatency at 0.
func (m MetricPolicy) JudgeBudget() time.Duration {
	if m.MaxJudgeLatencyMs > 0 {
		return time.Duration(m.MaxJudgeLatencyMs) * time.Millisecond
	}
	return DefaultMaxJudgeLatency
}

// Metric returns the tenant's policy for one metric.
func (p TenantPolicy) Metric(name string) (MetricPolicy, bool) {
	for _, m := range p.Metrics {
		if m.Metric == name {
			return m, true
		}
	}
	return MetricPolicy{}, false
}

// Field names a policy document may use, exactly as spelt (encoding/json matches names without
// regard to case, which would let "onTimeOut" through).
var (
	tenantPolicyKeys = []string{"tenantId", "metrics", "aggregation", "archivePayloads"}
	metricPolicyKeys = []string{"metric", "enabled", "threshold", "onTimeout", "maxJudgeLatencyMs", "weight", "judge"}
)

// ParseTenantPolicy decodes a policy strictly (DecodeTenantPolicy) and validates it.
func ParseTenantPolicy(data []byte) (TenantPolicy, error) {
	p, err := DecodeTenantPolicy(data)
	if err != nil {
		return TenantPolicy{}, err
	}
	if err := p.Validate(); err != nil {
		return TenantPolicy{}, fmt.Errorf("validating tenant policy: %w", err)
	}
	return p, nil
}

// DecodeTenantPolicy decodes a policy document without validating its values. Field names must
// be spelt exactly (encoding/json alone matches them regardless of case, which would let a
// misspelt "onTimeOut" silently leave the choice unmade), unknown and repeated fields are errors,
// and nothing may follow the object. The broker's config loader decodes its tenants with it, so
// the config file and a policy document follow one rule.
func DecodeTenantPolicy(data []byte) (TenantPolicy, error) {
	if err := checkPolicyKeys(data); err != nil {
		return TenantPolicy{}, fmt.Errorf("decoding tenant policy: %w", err)
	}
	var p TenantPolicy
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return TenantPolicy{}, fmt.Errorf("decoding tenant policy: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return TenantPolicy{}, errors.New("decoding tenant policy: data after the policy object")
	}
	return p, nil
}

// checkPolicyKeys rejects any field name not spelt exactly as the policy's JSON names, and any
// field given twice.
func checkPolicyKeys(data []byte) error {
	top, err := objectKeys(data)
	if err != nil {
		return err
	}
	for k := range top {
		if !slices.Contains(tenantPolicyKeys, k) {
			return fmt.Errorf("unknown field %s (known: %v)", quoteShort(k), tenantPolicyKeys)
		}
	}
	m, ok := top["metrics"]
	if !ok {
		return nil
	}
	var metrics []json.RawMessage
	if err := json.Unmarshal(m, &metrics); err != nil {
		return fmt.Errorf("field \"metrics\": %w", err)
	}
	for i, raw := range metrics {
		keys, err := objectKeys(raw)
		if err != nil {
			return fmt.Errorf("metrics[%d]: %w", i, err)
		}
		for k := range keys {
			if !slices.Contains(metricPolicyKeys, k) {
				return fmt.Errorf("metrics[%d]: unknown field %s (known: %v)", i, quoteShort(k), metricPolicyKeys)
			}
		}
	}
	return nil
}

// objectKeys reads one JSON object's members exactly as spelt, refusing a member given twice
// (encoding/json would keep the last one silently).
func objectKeys(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("field %s is given twice", quoteShort(k))
		}
		out[k] = v
	}
	return out, nil
}
