package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// DefaultMaxBody is the largest body the tap keeps for grading (4 MiB). A larger body is
// forwarded whole, never copied, and its exchange recorded as NotGradedTooLarge.
const DefaultMaxBody = 4 << 20

// Capture is what the tap saw of one exchange: the request and response as they crossed, with
// their bodies when the exchange can be graded. It is delivered once, after both bodies ended.
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

	// Method, URL and RequestHeader are the request as sent upstream. RequestBody is its body
	// when it was kept whole (see NotGraded); RequestBytes how many bytes crossed.
	Method        string
	URL           string
	RequestHeader http.Header
	RequestBody   []byte
	RequestBytes  int64

	// Status is 0 when no response arrived (Err says why). ResponseHeader is as received,
	// ResponseBody the body when it was kept whole, ResponseBytes how many bytes crossed.
	Status         int
	ResponseHeader http.Header
	ResponseBody   []byte
	ResponseBytes  int64
	// Err is the transport failure: refused, reset, cut mid-body, cancelled by the client.
	Err error

	// NotGraded is why the exchange cannot be graded, "" when it can: a body too large, not
	// JSON or text, or no room left in the memory budget. Bodies that cannot be graded are
	// never copied; the request body is kept when it was whole, so the record still names the
	// method and tool.
	NotGraded string

	// Transport is wire.TransportStdio for an exchange a stdio front end (the shim) captured:
	// RequestBody is then the client's line and ResponseBody the server's lines for it, joined
	// by newlines; Method, URL, headers and Status are empty. Empty for HTTP.
	Transport string
	// Outcomes are verdicts the front end reached itself and records with the graders': the
	// stdio binding's checks, which judge lines in order, not exchanges.
	Outcomes []rules.Outcome

	// held is what the bodies reserved in budget, released once the exchange is stored.
	held   int64
	budget *Budget
	// pooledRequest and pooledResponse say the body came from bodyBuffers and goes back there
	// once the exchange is stored and nothing refers to it any more.
	pooledRequest, pooledResponse bool
}

// release gives the bodies' memory back to the budget; the capture keeps its other fields.
func (c *Capture) release() {
	if c.budget != nil {
		c.budget.release(c.held)
	}
	c.held = 0
	if c.pooledRequest {
		putBodyBuffer(c.RequestBody)
	}
	if c.pooledResponse {
		putBodyBuffer(c.ResponseBody)
	}
	c.RequestBody, c.ResponseBody = nil, nil
	c.pooledRequest, c.pooledResponse = false, false
}

// Tap is an http.RoundTripper that keeps the bodies of every exchange it can grade, within a
// memory budget, and hands the Capture to Deliver once the exchange has ended. It forwards
// everything unchanged, never waits on Deliver's consumer beyond the call itself, and knows
// nothing of the proxy around it (net/http/httputil.ReverseProxy here; a stdio shim could
// build Captures its own way).
type Tap struct {
	// Base sends the requests; it must not be nil.
	Base http.RoundTripper
	// MaxBody is the largest body kept, in bytes; 0 means DefaultMaxBody.
	MaxBody int
	// Budget bounds the bytes all kept bodies hold; nil means a fresh DefaultMemoryBudget.
	Budget *Budget
	// Target names the endpoint graded for a request (the upstream URL without query); nil
	// means scheme://host/path of the request.
	Target func(*http.Request) string
	// Deliver receives each finished Capture, outside any lock. It must not block.
	Deliver func(*Capture)

	seq      atomic.Uint64
	initOnce sync.Once
}

// runPrefix is this process's random prefix of exchange IDs, drawn on first use: the first
// crypto/rand read seeds the DRBG and arms a timer, which no command but the proxy's needs.
var runPrefix = sync.OnceValue(func() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
})

// Why an exchange was not graded, as stored in findings.Exchange.Graded.
const (
	Graded            = "graded"
	NotGradedTooLarge = "not graded: body too large"
	NotGradedBinary   = "not graded: body is not JSON or text"
	NotGradedBudget   = "not graded: grading memory budget full"
	NotGradedPartial  = "not graded: request body not fully sent"
	NotGradedPanic    = "not graded: a check panicked"
	NotGradedShutdown = "not graded: proxy shutting down"
	NotGradedUpgrade  = "not graded: protocol upgraded"
)

