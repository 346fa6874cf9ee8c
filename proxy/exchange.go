package proxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/mcp-sentinel/sentinel/wire"
)

// toExchange turns a capture into the wire model the checks read. Bodies the client or server
// compressed are inflated here, off the hot path, so checks see what the peer meant.
func toExchange(c *Capture) *wire.Exchange {
	ex := &wire.Exchange{
		ID: c.ID, Target: c.Target, Started: c.Start, Duration: c.End.Sub(c.Start),
		Request: wire.Request{Method: c.Method, URL: c.URL, Header: c.RequestHeader,
			Body: inflate(c.RequestHeader, c.RequestBody), Truncated: c.RequestTooLarge},
	}
	if c.Err != nil {
		ex.Err = c.Err.Error()
	}
	if c.Status == 0 {
		ex.Parse(parseLimits(len(ex.Request.Body)))
		return ex
	}
	body := inflate(c.ResponseHeader, c.ResponseBody)
	r := &wire.Response{Status: c.Status, Header: c.ResponseHeader, Body: body, Truncated: c.ResponseTooLarge}
	if c.ResponseTooLarge {
		r.TruncatedBy = "bytes"
	}
	ex.Response = r
	// The tap already bounded the bodies; the limit only has to let them through whole.
	ex.Parse(parseLimits(max(len(body), len(ex.Request.Body))))
	return ex
}

func inflate(h http.Header, b []byte) []byte {
	if !strings.EqualFold(strings.TrimSpace(h.Get("Content-Encoding")), "gzip") || len(b) == 0 {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return b
	}
	out, err := io.ReadAll(io.LimitReader(zr, 4*DefaultMaxBody))
	if err != nil && len(out) == 0 {
		return b
	}
	return out
}

// keyOf names what an exchange was about for aggregation: the JSON-RPC method, plus the tool,
// prompt or resource it addressed ("tools/call:search").
func keyOf(ex *wire.Exchange) (method, key string) {
	m := ex.Request.Message
	if m == nil || m.Method == "" {
		return "", ""
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch {
	case p.Name != "":
		return m.Method, m.Method + ":" + p.Name
	case p.URI != "":
		return m.Method, m.Method + ":" + p.URI
	}
	return m.Method, m.Method
}

// parseLimits lets a tapped body through whole: the tap already bounded it, so the parser's own
// caps only have to be no tighter (an event stream of a few MiB holds far more than the
// prober's default event cap).
func parseLimits(bodyLen int) wire.Limits {
	return wire.Limits{MaxBodyBytes: int64(bodyLen) + 1, MaxSSEEvents: bodyLen/2 + 1}
}
