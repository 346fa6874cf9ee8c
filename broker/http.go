package broker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/auth"
)

// HTTPOptions configures NewHTTPHandler.
type HTTPOptions struct {
	// Server is the MCP server (from NewServer); required.
	Server *mcp.Server
	// CanonicalURI is this server's URI (e.g. http://127.0.0.1:8080/mcp); required. Its path is
	// the MCP endpoint, its origin is always allowed, and it is the metadata's resource.
	CanonicalURI string
	// Verifier checks bearer tokens; required unless Fixed is set.
	Verifier *auth.Verifier
	// Fixed, when set instead of Verifier, is the principal of every request: the local,
	// unauthenticated mode (`serve --no-auth`), which the command allows on loopback only. No
	// protected-resource metadata is served in this mode, since nothing is protected.
	Fixed *auth.Principal
	// AuthorizationServers are listed in the protected-resource metadata; required (the spec asks
	// for at least one). Usually the token issuer.
	AuthorizationServers []string
	// Scopes are advertised as scopes_supported; optional.
	Scopes []string
	// AllowedOrigins are further browser origins allowed besides the canonical URI's.
	AllowedOrigins []string
	// Logger gets one line per refused request; nil discards.
	Logger *slog.Logger
	// Metrics receives the request counters; serve Metrics.Handler on a listener of its own. Nil
	// means counters nobody can read.
	Metrics *Metrics
}

// NewHTTPHandler returns the broker's HTTP handler: the MCP endpoint behind its guards, and the
// RFC 9728 metadata at both the path-inserted and the root well-known URI. Everything else is 404.
func NewHTTPHandler(o HTTPOptions) (http.Handler, error) {
	if o.Server == nil || (o.Verifier == nil) == (o.Fixed == nil) {
		return nil, errors.New("creating HTTP handler: Server and exactly one of Verifier and Fixed are required")
	}
	if o.Verifier != nil && len(o.AuthorizationServers) == 0 {
		return nil, errors.New("creating HTTP handler: at least one authorization server is required for the protected-resource metadata")
	}
	u, err := url.Parse(o.CanonicalURI)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, fmt.Errorf("creating HTTP handler: canonical URI %q must be absolute", o.CanonicalURI)
	}
	endpoint := u.Path
	if endpoint == "" {
		endpoint = "/"
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	metaURL, err := auth.MetadataURL(o.CanonicalURI)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP handler: %w", err)
	}
	metaPath, err := auth.MetadataPath(o.CanonicalURI)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP handler: %w", err)
	}
	meta, err := auth.MetadataHandler(auth.ResourceMetadata{
		Resource:               o.CanonicalURI,
		AuthorizationServers:   o.AuthorizationServers,
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        o.Scopes,
		ResourceName:           "Sentinel evaluation broker",
	})
	if err != nil {
		return nil, fmt.Errorf("creating HTTP handler: %w", err)
	}
	origins, err := newOriginGuard(o.CanonicalURI, o.AllowedOrigins, log)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP handler: allowed origins: %w", err)
	}
	server := o.Server
	sdk := admitHTTP(decodeParamHeaders(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		JSONResponse:                 true,
		Logger:                       log,
		MaxRequestBodyBytes:          MaxMessageBytes,
		PropagateRequestCancellation: true,
	})), log)
	mux := http.NewServeMux()
	var authed http.Handler
	if o.Fixed != nil {
		p := *o.Fixed
		authed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stripCredentials(sdk).ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
		})
	} else {
		guard := &auth.Guard{Verifier: o.Verifier, ResourceMetadataURL: metaURL, Scopes: o.Scopes, Logger: log}
		authed = guard.Wrap(stripCredentials(sdk))
		mux.Handle(metaPath, meta)
		if metaPath != auth.WellKnownPrefix {
			mux.Handle(auth.WellKnownPrefix, meta)
		}
	}
	mux.Handle(endpoint, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != endpoint {
			http.NotFound(w, r)
			return
		}
		// Order: method, Origin, authentication, then admission (content type, body, the message
		// itself: the check stdio shares), then the SDK's header checks.
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "Method Not Allowed: this endpoint accepts POST only", http.StatusMethodNotAllowed)
			return
		}
		if !origins.check(w, r) {
			return
		}
		authed.ServeHTTP(w, r)
	}))
	return observe(mux, log, o.Metrics), nil
}

// stripCredentials removes the Authorization header once the guard has verified it, so that no
// handler (the SDK copies request headers into every call's RequestExtra) can read or forward
// the client's token.
func stripCredentials(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.Header.Del("Authorization")
		next.ServeHTTP(w, r2)
	})
}

// admitHTTP reads the body (at most MaxMessageBytes) and admits the message with the check stdio
// uses too, answering a refusal with its status and a JSON-RPC error body; an admitted body is
// handed on unchanged. Content-Type (415) and Accept (400) come first, as the SDK orders them.
func admitHTTP(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			http.Error(w, "Unsupported Media Type: the body must be application/json", http.StatusUnsupportedMediaType)
			return
		}
		if !acceptsBoth(r.Header.Values("Accept")) {
			http.Error(w, "Bad Request: Accept must list both application/json and text/event-stream", http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxMessageBytes+1))
		if err != nil {
			http.Error(w, "Bad Request: the body could not be read", http.StatusBadRequest)
			return
		}
		aerr := admission{http: true, headerVersion: r.Header.Get("MCP-Protocol-Version")}.admit(body)
		if aerr != nil {
			if len(body) > MaxMessageBytes {
				aerr = refuse(nil, jsonrpc.CodeInvalidRequest, "the body is larger than %d bytes", MaxMessageBytes)
				aerr.status = http.StatusRequestEntityTooLarge
			}
			log.WarnContext(r.Context(), "request refused", slog.Int64("code", aerr.code), slog.String("reason", aerr.message), slog.Int("bytes", len(body)))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(aerr.status)
			_, _ = w.Write(aerr.reply())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// acceptsBoth reports whether the Accept values list application/json and text/event-stream (or
// wildcards covering them).
func acceptsBoth(values []string) bool {
	var jsonOK, sseOK bool
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/*", "application/json":
				jsonOK = true
			case "text/*", "text/event-stream":
				sseOK = true
			}
		}
	}
	return jsonOK && sseOK
}
