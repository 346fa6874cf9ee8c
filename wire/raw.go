package wire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// DoRaw sends spec over a connection of its own as HTTP/1.1 bytes written by hand, header values
// exactly as given. Go's client trims whitespace around header values before sending, so a probe
// of how a server treats optional whitespace (RFC 9110 §5.5) needs this path. Like Do, it always
// returns an exchange, reads within lim, and redacts secrets in the record. The endpoint must be
// http or https; the connection is closed after the response.
func DoRaw(ctx context.Context, spec RequestSpec, lim Limits, secrets ...string) *Exchange {
	lim = lim.WithDefaults()
	method := spec.Method
	if method == "" {
		method = http.MethodPost
	}
	ex := &Exchange{
		Target:  RedactString(spec.URL, secrets...),
		Started: time.Now(),
		Request: Request{Method: method, URL: RedactString(spec.URL, secrets...),
			Header: RedactHeader(spec.Header, secrets...), Body: append([]byte(nil), spec.Body...)},
	}
	defer func() { ex.Duration = time.Since(ex.Started) }()
	ctx, cancel := context.WithTimeout(ctx, lim.ReadTimeout)
	defer cancel()
	fail := func(what string, err error) *Exchange {
		ex.Err = RedactString(fmt.Sprintf("%s: %v", what, err), secrets...)
		ex.Parse(lim)
		return ex
	}
	u, err := url.Parse(spec.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail("building raw request", fmt.Errorf("endpoint %q is not an http(s) URL", spec.URL))
	}
	conn, err := dialRaw(ctx, u)
	if err != nil {
		return fail("sending request", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := conn.Write(rawRequest(method, u, spec)); err != nil {
		return fail("sending request", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		if ctx.Err() != nil {
			return fail("no response before the deadline", err)
		}
		return fail("reading response", err)
	}
	defer resp.Body.Close()
	ex.Response = &Response{Status: resp.StatusCode, Header: resp.Header.Clone()}
	readBody(ctx, ex.Response, resp.Body, lim, spec.Until)
	ex.Parse(lim)
	return ex
}

func dialRaw(ctx context.Context, u *url.URL) (net.Conn, error) {
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	if u.Scheme == "https" {
		d := &tls.Dialer{Config: &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}}
		return d.DialContext(ctx, "tcp", host)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", host)
}

// rawRequest writes the request line, Host, every header of spec verbatim (names as given,
// sorted for a stable order), Content-Length and Connection: close.
func rawRequest(method string, u *url.URL, spec RequestSpec) []byte {
	var b bytes.Buffer
	host := u.Host
	if h := spec.Header.Get("Host"); h != "" {
		host = h
	}
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, u.RequestURI(), host)
	names := make([]string, 0, len(spec.Header))
	for k := range spec.Header {
		if !strings.EqualFold(k, "Host") {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range spec.Header[k] {
			fmt.Fprintf(&b, "%s:%s\r\n", k, rawValue(v))
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\nConnection: close\r\n\r\n", len(spec.Body))
	b.Write(spec.Body)
	return b.Bytes()
}

// rawValue keeps a value's own surrounding whitespace; a value with none gets the customary
// single space after the colon. Line breaks are never written (they would split the request).
func rawValue(v string) string {
	v = string(bytes.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, []byte(v)))
	if v != "" && v[0] != ' ' && v[0] != '\t' {
		return " " + v
	}
	return v
}
