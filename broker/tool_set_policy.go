package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/schema"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// NameSetMetricPolicy is the tool that writes the calling tenant's policy for one metric.
const NameSetMetricPolicy = "set_metric_policy"

// onTimeoutKey is the inputRequests key of the elicitation that asks for onTimeout.
const onTimeoutKey = "on_timeout"

// DefaultThreshold is the threshold set_metric_policy writes when neither the call nor the
// tenant's current policy gives one.
const DefaultThreshold = 0.5

func setMetricPolicyTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  NameSetMetricPolicy,
		Title: "Set a metric policy",
		Description: "Writes the calling tenant's policy for one metric (enabled, threshold, judge budget, and what a judge timeout means). " +
			"If onTimeout is omitted the broker asks the user to choose with an elicitation. Pass an idempotencyKey to make retries safe; " +
			"the retries of one elicitation round are applied once (schema v" + schema.Version + ": SetMetricPolicyRequest, SetMetricPolicyResult).",
		InputSchema:  schema.Def("SetMetricPolicyRequest"),
		OutputSchema: schema.Def("SetMetricPolicyResult"),
		Annotations: &mcp.ToolAnnotations{
			Title: "Set a metric policy", ReadOnlyHint: false, DestructiveHint: new(true),
			IdempotentHint: true, OpenWorldHint: new(false),
		},
	}
}

type setMetricPolicyArgs struct {
	Metric            string
	Enabled           *bool
	Threshold         *float64
	OnTimeout         string
	MaxJudgeLatencyMs *int
	IdempotencyKey    string
}

// decodeSetMetricPolicy reads the arguments strictly (SetMetricPolicyRequest). Values are checked
// later, on the completed policy, by eval's one validation.
func decodeSetMetricPolicy(raw json.RawMessage) (setMetricPolicyArgs, error) {
	var a setMetricPolicyArgs
	r, err := tools.ReadArgs(raw, "")
	if err != nil {
		return a, err
	}
	if err := r.Known("metric", "enabled", "threshold", "onTimeout", "maxJudgeLatencyMs", "idempotencyKey"); err != nil {
		return a, err
	}
	var ok bool
	if a.Metric, ok, err = r.String("metric"); err != nil {
		return a, err
	}
	if !ok {
		return a, &tools.InvalidArgumentError{Argument: "metric", Problem: fmt.Sprintf("is required: %q or %q", eval.MetricGroundedness, eval.MetricInjection)}
	}
	if a.Metric != eval.MetricInjection && a.Metric != eval.MetricGroundedness {
		return a, &tools.InvalidArgumentError{Argument: "metric", Problem: fmt.Sprintf("must be %q or %q", eval.MetricGroundedness, eval.MetricInjection)}
	}
	if a.Enabled, err = r.Bool("enabled"); err != nil {
		return a, err
	}
	if a.Threshold, err = r.Number("threshold"); err != nil {
		return a, err
	}
	if a.MaxJudgeLatencyMs, err = r.Integer("maxJudgeLatencyMs"); err != nil {
		return a, err
	}
	if a.OnTimeout, _, err = r.String("onTimeout"); err != nil {
		return a, err
	}
	if a.OnTimeout != "" && !validOnTimeout(a.OnTimeout) {
		return a, &tools.InvalidArgumentError{Argument: "onTimeout", Problem: fmt.Sprintf("must be %q or %q", eval.FailOpen, eval.FailClosed)}
	}
	if a.IdempotencyKey, ok, err = r.String("idempotencyKey"); err != nil {
		return a, err
	}
	if ok {
		if err := tools.CheckKey("idempotencyKey", a.IdempotencyKey); err != nil {
			return a, err
		}
	}
	return a, nil
}

func validOnTimeout(v string) bool {
	return v == string(eval.FailOpen) || v == string(eval.FailClosed)
}