// RoundTrip forwards req and taps both bodies. A transport error is returned as is, for the
// proxy in front to answer it (a bodiless 502, as net/http/httputil.ReverseProxy does).
func (t *Tap) RoundTrip(req *http.Request) (*http.Response, error) {
	t.initOnce.Do(func() {
		if t.Budget == nil {
			t.Budget = NewBudget(0)
		}
		if t.MaxBody <= 0 {
			t.MaxBody = DefaultMaxBody
		}
	})
	c := &Capture{
		ID:    runPrefix() + "-" + strconv.FormatUint(t.seq.Add(1), 10),
		Start: time.Now(), Method: req.Method, URL: req.URL.String(),
		RequestHeader: req.Header.Clone(), budget: t.Budget,
	}
	if t.Target != nil {
		c.Target = t.Target(req)
	} else {
		c.Target = req.URL.Scheme + "://" + req.URL.Host + req.URL.Path
	}
	f := &flow{c: c, pending: 2, deliver: t.Deliver}
	if req.Body != nil && req.Body != http.NoBody {
		keep := t.keepable(f, req.Header, req.ContentLength)
		req.Body = f.tapBody(req.Body, req.ContentLength, keep, t.MaxBody, sideRequest)
	} else {
		f.done(func() {})
	}
	resp, err := t.Base.RoundTrip(req)
	if err != nil {
		f.done(func() { c.Err = err; c.End = time.Now() })
		return nil, err
	}
	c.Upstream = time.Since(c.Start)
	f.mu.Lock()
	c.Status, c.ResponseHeader = resp.StatusCode, resp.Header.Clone()
	f.mu.Unlock()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// The body is now the raw connection (a WebSocket, say), which the proxy must see
		// unwrapped: record the handshake and leave the bytes alone.
		f.drop(NotGradedUpgrade)
		f.done(func() { c.End = time.Now() })
		return resp, nil
	}
	keep := t.keepable(f, resp.Header, resp.ContentLength)
	resp.Body = f.tapBody(resp.Body, resp.ContentLength, keep, t.MaxBody, sideResponse)
	return resp, nil
}

// keepable decides before a body crosses whether it may be kept: only bodies that grading can
// read (JSON, an event stream, text) and that fit, and only while the exchange is still
// gradable. Otherwise the exchange is marked not graded and the body is forwarded untouched.
func (t *Tap) keepable(f *flow, h http.Header, length int64) bool {
	switch {
	case f.dropped.Load():
		return false
	case !gradableType(h.Get("Content-Type")):
		f.drop(NotGradedBinary)
		return false
	case length > int64(t.MaxBody):
		f.drop(NotGradedTooLarge)
		return false
	}
	return true
}

// gradableType reports whether a body of this Content-Type can be graded: JSON (and +json),
// event streams and other text in any letter case, or no type at all.
func gradableType(ct string) bool {
	if strings.TrimSpace(ct) == "" {
		return true
	}
	mt := wire.MediaType(ct)
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/x-ndjson" || mt == "application/jsonl"
}

type side int

const (
	sideRequest side = iota
	sideResponse
)

// flow joins the two halves of a capture: it delivers when both bodies have ended, exactly
// once, and carries the verdict "not gradable" from one half to the other.
type flow struct {
	mu      sync.Mutex
	c       *Capture
	pending int
	deliver func(*Capture)
	// dropped is set once the exchange is known not to be gradable; both halves then stop
	// keeping bytes.
	dropped atomic.Bool
}

// drop marks the exchange not gradable for reason (the first reason wins).
func (f *flow) drop(reason string) {
	f.mu.Lock()
	if f.c.NotGraded == "" {
		f.c.NotGraded = reason
	}
	f.mu.Unlock()
	f.dropped.Store(true)
}

