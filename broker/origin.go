package broker

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/mcp-sentinel/sentinel/broker/config"
)

// originGuard enforces the streamable-HTTP rule that a request whose Origin header is present and
// not allowed gets 403 (DNS-rebinding defence). A request without Origin (a non-browser client)
// passes; "null" and unparsable origins never do.
type originGuard struct {
	allowed map[string]bool
	log     *slog.Logger
}

func newOriginGuard(canonicalURI string, extra []string, log *slog.Logger) (*originGuard, error) {
	g := &originGuard{allowed: map[string]bool{}, log: log}
	if canonicalURI != "" {
		o, err := config.NormalizeOrigin(originOf(canonicalURI))
		if err != nil {
			return nil, err
		}
		g.allowed[o] = true
	}
	for _, e := range extra {
		o, err := config.NormalizeOrigin(e)
		if err != nil {
			return nil, err
		}
		g.allowed[o] = true
	}
	return g, nil
}

// check returns false after writing the 403 when r's Origin is not allowed.
func (g *originGuard) check(w http.ResponseWriter, r *http.Request) bool {
	vals := r.Header.Values("Origin")
	if len(vals) == 0 {
		return true
	}
	if len(vals) == 1 {
		if o, err := config.NormalizeOrigin(vals[0]); err == nil && g.allowed[o] {
			return true
		}
	}
	g.log.InfoContext(r.Context(), "request refused", slog.String("reason", "origin not allowed"), slog.Any("origin", vals))
	writeJSONRPCError(w, http.StatusForbidden, codeInvalidRequest, "Forbidden: Origin not allowed")
	return false
}

// originOf strips the path from an absolute URI: "https://h:1/mcp" -> "https://h:1".
func originOf(uri string) string {
	for i := len("https://"); i < len(uri); i++ {
		if uri[i] == '/' {
			return uri[:i]
		}
	}
	return uri
}

// codeInvalidRequest is JSON-RPC's -32600.
const codeInvalidRequest = -32600

// writeJSONRPCError is the one place the broker's own guards write an error body: an HTTP status
// plus a JSON-RPC error without an id (the request was never read), so modern clients recognise
// it as a protocol answer.
func writeJSONRPCError(w http.ResponseWriter, status, code int, message string) {
	body, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
