package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// NameSetMetricPolicy is the tool that writes the calling tenant's policy for one metric.
const NameSetMetricPolicy = "set_metric_policy"

// onTimeoutKey is the inputRequests key of the elicitation that asks for onTimeout.
const onTimeoutKey = "on_timeout"

// MaxJudgeLatencyLimitMs bounds maxJudgeLatencyMs: a judge budget past a minute is a mistake.
const MaxJudgeLatencyLimitMs = 60000

// DefaultThreshold is the threshold set_metric_policy writes when neither the call nor the
// tenant's current policy gives one.
const DefaultThreshold = 0.5

var setMetricPolicyInput = `{"type":"object","additionalProperties":false,"required":["metric"],"properties":{
 "metric":{"type":"string","enum":["check_groundedness","flag_injection"],"description":"The metric whose policy is written."},
 "threshold":{"type":"number","minimum":0,"maximum":1,"description":"Score at or above which the metric blocks; defaults to the current threshold, else 0.5."},
 "onTimeout":{"type":"string","enum":["fail_open","fail_closed"],"description":"What a judge timeout means: fail_open allows the response, fail_closed blocks it. When omitted the broker asks the user (elicitation)."},
 "maxJudgeLatencyMs":{"type":"integer","minimum":1,"maximum":60000,"description":"The judge's latency budget for this metric."}}}`

const setMetricPolicyOutput = `{"type":"object","required":["metric","threshold","onTimeout","revision"],"properties":{
 "metric":{"type":"string"},"threshold":{"type":"number"},"onTimeout":{"type":"string","enum":["fail_open","fail_closed"]},
 "maxJudgeLatencyMs":{"type":"integer"},
 "revision":{"type":"integer","description":"How many writes this metric's policy has had; a replayed retry reports the original write's."},
 "appliedAt":{"type":"string","format":"date-time"}}}`

func setMetricPolicyTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  NameSetMetricPolicy,
		Title: "Set a metric policy",
		Description: "Writes the calling tenant's policy for one metric (threshold, judge budget, and what a judge timeout means). " +
			"If onTimeout is omitted the broker asks the user to choose with an elicitation. A retried call is applied once.",
		InputSchema:  compact(setMetricPolicyInput),
		OutputSchema: compact(setMetricPolicyOutput),
		Annotations: &mcp.ToolAnnotations{
			Title: "Set a metric policy", ReadOnlyHint: false, DestructiveHint: new(true),
			IdempotentHint: true, OpenWorldHint: new(false),
		},
	}
}

type setMetricPolicyArgs struct {
	Metric            string   `json:"metric"`
	Threshold         *float64 `json:"threshold,omitempty"`
	OnTimeout         string   `json:"onTimeout,omitempty"`
	MaxJudgeLatencyMs *int     `json:"maxJudgeLatencyMs,omitempty"`
}

func (a setMetricPolicyArgs) validate() error {
	switch {
	case a.Metric != eval.MetricInjection && a.Metric != eval.MetricGroundedness:
		return &tools.InvalidArgumentError{Argument: "metric", Problem: fmt.Sprintf("%q is not one of %q, %q", a.Metric, eval.MetricGroundedness, eval.MetricInjection)}
	case a.Threshold != nil && (math.IsNaN(*a.Threshold) || *a.Threshold < 0 || *a.Threshold > 1):
		return &tools.InvalidArgumentError{Argument: "threshold", Problem: "must be between 0 and 1"}
	case a.OnTimeout != "" && !validOnTimeout(a.OnTimeout):
		return &tools.InvalidArgumentError{Argument: "onTimeout", Problem: fmt.Sprintf("%q is not one of %q, %q", a.OnTimeout, eval.FailOpen, eval.FailClosed)}
	case a.MaxJudgeLatencyMs != nil && (*a.MaxJudgeLatencyMs < 1 || *a.MaxJudgeLatencyMs > MaxJudgeLatencyLimitMs):
		return &tools.InvalidArgumentError{Argument: "maxJudgeLatencyMs", Problem: fmt.Sprintf("must be between 1 and %d", MaxJudgeLatencyLimitMs)}
	}
	return nil
}

