package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"mime"
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
	if msgs, _, _ := parseBody(c.RequestHeader.Get("Content-Type"), ex.Request.Body); len(msgs) == 1 {
		ex.Request.Message = msgs[0]
	}
	if c.Err != nil {
		ex.Err = c.Err.Error()
	}
	if c.Status == 0 {
		return ex
	}
	body := inflate(c.ResponseHeader, c.ResponseBody)
	r := &wire.Response{Status: c.Status, Header: c.ResponseHeader, Body: body, Truncated: c.ResponseTooLarge}
	if c.ResponseTooLarge {
		r.TruncatedBy = "bytes"
	}
	r.Messages, r.Events, r.ParseErrors = parseBody(c.ResponseHeader.Get("Content-Type"), body)
	ex.Response = r
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

// parseBody reads a JSON body as one message (or a batch) and an SSE body as events whose data
// are messages. It is forgiving: what does not parse is reported, never fatal.
func parseBody(contentType string, body []byte) ([]*wire.Message, []wire.Event, []string) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "text/event-stream" {
		return parseSSE(body)
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, nil, nil
	}
	if m, err := parseMessage(body); err == nil {
		return []*wire.Message{m}, nil, nil
	} else if body[0] != '[' {
		return nil, nil, []string{"body: " + err.Error()}
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(body, &batch); err != nil {
		return nil, nil, []string{"body: " + err.Error()}
	}
	var out []*wire.Message
	var errs []string
	for _, raw := range batch {
		m, err := parseMessage(raw)
		if err != nil {
			errs = append(errs, "batch element: "+err.Error())
			continue
		}
		out = append(out, m)
	}
	return out, nil, errs
}

func parseMessage(raw []byte) (*wire.Message, error) {
	var m wire.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m.Raw = append(json.RawMessage(nil), raw...)
	return &m, nil
}

func parseSSE(body []byte) ([]*wire.Message, []wire.Event, []string) {
	var msgs []*wire.Message
	var events []wire.Event
	var errs []string
	var ev wire.Event
	var data []string
	flush := func() {
		if data == nil && ev.ID == "" && ev.Event == "" && ev.Retry == "" {
			return
		}
		ev.Data = strings.Join(data, "\n")
		events = append(events, ev)
		if strings.TrimSpace(ev.Data) != "" {
			if m, err := parseMessage([]byte(ev.Data)); err == nil {
				msgs = append(msgs, m)
			} else {
				errs = append(errs, "event data: "+err.Error())
			}
		}
		ev, data = wire.Event{}, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), len(body)+1)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data = append(data, value)
		case "id":
			ev.ID = value
		case "event":
			ev.Event = value
		case "retry":
			ev.Retry = value
		}
	}
	flush()
	return msgs, events, errs
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