// policyFlow is the sealed state of the elicitation round: the flow's id. The flow, not the
// answer, is the request: its first completed write is what every retry of it replays.
type policyFlow struct {
	Flow string `json:"flow"`
}

// policyApplied is the recorded, replayed result of a write (SetMetricPolicyResult), and the
// value its audit row records.
type policyApplied struct {
	Metric            string  `json:"metric"`
	Enabled           bool    `json:"enabled"`
	Threshold         float64 `json:"threshold"`
	OnTimeout         string  `json:"onTimeout"`
	MaxJudgeLatencyMs int     `json:"maxJudgeLatencyMs"`
	Revision          int64   `json:"revision"`
	AppliedAt         string  `json:"appliedAt"`
}

// setMetricPolicy writes the tenant's metric policy. Without onTimeout it does not guess: it
// asks through an elicitation (or answers -32021 when the client cannot be asked), and carries
// the flow in sealed requestState. Idempotency belongs to a request, never to the value: the
// retries of one MRTR flow, or the calls carrying one idempotencyKey, are applied once and
// replay that write's result; any other call is a new write, even of a value set before. The
// write and its recorded result commit together.
func (s *Stateful) setMetricPolicy(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		return nil, tools.ErrNoPrincipal
	}
	a, err := decodeSetMetricPolicy(req.Params.Arguments)
	if err != nil {
		return toolError(err), nil
	}
	argsDigest := canonicalDigest(req.Params.Arguments)
	binding := seal.Binding{Tool: NameSetMetricPolicy, Tenant: p.Tenant, Subject: p.Subject, RequestDigest: NameSetMetricPolicy + ":" + argsDigest}

	onTimeout, flow := a.OnTimeout, ""
	if onTimeout == "" {
		var res *mcp.CallToolResult
		onTimeout, flow, res, err = s.askOnTimeout(ctx, req, binding)
		if res != nil || err != nil {
			return res, err
		}
	}
	mp, err := s.newMetricPolicy(ctx, p.Tenant, a, onTimeout)
	if err != nil {
		return nil, err
	}
	if err := mp.Validate(); err != nil {
		return toolError(policyArgumentError(err)), nil
	}
	key, fingerprint := effectKey(p, flow, a.IdempotencyKey, argsDigest)
	ctx2, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	ca := callAuditFrom(ctx)
	if ca == nil {
		return nil, errNotAudited
	}
	note := audit.NoteFrom(ctx)
	out, replayed, err := s.Store.Once(ctx2, key, p.Tenant, NameSetMetricPolicy, fingerprint, func(ctx context.Context, tx store.Tx) ([]byte, error) {
		rev, err := tx.PutPolicy(ctx, p.Tenant, mp)
		if err != nil {
			return nil, err
		}
		out, err := json.Marshal(policyApplied{Metric: mp.Metric, Enabled: mp.Enabled, Threshold: mp.Threshold, OnTimeout: string(mp.OnTimeout),
			MaxJudgeLatencyMs: mp.MaxJudgeLatencyMs, Revision: rev, AppliedAt: s.now().UTC().Format(time.RFC3339Nano)})
		if err != nil {
			return nil, err
		}
		// The write, its recorded result and its audit row (recording the value applied) commit
		// in this one transaction, or none does.
		note.SetDetail(string(out))
		_, err = tx.Append(ctx, ca.record(note, "ok").Audit)
		return out, err
	})
	if errors.Is(err, store.ErrKeyReused) {
		return toolError(&tools.InvalidArgumentError{Argument: "idempotencyKey", Problem: "was used before for a different request: send a new key for a new write"}), nil
	}
	if err != nil {
		return nil, fmt.Errorf("writing the %s policy: %w", a.Metric, err)
	}
	if replayed {
		note.SetDetail(string(out))
		note.SetOutcome("replayed")
	} else {
		ca.markWritten()
	}
	s.log().InfoContext(ctx, "policy write", slog.Any("principal", p), slog.String("metric", mp.Metric), slog.Bool("replayed", replayed))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
}

