package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/handle"
	"github.com/mcp-sentinel/sentinel/broker/schema"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// NameGetEvaluation is the tool that fetches a stored evaluation by its handle.
const NameGetEvaluation = "get_evaluation"

func getEvaluationTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  NameGetEvaluation,
		Title: "Get a stored evaluation",
		Description: "Returns an evaluation flag_injection or check_groundedness stored earlier, by the handle it returned. " +
			"A handle works only for the caller it was issued to, until it expires or is revoked.",
		InputSchema:  schema.Def("GetEvaluationRequest"),
		OutputSchema: schema.Def("EvaluationResult"),
		Annotations:  annotations("Get a stored evaluation"),
	}
}

// maxHandleChars is GetEvaluationRequest's limit on handle.
const maxHandleChars = 256

// getEvaluation resolves the handle through the one resolver and reshapes the stored result.
// Every refusal is the resolver's single error, returned as a tool error.
func (s *Stateful) getEvaluation(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		return nil, tools.ErrNoPrincipal
	}
	h, format, err := decodeGetEvaluation(req.Params.Arguments)
	if err != nil {
		return toolError(err), nil
	}
	ctx, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	ev, err := s.handles().Resolve(ctx, p.Tenant, p.Subject, h)
	if errors.Is(err, handle.ErrUnusable) {
		return toolError(handle.ErrUnusable), nil
	}
	if err != nil {
		return nil, err
	}
	var res eval.EvaluationResult
	if err := json.Unmarshal(ev.Result, &res); err != nil {
		return nil, fmt.Errorf("decoding stored evaluation %s: %w", ev.ID, err)
	}
	upgradeStored(&res, ev)
	audit.NoteFrom(ctx).SetRequestID(res.RequestID)
	out := tools.Shape(res, format)
	out.Handle = h
	return structured(out)
}

// upgradeStored brings a result stored before data model v1 to its shape: the action "allow" is
// "pass", and a result without a request digest gets the digest of its stored input (the
// arguments it was computed from are not kept unless archived).
func upgradeStored(res *eval.EvaluationResult, ev store.Evaluation) {
	if res.Action == "allow" {
		res.Action = eval.ActionPass
	}
	if res.RequestDigest == "" {
		res.RequestDigest = ev.InputDigest
	}
}

// decodeGetEvaluation reads get_evaluation's arguments strictly (GetEvaluationRequest).
func decodeGetEvaluation(raw json.RawMessage) (handle, format string, err error) {
	a, err := tools.ReadArgs(raw, "")
	if err != nil {
		return "", "", err
	}
	if err := a.Known("handle", "response_format"); err != nil {
		return "", "", err
	}
	handle, ok, err := a.String("handle")
	switch {
	case err != nil:
		return "", "", err
	case !ok || handle == "":
		return "", "", &tools.InvalidArgumentError{Argument: "handle", Problem: "is required: pass the handle an evaluating call returned"}
	case utf8.RuneCountInString(handle) > maxHandleChars:
		return "", "", &tools.InvalidArgumentError{Argument: "handle", Problem: fmt.Sprintf("is %d characters; the limit is %d", utf8.RuneCountInString(handle), maxHandleChars)}
	}
	f, _, err := a.String("response_format")
	if err != nil {
		return "", "", err
	}
	format, err = (tools.ScoringRequest{Response: "x", ResponseFormat: f}).Validate(false)
	return handle, format, err
}

// toolError is a result with isError, for errors the caller can act on.
func toolError(err error) *mcp.CallToolResult {
	r := &mcp.CallToolResult{}
	r.SetError(err)
	return r
}

// structured returns v as structured content with the same JSON as text, which is what the SDK
// does for typed tools.
func structured(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the tool result: %w", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}