func validOnTimeout(v string) bool {
	return v == string(eval.FailOpen) || v == string(eval.FailClosed)
}

// policyFlow is the sealed state of the elicitation round: the flow's id, which becomes part of
// the idempotency key so that duplicates of one retry collapse and distinct flows do not.
type policyFlow struct {
	Flow string `json:"flow"`
}

// policyApplied is the recorded, replayed result of a write.
type policyApplied struct {
	Metric            string  `json:"metric"`
	Threshold         float64 `json:"threshold"`
	OnTimeout         string  `json:"onTimeout"`
	MaxJudgeLatencyMs int     `json:"maxJudgeLatencyMs,omitempty"`
	Revision          int64   `json:"revision"`
	AppliedAt         string  `json:"appliedAt"`
}

// setMetricPolicy writes the tenant's metric policy. Without onTimeout it does not guess: it
// asks through an elicitation (or answers -32021 when the client cannot be asked), and carries
// the flow in sealed requestState. The write and its recorded result commit together, keyed by
// the request's idempotency key; a duplicate replays the recorded bytes.
func (s *Stateful) setMetricPolicy(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		return nil, tools.ErrNoPrincipal
	}
	var a setMetricPolicyArgs
	if err := strictDecode(req.Params.Arguments, &a); err != nil {
		return toolError(&tools.InvalidArgumentError{Argument: "arguments", Problem: err.Error()}), nil
	}
	if err := a.validate(); err != nil {
		return toolError(err), nil
	}
	reqDigest := NameSetMetricPolicy + ":" + canonicalDigest(req.Params.Arguments)
	binding := seal.Binding{Tool: NameSetMetricPolicy, Tenant: p.Tenant, Subject: p.Subject, RequestDigest: reqDigest}

	onTimeout, flow := a.OnTimeout, ""
	if onTimeout == "" {
		var (
			res *mcp.CallToolResult
			err error
		)
		onTimeout, flow, res, err = s.askOnTimeout(ctx, req, binding)
		if res != nil || err != nil {
			return res, err
		}
	}
	mp, err := s.newMetricPolicy(ctx, p.Tenant, a, onTimeout)
	if err != nil {
		return nil, err
	}
	key := idempotencyKey(p, reqDigest, onTimeout, flow)
	ctx2, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	out, replayed, err := s.Store.Once(ctx2, key, p.Tenant, NameSetMetricPolicy, func(ctx context.Context, tx store.Tx) ([]byte, error) {
		rev, err := tx.PutPolicy(ctx, p.Tenant, mp)
		if err != nil {
			return nil, err
		}
		return json.Marshal(policyApplied{Metric: mp.Metric, Threshold: mp.Threshold, OnTimeout: string(mp.OnTimeout),
			MaxJudgeLatencyMs: mp.MaxJudgeLatencyMs, Revision: rev, AppliedAt: s.now().UTC().Format(time.RFC3339Nano)})
	})
	if err != nil {
		return nil, fmt.Errorf("writing the %s policy: %w", a.Metric, err)
	}
	if replayed {
		audit.NoteFrom(ctx).SetOutcome("replayed")
	}
	s.log().InfoContext(ctx, "policy write", slog.Any("principal", p), slog.String("metric", mp.Metric), slog.Bool("replayed", replayed))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
}

