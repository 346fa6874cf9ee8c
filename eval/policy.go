package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
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

// PolicyError is one problem with a policy: where it is and what to set.
type PolicyError struct {
	TenantID string
	Metric   string // empty for tenant-level problems
	Problem  string
	Fix      string
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
	add := func(metric, problem, fix string) {
		errs = append(errs, &PolicyError{TenantID: p.TenantID, Metric: metric, Problem: problem, Fix: fix})
	}
	if p.TenantID == "" {
		add("", "tenantId is empty", `set "tenantId" to the tenant this policy belongs to`)
	}
	switch p.Aggregation {
	case "", AggregationStrictest, AggregationWeighted:
	default:
		add("", fmt.Sprintf("aggregation %q is not known", p.Aggregation), `set "aggregation" to "strictest" or "weighted"`)
	}
	if len(p.Metrics) == 0 {
		add("", "no metrics are configured", fmt.Sprintf(`add at least one entry to "metrics" (known: %v)`, knownMetrics))
	}
	seen := map[string]bool{}
	for _, m := range p.Metrics {
		if seen[m.Metric] {
			add(m.Metric, "metric is configured twice", "keep one entry per metric")
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
	add := func(problem, fix string) {
		out = append(out, &PolicyError{Metric: m.Metric, Problem: problem, Fix: fix})
	}
	if !slices.Contains(knownMetrics, m.Metric) {
		add("metric is not known", fmt.Sprintf(`set "metric" to one of %v`, knownMetrics))
	}
	switch m.OnTimeout {
	case FailOpen, FailClosed:
	case "":
		add("onTimeout is not set and has no default",
			`set "onTimeout" to "fail_open" (allow when the judge misses its budget) or "fail_closed" (block when it does)`)
	default:
		add(fmt.Sprintf("onTimeout %q is not known", m.OnTimeout), `set "onTimeout" to "fail_open" or "fail_closed"`)
	}
	if m.Threshold <= 0 || m.Threshold > 1 {
		add(fmt.Sprintf("threshold %v is outside (0,1]", m.Threshold),
			`set "threshold" to the score at which the metric blocks, e.g. 0.5`)
	}
	if m.MaxJudgeLatencyMs < 0 {
		add(fmt.Sprintf("maxJudgeLatencyMs %d is negative", m.MaxJudgeLatencyMs),
			fmt.Sprintf(`set "maxJudgeLatencyMs" to a budget in milliseconds, or 0 for %d`, DefaultMaxJudgeLatency.Milliseconds()))
	}
	if m.Weight < 0 {
		add(fmt.Sprintf("weight %v is negative", m.Weight), `set "weight" to a positive number, or 0 for 1`)
	}
	if m.Judge != "" && !judgeNameRe.MatchString(m.Judge) {
		add(fmt.Sprintf("judge %q is not a judge name", m.Judge), `set "judge" to the name of a configured judge (letters, digits, "-", "_", "."), or leave it out for the default judge`)
	}
	return out
}

// judgeNameRe is what a judge's name may be: short, no spaces, safe to log.
var judgeNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

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

// ParseTenantPolicy decodes a policy strictly (unknown or differently-cased fields are errors, so
// a misspelt "onTimeOut" cannot silently leave the choice unmade) and validates it.
func ParseTenantPolicy(data []byte) (TenantPolicy, error) {
	if err := checkPolicyKeys(data); err != nil {
		return TenantPolicy{}, fmt.Errorf("decoding tenant policy: %w", err)
	}
	var p TenantPolicy
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return TenantPolicy{}, fmt.Errorf("decoding tenant policy: %w", err)
	}
	if err := p.Validate(); err != nil {
		return TenantPolicy{}, fmt.Errorf("validating tenant policy: %w", err)
	}
	return p, nil
}

// checkPolicyKeys rejects any field name not spelt exactly as the policy's JSON names.
func checkPolicyKeys(data []byte) error {
	var doc struct {
		raw     map[string]json.RawMessage
		Metrics []map[string]json.RawMessage `json:"metrics"`
	}
	if err := json.Unmarshal(data, &doc.raw); err != nil {
		return err
	}
	for k := range doc.raw {
		if !slices.Contains(tenantPolicyKeys, k) {
			return fmt.Errorf("unknown field %q (known: %v)", k, tenantPolicyKeys)
		}
	}
	if m, ok := doc.raw["metrics"]; ok {
		if err := json.Unmarshal(m, &doc.Metrics); err != nil {
			return fmt.Errorf("field \"metrics\": %w", err)
		}
	}
	for i, m := range doc.Metrics {
		for k := range m {
			if !slices.Contains(metricPolicyKeys, k) {
				return fmt.Errorf("metrics[%d]: unknown field %q (known: %v)", i, k, metricPolicyKeys)
			}
		}
	}
	return nil
}