// policyArgumentError turns eval's refusal of the completed policy into a tool error on the
// argument that caused it.
func policyArgumentError(err error) error {
	var pe *eval.PolicyError
	if errors.As(err, &pe) {
		return &tools.InvalidArgumentError{Argument: pe.Field, Problem: pe.Problem + ": " + pe.Fix}
	}
	return &tools.InvalidArgumentError{Argument: "arguments", Problem: err.Error()}
}

// askOnTimeout settles onTimeout through MRTR. It returns the choice and the flow id, or a
// result/error to send instead (an InputRequiredResult, a decline, a refusal, or the replay of
// the write that already consumed the flow: once a flow has written, every later retry of it
// gets that write's result, whatever it answers).
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
	if res, err := s.replayFlow(ctx, b, f.Flow); res != nil || err != nil {
		return "", "", res, err
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
		return "", "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q].action must be accept, decline or cancel", onTimeoutKey)}
	}
}

// replayFlow returns the recorded result of the write that consumed flow, or nil when the flow
// has not written yet.
func (s *Stateful) replayFlow(ctx context.Context, b seal.Binding, flow string) (*mcp.CallToolResult, error) {
	key, _ := effectKey(auth.Principal{Tenant: b.Tenant, Subject: b.Subject}, flow, "", "")
	ctx, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	out, ok, err := s.Store.Recorded(ctx, key, b.Tenant, NameSetMetricPolicy)
	if err != nil {
		return nil, fmt.Errorf("reading the flow's recorded write: %w", err)
	}
	if !ok {
		return nil, nil
	}
	note := audit.NoteFrom(ctx)
	note.SetDetail(string(out))
	note.SetOutcome("replayed")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
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
	requested := map[string]any{
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
			RequestedSchema: requested,
		}},
		RequestState: state,
	}, nil
}

// newMetricPolicy completes the call's arguments from the tenant's current policy: absent fields
// keep the current value (enabled true and threshold DefaultThreshold for a metric without one).
func (s *Stateful) newMetricPolicy(ctx context.Context, tenant string, a setMetricPolicyArgs, onTimeout string) (eval.MetricPolicy, error) {
	mp := eval.MetricPolicy{Metric: a.Metric, Enabled: true, Threshold: DefaultThreshold, OnTimeout: eval.OnTimeout(onTimeout)}
	cur, found, err := s.Policies().PolicyContext(ctx, tenant)
	if err != nil {
		return mp, err
	}
	if found {
		if m, ok := cur.Metric(a.Metric); ok {
			mp.Enabled, mp.Threshold, mp.MaxJudgeLatencyMs, mp.Weight, mp.Judge = m.Enabled, m.Threshold, m.MaxJudgeLatencyMs, m.Weight, m.Judge
		}
	}
	if a.Enabled != nil {
		mp.Enabled = *a.Enabled
	}
	if a.Threshold != nil {
		mp.Threshold = *a.Threshold
	}
	if a.MaxJudgeLatencyMs != nil {
		mp.MaxJudgeLatencyMs = *a.MaxJudgeLatencyMs
	}
	return mp, nil
}

// effectKey names the request a write belongs to, and the fingerprint a replay must match:
//   - an MRTR flow: the flow (its retries replay its first write whatever they answer);
//   - an idempotencyKey: the key, with the arguments as fingerprint (reusing a key for other
//     arguments is refused, not replayed);
//   - neither: a fresh key, so the call is a new write.
func effectKey(p auth.Principal, flow, idempotencyKey, argsDigest string) (key, fingerprint string) {
	h := sha256.New()
	parts := []string{p.Tenant, p.Subject}
	switch {
	case flow != "":
		parts = append(parts, "flow", flow)
	case idempotencyKey != "":
		parts = append(parts, "key", idempotencyKey)
		fingerprint = argsDigest
	default:
		parts = append(parts, "call", newID(""))
	}
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), fingerprint
}