func (f *flow) done(record func()) {
	f.mu.Lock()
	record()
	f.pending--
	ready := f.pending == 0
	f.mu.Unlock()
	if !ready {
		return
	}
	if f.c.NotGraded != "" {
		// Nothing will be graded: the response body is of no further use, and holding it in
		// the queue would only take room from exchanges that can be graded.
		f.c.budget.release(int64(cap(f.c.ResponseBody)))
		f.c.held -= int64(cap(f.c.ResponseBody))
		if f.c.pooledResponse {
			putBodyBuffer(f.c.ResponseBody)
		}
		f.c.ResponseBody, f.c.pooledResponse = nil, false
	}
	if f.deliver != nil {
		f.deliver(f.c)
	}
}

// tapBody wraps one body: it forwards every byte and, when keep is set, keeps a copy within
// max and the budget. length is the declared Content-Length (-1 unknown).
func (f *flow) tapBody(rc io.ReadCloser, length int64, keep bool, max int, s side) *bodyTap {
	b := &bodyTap{rc: rc, flow: f, side: s, declared: length, keep: keep, max: max}
	if keep && length > 0 {
		// The size is known: reserve it once, so the copy never grows by doubling. A body the
		// pool serves is lent a buffer of its size class, and the budget counts all of it.
		size := bodyBufferSize(length)
		if !f.c.budget.reserveBody(size) {
			b.abandon(NotGradedBudget)
		} else {
			b.held = size
			b.buf, b.pooled = getBodyBuffer(size), bodyClass(length) >= 0
		}
	}
	return b
}

// Bodies the tap keeps whole and whose length was declared, from minPooledBody to
// maxPooledBody, are copied into buffers lent by bodyBuffers and given back once their
// exchange is stored: a fresh buffer of that size is a large allocation, zeroed and, once the
// collector has returned its pages, faulted in again page by page on the copy. For a 256 KiB
// request that cost about 200 µs of CPU, half of what the whole request costs through a
// plain ReverseProxy (client and upstream included; BenchmarkProxiedToolsCall256KiB). Smaller
// bodies come from the allocator's size classes cheaply; larger ones are rare, and a pool of
// them would hold megabytes between collections.
const (
	minPooledBody = 32 << 10
	maxPooledBody = 1 << 20
)

// bodyClasses are the buffer sizes bodyBuffers lends: powers of two and the halfway points
// between them, so a buffer is at most half as large again as the body it holds.
var bodyClasses = func() []int64 {
	var out []int64
	for n := int64(minPooledBody); n <= maxPooledBody; n *= 2 {
		out = append(out, n)
		if h := n + n/2; h <= maxPooledBody {
			out = append(out, h)
		}
	}
	return out
}()

// bodyBuffers holds one pool per class of bodyClasses.
var bodyBuffers = make([]sync.Pool, len(bodyClasses))

// bodyClass is the index in bodyClasses of the smallest class that holds n bytes, or -1 when
// bodies of n bytes are not pooled.
func bodyClass(n int64) int {
	if n < minPooledBody || n > maxPooledBody {
		return -1
	}
	for i, c := range bodyClasses {
		if c >= n {
			return i
		}
	}
	return -1
}

// bodyBufferSize is the capacity the tap gives the copy of a body of n declared bytes: its
// class, or n itself when such bodies are not pooled.
func bodyBufferSize(n int64) int64 {
	if i := bodyClass(n); i >= 0 {
		return bodyClasses[i]
	}
	return n
}

// getBodyBuffer returns an empty buffer of capacity size, from the pool when size is a class.
func getBodyBuffer(size int64) []byte {
	if i := bodyClass(size); i >= 0 && bodyClasses[i] == size {
		if b, ok := bodyBuffers[i].Get().(*[]byte); ok {
			return (*b)[:0]
		}
	}
	return make([]byte, 0, size)
}

// putBodyBuffer gives a buffer getBodyBuffer lent back. Only a buffer nothing refers to any
// more may be given back: the next request's body is copied into it.
func putBodyBuffer(b []byte) {
	if i := bodyClass(int64(cap(b))); i >= 0 && bodyClasses[i] == int64(cap(b)) {
		b = b[:0]
		bodyBuffers[i].Put(&b)
	}
}

