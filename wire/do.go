package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Do sends spec with client and reads the response within lim. It ALWAYS returns an Exchange:
// a transport failure (refused, reset, DNS, deadline before headers) is recorded in Err with a nil
// Response; a cut body keeps what was read and sets Truncated and TruncatedBy. An event stream is
// framed event by event as it arrives, so an endless stream stops at the event cap, the byte cap
// or the deadline with memory bounded by the byte cap. The exchange is parsed (Parse) before it
// is returned. Recorded request headers have SensitiveHeaders redacted; secrets lists further
// values (an operator's token) to redact wherever they appear in the record.
func Do(ctx context.Context, client *http.Client, spec RequestSpec, lim Limits, secrets ...string) *Exchange {
	lim = lim.WithDefaults()
	if client == nil {
		client = http.DefaultClient
	}
	method := spec.Method
	if method == "" {
		method = http.MethodPost
	}
	ex := &Exchange{
		Target:  RedactString(spec.URL, secrets...),
		Started: time.Now(),
		Request: Request{
			Method: method,
			URL:    RedactString(spec.URL, secrets...),
			Header: RedactHeader(spec.Header, secrets...),
			Body:   append([]byte(nil), spec.Body...),
		},
	}
	defer func() { ex.Duration = time.Since(ex.Started) }()

	ctx, cancel := context.WithTimeout(ctx, lim.ReadTimeout)
	defer cancel()
	var body io.Reader
	if spec.Body != nil {
		body = bytes.NewReader(spec.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, spec.URL, body)
	if err != nil {
		ex.Err = RedactString(fmt.Sprintf("building request: %v", err), secrets...)
		ex.Parse(lim)
		return ex
	}
	for k, vs := range spec.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if host := spec.Header.Get("Host"); host != "" {
		req.Host = host // Go sends req.Host, never a Host entry of the header map
	}
	req.Close = spec.Close
	resp, err := client.Do(req)
	if err != nil {
		ex.Err = RedactString(describeTransportErr(ctx, err), secrets...)
		ex.Parse(lim)
		return ex
	}
	defer resp.Body.Close()
	ex.Response = &Response{Status: resp.StatusCode, Header: resp.Header.Clone()}
	readBody(ctx, ex.Response, resp.Body, lim, spec.Until)
	ex.Parse(lim)
	return ex
}

// readBody fills r.Body (and r.Events for an event stream) within the limits.
func readBody(ctx context.Context, r *Response, body io.Reader, lim Limits, until func(*Message) bool) {
	cr := &capReader{r: body, max: lim.MaxBodyBytes, keep: true}
	cut := func(by string) { r.Truncated, r.TruncatedBy = true, by }
	defer func() { r.Body = cr.buf.Bytes() }()

	if MediaType(r.Header.Get(HeaderContentType)) != ContentTypeSSE {
		_, err := io.Copy(io.Discard, cr)
		switch {
		case cr.exceeded:
			cut(TruncatedBytes)
		case err != nil && ctx.Err() != nil:
			cut(TruncatedDeadline)
		case err != nil:
			r.ParseErrors = append(r.ParseErrors, fmt.Sprintf("reading body: %v", err))
		}
		return
	}
	p := newSSEParser(cr, lim.MaxBodyBytes)
	defer p.release()
	for {
		ev, err := p.next()
		if err == nil {
			r.Events = append(r.Events, ev)
			if len(r.Events) >= lim.MaxSSEEvents {
				cut(TruncatedEvents)
				return
			}
			if until != nil && ev.Data != "" {
				if m, derr := DecodeMessage([]byte(ev.Data)); derr == nil && until(m) {
					cut(TruncatedUntil)
					return
				}
			}
			continue
		}
		switch {
		case cr.exceeded:
			cut(TruncatedBytes)
		case ctx.Err() != nil:
			cut(TruncatedDeadline)
		case errors.Is(err, io.EOF):
		default:
			r.ParseErrors = append(r.ParseErrors, fmt.Sprintf("reading event stream: %v", err))
		}
		if r.Events == nil {
			r.Events = []Event{} // framed while streaming, even if empty: Parse must not re-frame
		}
		return
	}
}

func describeTransportErr(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("no response before the deadline: %v", err)
	}
	return fmt.Sprintf("sending request: %v", err)
}
