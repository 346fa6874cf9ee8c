package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/handle"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// NameGetEvaluation is the tool that fetches a stored evaluation by its handle.
const NameGetEvaluation = "get_evaluation"

var getEvaluationInput = `{"type":"object","additionalProperties":false,"required":["handle"],"properties":{
 "handle":{"type":"string","minLength":1,"maxLength":256,"description":"The handle flag_injection or check_groundedness returned."},
 "response_format":` + responseFormatSchema + `}}`

func getEvaluationTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  NameGetEvaluation,
		Title: "Get a stored evaluation",
		Description: "Returns an evaluation flag_injection or check_groundedness stored earlier, by the handle it returned. " +
			"A handle works only for the caller it was issued to, until it expires or is revoked.",
		InputSchema:  compact(getEvaluationInput),
		OutputSchema: compact(outputSchema),
		Annotations:  annotations("Get a stored evaluation"),
	}
}

type getEvaluationArgs struct {
	Handle         string `json:"handle"`
	ResponseFormat string `json:"response_format,omitempty"`
}

// getEvaluation resolves the handle through the one resolver and reshapes the stored result.
// Every refusal is the resolver's single error, returned as a tool error.
func (s *Stateful) getEvaluation(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		return nil, tools.ErrNoPrincipal
	}
	var a getEvaluationArgs
	if err := strictDecode(req.Params.Arguments, &a); err != nil {
		return toolError(&tools.InvalidArgumentError{Argument: "arguments", Problem: err.Error()}), nil
	}
	if a.Handle == "" {
		return toolError(&tools.InvalidArgumentError{Argument: "handle", Problem: "required"}), nil
	}
	format := tools.FormatConcise
	switch a.ResponseFormat {
	case "", tools.FormatConcise:
	case tools.FormatDetailed:
		format = tools.FormatDetailed
	default:
		return toolError(&tools.InvalidArgumentError{Argument: "response_format", Problem: fmt.Sprintf("%q is not one of %q, %q", a.ResponseFormat, tools.FormatConcise, tools.FormatDetailed)}), nil
	}
	ctx, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	ev, err := s.handles().Resolve(ctx, p.Tenant, p.Subject, a.Handle)
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
	out := tools.Shape(res, format)
	out.Handle = a.Handle
	return structured(out)
}

// strictDecode decodes tool arguments refusing unknown fields; absent arguments are an empty object.
func strictDecode(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage(`{}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decoding arguments: %w", err)
	}
	return nil
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