// askOnTimeout settles onTimeout through MRTR. It returns the choice and the flow id, or a
// result/error to send instead (an InputRequiredResult, a decline, a refusal).
func (s *Stateful) askOnTimeout(ctx context.Context, req *mcp.CallToolRequest, b seal.Binding) (string, string, *mcp.CallToolResult, error) {
	if req.Params.RequestState == "" {
		caps := req.ClientCapabilities()
		if caps == nil || caps.Elicitation == nil {
			// Written by hand: the SDK's ClientCapabilities always marshals "roots", which this
			// request does not need.
			data := json.RawMessage(`{"requiredCapabilities":{"elicitation":{}}}`)
			return "", "", nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
				Message: "onTimeout was not given and this request did not declare the elicitation capability to ask for it: pass onTimeout, or declare elicitation", Data: data}
		}
		res, err := s.inputRequired(b, policyFlow{Flow: newID("flow_")})
		return "", "", res, err
	}
	var f policyFlow
	if err := s.Keys.Open(req.Params.RequestState, b, &f); err != nil || f.Flow == "" {
		var rej *seal.Rejection
		if errors.As(err, &rej) {
			s.log().WarnContext(ctx, "requestState rejected", slog.String("reason", rej.Reason))
		}
		return "", "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState is invalid, expired, or not for this request: start the call again without it"}
	}
	resp, ok := req.Params.InputResponses[onTimeoutKey]
	if !ok {
		// Nothing answered (or only unknown keys): ask again in the same flow.
		res, err := s.inputRequired(b, f)
		return "", "", res, err
	}
	er, ok := resp.(*mcp.ElicitResult)
	if !ok {
		return "", "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q] must be an elicitation result", onTimeoutKey)}
	}
	switch er.Action {
	case "accept":
		v, _ := er.Content["onTimeout"].(string)
		if !validOnTimeout(v) {
			return "", "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q].content.onTimeout must be %q or %q", onTimeoutKey, eval.FailOpen, eval.FailClosed)}
		}
		return v, f.Flow, nil, nil
	case "decline", "cancel":
		return "", "", toolError(fmt.Errorf("the policy was not changed: the user chose %s instead of picking what a judge timeout means", er.Action)), nil
	default:
		return "", "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q].action %q is not accept, decline or cancel", onTimeoutKey, er.Action)}
	}
}

// inputRequired builds the InputRequiredResult asking for onTimeout, with the flow sealed.
func (s *Stateful) inputRequired(b seal.Binding, f policyFlow) (*mcp.CallToolResult, error) {
	if s.Keys == nil {
		return nil, errors.New("asking for onTimeout: no requestState keys configured")
	}
	state, err := s.Keys.Seal(b, f, s.stateTTL())
	if err != nil {
		return nil, err
	}
	schema := map[string]any{
		"type":     "object",
		"required": []string{"onTimeout"},
		"properties": map[string]any{
			"onTimeout": map[string]any{
				"type":        "string",
				"title":       "When the judge model does not answer in time",
				"description": "fail_open: allow the response (availability first; an injection may pass). fail_closed: block the response (safety first; a slow judge blocks legitimate traffic).",
				// A plain enum (the untitled single-select form) is what every elicitation client
				// renders; the description says what each value means.
				"enum": []string{string(eval.FailOpen), string(eval.FailClosed)},
			},
		},
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{onTimeoutKey: &mcp.ElicitParams{
			Mode:            "form",
			Message:         "Choose what a judge timeout means for this metric. fail_open allows the response when the judge does not answer in time; fail_closed blocks it.",
			RequestedSchema: schema,
		}},
		RequestState: state,
	}, nil
}

// newMetricPolicy completes the call's arguments from the tenant's current policy.
func (s *Stateful) newMetricPolicy(ctx context.Context, tenant string, a setMetricPolicyArgs, onTimeout string) (eval.MetricPolicy, error) {
	mp := eval.MetricPolicy{Metric: a.Metric, Enabled: true, Threshold: DefaultThreshold, OnTimeout: eval.OnTimeout(onTimeout)}
	cur, found, err := s.Policies().PolicyContext(ctx, tenant)
	if err != nil {
		return mp, err
	}
	if found {
		for _, m := range cur.Metrics {
			if m.Metric == a.Metric {
				mp.Threshold, mp.MaxJudgeLatencyMs, mp.Weight, mp.Judge = m.Threshold, m.MaxJudgeLatencyMs, m.Weight, m.Judge
			}
		}
	}
	if a.Threshold != nil {
		mp.Threshold = *a.Threshold
	}
	if a.MaxJudgeLatencyMs != nil {
		mp.MaxJudgeLatencyMs = *a.MaxJudgeLatencyMs
	}
	return mp, nil
}

// idempotencyKey names one logical write: who, which request (its argument digest), the value
// chosen, and the MRTR flow it was chosen in. Duplicates of a request share it; a new flow, a new
// principal or different arguments do not.
func idempotencyKey(p auth.Principal, reqDigest, onTimeout, flow string) string {
	h := sha256.New()
	for _, part := range []string{p.Tenant, p.Subject, reqDigest, onTimeout, flow} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
