package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/tools"
)

// Name is the serverInfo name the broker reports in every result's _meta.
const Name = "sentinel-broker"

// DefaultListTTL is the ttlMs hint on tools/list and server/discover when ServerOptions.ListTTL
// is 0: the manifest is fixed for the life of the process, so clients may reuse it for a while.
const DefaultListTTL = 5 * time.Minute

// CacheScope values of CacheableResult.
const (
	CacheScopePublic  = "public"
	CacheScopePrivate = "private"
)

// ServerOptions configures NewServer.
type ServerOptions struct {
	// Version is reported in serverInfo; empty means "dev".
	Version string
	// CacheScope is the cacheScope of cacheable results. Empty means private: an authenticated,
	// per-tenant server must not let a shared cache hand its lists to another authorization
	// context.
	CacheScope string
	// ListTTL is the ttlMs hint; 0 means DefaultListTTL, negative means 0 (always revalidate).
	ListTTL time.Duration
	// Logger receives SDK and handler logs; nil discards.
	Logger *slog.Logger
}

// NewServer returns an SDK server with the two tools bound to core. It advertises exactly the
// tools capability (no logging, no list-change notifications: the manifest never changes while
// the process runs). The principal of each call is read from the request context, where the
// HTTP guard or the stdio runner put it; a call without one is refused.
func NewServer(core *tools.Core, opts *ServerOptions) *mcp.Server {
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.CacheScope == "" {
		o.CacheScope = CacheScopePrivate
	}
	ttl := o.ListTTL
	switch {
	case ttl == 0:
		ttl = DefaultListTTL
	case ttl < 0:
		ttl = 0
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	scope := o.CacheScope
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Sentinel evaluation broker", Version: o.Version}, &mcp.ServerOptions{
		Logger:       log,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			c.TTLMs = int(ttl.Milliseconds())
			c.CacheScope = scope
		},
	})
	s.AddReceivingMiddleware(advertisedOnly)
	defs := toolDefs()
	for _, t := range defs {
		switch t.Name {
		case tools.NameFlagInjection:
			s.AddTool(t, bind(core.FlagInjection, log))
		case tools.NameCheckGroundedness:
			s.AddTool(t, bind(core.CheckGroundedness, log))
		}
	}
	return s
}

// unadvertised are the method families of features the broker does not advertise. The SDK
// answers some of them anyway (an empty prompts/list, "unknown prompt" for prompts/get); the
// spec requires -32601 (HTTP 404) for a method of a feature that is not advertised.
var unadvertised = []string{"prompts/", "resources/", "completion/", "logging/"}

// advertisedOnly refuses methods of unadvertised features before the SDK dispatches them.
func advertisedOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		for _, prefix := range unadvertised {
			if strings.HasPrefix(method, prefix) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s (this server advertises tools only)", method)} // admission bounded method to a short name
			}
		}
		return next(ctx, method, req)
	}
}

// bind adapts a handler-core function to the SDK. The arguments are decoded by the handler core's
// strict decoder, not the SDK's schema validation, whose errors quote the offending value (a
// 300 KB injection payload came back verbatim in one); the schema the SDK publishes is the same
// document the decoder enforces. The principal comes from the context; tool errors become results
// with isError; internal failures a JSON-RPC -32603 that does not leak details.
func bind(fn func(context.Context, auth.Principal, tools.ScoringRequest) (tools.Output, error), log *slog.Logger) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p, ok := auth.PrincipalFrom(ctx)
		if !ok {
			return nil, tools.ErrNoPrincipal
		}
		r, err := tools.DecodeScoringRequest(req.Params.Arguments)
		if err != nil {
			return toolError(err), nil
		}
		out, err := fn(ctx, p, r)
		switch {
		case err == nil:
			return structured(out)
		case tools.IsToolError(err):
			return toolError(err), nil
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			log.WarnContext(ctx, "tool call abandoned", slog.String("tool", req.Params.Name), slog.Any("error", err))
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the evaluation was cancelled or ran out of time; retry the call"}
		default:
			log.ErrorContext(ctx, "tool call failed", slog.String("tool", req.Params.Name), slog.Any("error", err))
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error while evaluating; the broker's log has the details"}
		}
	}
}
