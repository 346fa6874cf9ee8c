package proxy

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"

	"github.com/mcp-sentinel/sentinel/wire"
)

// toExchange turns a capture into the wire model the checks read; wire frames and decodes the
// bodies (its one SSE parser and one JSON-RPC decoder). Bodies the client or server
// compressed are inflated here, off the hot path, so checks see what the peer meant.
func toExchange(c *Capture, maxBody int) *wire.Exchange {
	ex := &wire.Exchange{
		ID: c.ID, Target: c.Target, Started: c.Start, Duration: c.End.Sub(c.Start),
		Request: wire.Request{Method: c.Method, URL: c.URL, Header: c.RequestHeader,
			Body: inflate(c.RequestHeader, c.RequestBody, maxBody)},
	}
	if c.Err != nil {
		ex.Err = c.Err.Error()
	}
	if c.Transport == wire.TransportStdio {
		ex.Transport = wire.TransportStdio
		if c.ResponseBody != nil || c.Err == nil {
			ex.Response = &wire.Response{Body: c.ResponseBody}
		}
		ex.Parse(parseLimits(max(len(c.ResponseBody), len(ex.Request.Body))))
		return ex
	}
	if c.Status == 0 {
		ex.Parse(parseLimits(len(ex.Request.Body)))
		return ex
	}
	body := inflate(c.ResponseHeader, c.ResponseBody, maxBody)
	ex.Response = &wire.Response{Status: c.Status, Header: c.ResponseHeader, Body: body}
	// The tap already bounded the bodies; the limit only has to let them through whole.
	ex.Parse(parseLimits(max(len(body), len(ex.Request.Body))))
	return ex
}

// inflate returns a gzip body decompressed, at most limit bytes of it (a small body may
// inflate to a large one); other bodies as they are.
func inflate(h http.Header, b []byte, limit int) []byte {
	if !strings.EqualFold(strings.TrimSpace(h.Get("Content-Encoding")), "gzip") || len(b) == 0 {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return b
	}
	out, err := io.ReadAll(io.LimitReader(zr, int64(limit)))
	if err != nil && len(out) == 0 {
		return b
	}
	return out
}

// keyOf names what an exchange was about for aggregation: the JSON-RPC method, plus the tool,
// prompt or resource it addressed ("tools/call:search"). Without a readable request body (one
// too large or cut, kept nowhere) it falls back on the Mcp-Method and Mcp-Name headers a
// 2026-07-28 client sends, so even an exchange that was not graded names its method and tool.
func keyOf(ex *wire.Exchange) (method, key string) {
	m := ex.Request.Message
	if m == nil || m.Method == "" {
		method = strings.TrimSpace(ex.Request.Header.Get(wire.HeaderMethod))
		if method == "" {
			return "", ""
		}
		if name := strings.TrimSpace(ex.Request.Header.Get(wire.HeaderName)); name != "" {
			if v, _, err := wire.DecodeHeaderValue(name); err == nil {
				name = v
			}
			return method, method + ":" + name
		}
		return method, method
	}
	if len(m.Params) == 0 {
		return m.Method, m.Method
	}
	// Each lookup decodes params once: look for uri only where there is no name.
	for _, field := range []string{"name", "uri"} {
		var v string
		if raw := m.ParamField(field); raw != nil && wire.Decode(raw, &v) == nil && v != "" {
			return m.Method, m.Method + ":" + v
		}
	}
	return m.Method, m.Method
}

// parseLimits lets a tapped body through whole: the tap already bounded it, so the parser's own
// caps only have to be no tighter (an event stream of a few MiB holds far more than the
// prober's default event cap).
func parseLimits(bodyLen int) wire.Limits {
	return wire.Limits{MaxBodyBytes: int64(bodyLen) + 1, MaxSSEEvents: bodyLen/2 + 1}
}