// bodyTap forwards reads unchanged and keeps a copy while it may; it ends once, on EOF, on a
// read error or on Close, whichever comes first.
type bodyTap struct {
	rc       io.ReadCloser
	flow     *flow
	side     side
	declared int64
	keep     bool
	max      int
	buf      []byte
	held     int64
	n        int64
	// pooled says buf came from bodyBuffers (see tapBody).
	pooled bool
	// eof is sticky: once the source said EOF, or gave all its declared bytes, it is never
	// read again. A read past the end can hit a server request body that net/http has
	// already closed, and the transport then drops the upstream connection mid-reply
	// (golang/go#40747).
	eof  bool
	once sync.Once
}

func (t *bodyTap) Read(p []byte) (int, error) {
	if t.eof || (t.declared > 0 && t.n >= t.declared) {
		t.eof = true
		t.end(nil)
		return 0, io.EOF
	}
	n, err := t.rc.Read(p)
	t.n += int64(n)
	if n > 0 && t.keep {
		t.append(p[:n])
	}
	switch {
	case errors.Is(err, io.EOF):
		t.eof = true
		t.end(nil)
	case err != nil:
		t.end(err)
	}
	return n, err
}

// append keeps b, growing the copy within max and the budget; past either it gives up the
// copy and marks the exchange not gradable.
func (t *bodyTap) append(b []byte) {
	if t.flow.dropped.Load() {
		t.abandon("")
		return
	}
	need := len(t.buf) + len(b)
	if need > t.max {
		t.abandon(NotGradedTooLarge)
		return
	}
	if need > cap(t.buf) {
		grow := min(max(2*cap(t.buf), need, 4096), t.max)
		if !t.flow.c.budget.reserveBody(int64(grow - cap(t.buf))) {
			t.abandon(NotGradedBudget)
			return
		}
		t.held += int64(grow - cap(t.buf))
		nb := make([]byte, len(t.buf), grow)
		copy(nb, t.buf)
		if t.pooled {
			putBodyBuffer(t.buf)
		}
		t.buf, t.pooled = nb, false
	}
	t.buf = append(t.buf, b...)
}

// abandon stops keeping this body and gives its memory back; a reason marks the exchange.
func (t *bodyTap) abandon(reason string) {
	t.keep = false
	t.flow.c.budget.release(t.held)
	if t.pooled {
		putBodyBuffer(t.buf)
	}
	t.held, t.buf, t.pooled = 0, nil, false
	if reason != "" {
		t.flow.drop(reason)
	}
}

// Close ends the capture; a body closed before EOF was cut short by the reader (the client
// went away, or the upstream answered before reading all of the request).
func (t *bodyTap) Close() error {
	err := t.rc.Close()
	if !t.eof {
		t.end(errClosedEarly)
	}
	return err
}

var errClosedEarly = errors.New("body closed before it ended (client cancelled or went away)")

func (t *bodyTap) end(err error) {
	t.once.Do(func() {
		if err != nil && t.keep && t.side == sideRequest {
			// A request cut short is not what the client meant to send: never grade a
			// fragment. (One never sent at all, to an upstream that could not be reached, is
			// simply empty.) A response cut short is graded for what arrived: the events of a
			// stream the client closed are complete events.
			reason := NotGradedPartial
			if t.n == 0 {
				reason = ""
			}
			t.abandon(reason)
		}
		c := t.flow.c
		t.flow.done(func() {
			if t.keep {
				c.held += t.held
			}
			switch t.side {
			case sideRequest:
				c.RequestBytes = t.n
				if t.keep {
					c.RequestBody, c.pooledRequest = t.buf, t.pooled
				}
			case sideResponse:
				c.ResponseBytes, c.End = t.n, time.Now()
				if t.keep {
					c.ResponseBody, c.pooledResponse = t.buf, t.pooled
				}
				if err != nil {
					c.Err = err
				}
			}
		})
	})
}
