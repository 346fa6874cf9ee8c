package broker

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/tools"
)

// StatefulToolDefs returns the definitions of the tools a broker with a store adds.
func StatefulToolDefs() []*mcp.Tool {
	return []*mcp.Tool{getEvaluationTool(), setMetricPolicyTool()}
}

// Install adds get_evaluation and set_metric_policy to srv and wraps every tools/call in the
// audit middleware. Call it on a server from NewServer whose core records through s.Recorder()
// and reads policies through s.Policies().
func (s *Stateful) Install(srv *mcp.Server) {
	srv.AddTool(getEvaluationTool(), s.guard(s.getEvaluation))
	srv.AddTool(setMetricPolicyTool(), s.guard(s.setMetricPolicy))
	srv.AddReceivingMiddleware(s.auditMiddleware)
}

// guard maps a raw handler's internal failures to a -32603 that leaks nothing, as bind does for
// the typed tools; JSON-RPC errors the handler chose pass through.
func (s *Stateful) guard(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req)
		if err == nil {
			return res, nil
		}
		if _, ok := err.(*jsonrpc.Error); ok { //nolint:errorlint // handler-chosen protocol errors are returned unwrapped
			return nil, err
		}
		if tools.IsToolError(err) {
			return toolError(err), nil
		}
		s.log().ErrorContext(ctx, "tool call failed", slog.String("tool", req.Params.Name), slog.Any("error", err))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error (the broker's store may be unavailable); retry the call"}
	}
}

// auditMiddleware writes one audit entry per tools/call, after the call, with the outcome — and
// commits it in one transaction with whatever the call staged (an evaluation and its handle). The
// result goes out only after that commit: a call whose record cannot be written is not
// acknowledged (-32603, retry), and nothing of it is stored. An effect writes its audit row in
// its own transaction and marks the call written.
func (s *Stateful) auditMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		p, _ := auth.PrincipalFrom(ctx)
		var args json.RawMessage
		if call.Params != nil {
			args = call.Params.Arguments
		}
		ctx, note := audit.WithNote(ctx)
		ctx, ca := withCallAudit(ctx, audit.Entry{At: s.now(), Tenant: p.Tenant, Subject: p.Subject, Tool: toolName(call), ArgsDigest: canonicalDigest(args)})
		res, err := next(ctx, method, req)
		if ca.isWritten() {
			return res, err
		}
		_, outcome := note.Values()
		if outcome == "" {
			outcome = outcomeOf(res, err)
		}
		rec := ca.record(note, outcome)
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StoreTimeout)
		defer cancel()
		if _, cerr := s.Store.Commit(actx, rec); cerr != nil {
			s.log().ErrorContext(ctx, "committing the call's audit record failed", slog.String("tool", rec.Audit.Tool), slog.Any("error", cerr))
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the call could not be recorded in the audit log, so it is not acknowledged and nothing of it was stored; retry the call"}
		}
		return res, err
	}
}

func toolName(c *mcp.CallToolRequest) string {
	if c.Params == nil {
		return ""
	}
	return c.Params.Name
}

func outcomeOf(res mcp.Result, err error) string {
	if err != nil {
		return "error"
	}
	if r, ok := res.(*mcp.CallToolResult); ok {
		switch {
		case r.InputRequests != nil:
			return "input_required"
		case r.IsError:
			return "tool_error"
		}
	}
	return "ok"
}
