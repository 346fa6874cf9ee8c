package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxBody is how much of each body the tap keeps for grading (4 MiB). A larger body is
// forwarded whole and its exchange recorded as NotGradedTooLarge.
const DefaultMaxBody = 4 << 20

// Capture is what the tap saw of one exchange: the request and response as they crossed, each
// body kept up to the cap. It is delivered once, after both bodies ended.
type Capture struct {
	// ID names the exchange in the store and the live stream: a per-run random prefix and a
	// sequence number, so proxies sharing a store do not collide.
	ID string
	// Start is when the request reached the tap; End when the response body ended or was cut.
	Start time.Time
	End   time.Time
	// Target is the graded endpoint: the upstream URL without its query.
	Target string
	// Upstream is how long the upstream took to answer with headers (0 when it did not).
	Upstream time.Duration

	// Method, URL and RequestHeader are the request as sent upstream; RequestBody is its first
	// MaxBody bytes.
	Method        string
	URL           string
	RequestHeader http.Header
	RequestBody   []byte
	// RequestTooLarge and ResponseTooLarge are set when a body passed the cap; the kept bytes are
	// then only a prefix.
	RequestTooLarge bool

	// Status is 0 when no response arrived (Err says why). ResponseHeader is as received, and
	// ResponseBody its first MaxBody bytes.
	Status           int
	ResponseHeader   http.Header
	ResponseBody     []byte
	ResponseTooLarge bool
	// Err is the transport failure: refused, reset, cut mid-body, cancelled by the client.
	Err error
}

// TooLarge reports whether either body passed the cap, so the exchange cannot be graded.
func (c *Capture) TooLarge() bool { return c.RequestTooLarge || c.ResponseTooLarge }

// Tap is an http.RoundTripper that tees both bodies of every exchange into a Capture and hands
// it to Deliver once the exchange has ended. It forwards everything unchanged, never waits on
// Deliver's consumer beyond the call itself, and knows nothing of the proxy library around it.
type Tap struct {
	// Base sends the requests; it must not be nil.
	Base http.RoundTripper
	// MaxBody caps each kept body in bytes; 0 means DefaultMaxBody.
	MaxBody int
	// Target names the endpoint graded for a request (the upstream URL without query); nil
	// means scheme://host/path of the request.
	Target func(*http.Request) string
	// Deliver receives each finished Capture, outside any lock. It must not block.
	Deliver func(*Capture)

	seq atomic.Uint64
}

var runPrefix = func() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

// RoundTrip forwards req and wraps both bodies with tees. An upstream that cannot be reached
// becomes a bodiless 502, as net/http/httputil.ReverseProxy answers.
func (t *Tap) RoundTrip(req *http.Request) (*http.Response, error) {
	maxBody := t.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	c := &Capture{
		ID:    runPrefix + "-" + strconv.FormatUint(t.seq.Add(1), 10),
		Start: time.Now(), Method: req.Method, URL: req.URL.String(),
		RequestHeader: req.Header.Clone(),
	}
	if t.Target != nil {
		c.Target = t.Target(req)
	} else {
		c.Target = req.URL.Scheme + "://" + req.URL.Host + req.URL.Path
	}
	f := &flow{c: c, pending: 2, deliver: t.Deliver}
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = newTee(req.Body, maxBody, func(b []byte, tooLarge bool, _ error) {
			f.done(func() { c.RequestBody, c.RequestTooLarge = b, tooLarge })
		})
	} else {
		f.done(func() {})
	}
	resp, err := t.Base.RoundTrip(req)
	if err != nil {
		f.done(func() { c.Err = err; c.End = time.Now() })
		return badGateway(req), nil
	}
	c.Upstream = time.Since(c.Start)
	c.Status, c.ResponseHeader = resp.StatusCode, resp.Header.Clone()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// The body is now the raw connection (a WebSocket, say), which the proxy library must
		// see unwrapped: record the handshake and leave the bytes alone.
		f.done(func() { c.End = time.Now() })
		return resp, nil
	}
	abort := abortFrom(req.Context())
	resp.Body = newTee(resp.Body, maxBody, func(b []byte, tooLarge bool, err error) {
		if err != nil && abort != nil {
			abort.Store(true)
		}
		f.done(func() {
			c.ResponseBody, c.ResponseTooLarge, c.End = b, tooLarge, time.Now()
			if err != nil {
				c.Err = err
			}
		})
	})
	return resp, nil
}

func badGateway(req *http.Request) *http.Response {
	return &http.Response{
		StatusCode: http.StatusBadGateway, Status: "502 Bad Gateway",
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: http.NoBody, ContentLength: 0, Request: req,
	}
}

// flow joins the two halves of a capture: it delivers when both bodies have ended, exactly once.
type flow struct {
	mu      sync.Mutex
	c       *Capture
	pending int
	deliver func(*Capture)
}

func (f *flow) done(record func()) {
	f.mu.Lock()
	record()
	f.pending--
	ready := f.pending == 0
	f.mu.Unlock()
	if ready && f.deliver != nil {
		f.deliver(f.c)
	}
}

// tee forwards reads unchanged and keeps up to max bytes; it calls finish once, on EOF, on a read
// error or on Close, whichever comes first.
type tee struct {
	rc       io.ReadCloser
	max      int
	buf      bytes.Buffer
	tooLarge bool
	once     sync.Once
	finish   func(b []byte, tooLarge bool, err error)
}

func newTee(rc io.ReadCloser, max int, finish func([]byte, bool, error)) *tee {
	return &tee{rc: rc, max: max, finish: finish}
}

func (t *tee) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 && !t.tooLarge {
		if room := t.max - t.buf.Len(); n <= room {
			t.buf.Write(p[:n])
		} else {
			t.buf.Write(p[:room])
			t.tooLarge = true
		}
	}
	switch {
	case errors.Is(err, io.EOF):
		t.end(nil)
	case err != nil:
		t.end(err)
	}
	return n, err
}

// Close ends the capture; a body closed before EOF was cut short by the reader (the client went
// away), which is recorded as an error.
func (t *tee) Close() error {
	err := t.rc.Close()
	t.end(errClosedEarly)
	return err
}

var errClosedEarly = errors.New("body closed before it ended (client cancelled or went away)")

func (t *tee) end(err error) {
	t.once.Do(func() { t.finish(t.buf.Bytes(), t.tooLarge, err) })
}

// abortKey marks a request whose response must be aborted, not ended cleanly, when the upstream
// body fails: the handler goroutine checks the flag after the proxy library returns.
type abortKey struct{}

func withAbort(ctx context.Context) (context.Context, *atomic.Bool) {
	b := &atomic.Bool{}
	return context.WithValue(ctx, abortKey{}, b), b
}

func abortFrom(ctx context.Context) *atomic.Bool {
	b, _ := ctx.Value(abortKey{}).(*atomic.Bool)
	return b
}
