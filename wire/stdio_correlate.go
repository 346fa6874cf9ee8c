package wire

import (
	"bytes"
	"encoding/json"
)

// Over stdio every message shares one channel: there is no request body paired with its response
// body as on HTTP. A StdioCorrelator rebuilds that pairing from the frames of one connection, in
// the order they were seen, so that the checks written for exchanges judge stdio traffic too: a
// request and everything the server sent for it — its response, the progress that names its
// token, the notifications of a subscriptions/listen that carry its subscription ID, and, while it
// is the only request in flight, any other notification (a log message).

// Defaults for the correlator's bounds.
const (
	// DefaultMaxInFlight caps the requests a correlator tracks at once; past it the oldest is
	// ended as evicted.
	DefaultMaxInFlight = 4096
	// DefaultMaxReplies caps the server frames kept for one request (a listen stream, a flood of
	// progress); later ones are counted in Truncated.
	DefaultMaxReplies = DefaultMaxSSEEvents
)

// How a StdioExchange ended.
const (
	// EndResponse: the server answered the request.
	EndResponse = "response"
	// EndNotification: the client sent a notification; nothing is due back.
	EndNotification = "notification"
	// EndCancelled: the client cancelled the request (notifications/cancelled).
	EndCancelled = "cancelled"
	// EndTornDown: the server ended a subscriptions/listen with notifications/cancelled.
	EndTornDown = "torn-down"
	// EndClosed: the connection ended first (the server exited, or the reader stopped).
	EndClosed = "closed"
	// EndEvicted: too many requests were in flight, and this was the oldest.
	EndEvicted = "evicted"
	// EndAbandoned: the client stopped waiting (its deadline passed) before a response.
	EndAbandoned = "abandoned"
	// EndUntil: the client stopped reading once the message it awaited had arrived.
	EndUntil = "until"
)

// StdioExchange is one client message and the server frames that belong to it.
type StdioExchange struct {
	// Request is the client's frame (a request or a notification).
	Request Frame
	// Replies are the server's frames attributed to it, in order; the response, when it came,
	// is the last.
	Replies []Frame
	// End says how the exchange ended (EndResponse, EndCancelled, ...).
	End string
	// Truncated counts replies past the cap that were not kept.
	Truncated int
}

// Response returns the frame that answered the request, or nil.
func (x *StdioExchange) Response() *Frame {
	if x.End != EndResponse || len(x.Replies) == 0 {
		return nil
	}
	return &x.Replies[len(x.Replies)-1]
}

// StdioCorrelator pairs frames into exchanges. It is not safe for concurrent use: feed it from
// one goroutine, in Seq order.
type StdioCorrelator struct {
	maxInFlight, maxReplies int
	maxBytes, bytes         int64                     // line bytes held by open exchanges, and its cap (0: none)
	pending                 map[string]*StdioExchange // by compact id
	order                   []string                  // ids in the order they were sent
	listens                 map[string]bool           // ids of subscriptions/listen requests
	tokens                  map[string]string         // progress token (compact) -> id
	retired                 map[string]bool           // tokens of requests the client gave up on
	retiredOrder            []string                  // retired tokens, oldest first, for the cap
}

// maxRetiredTokens bounds the progress tokens a correlator remembers of requests the client
// abandoned or cancelled: enough for every such request of a scan, a fixed cost for a proxy.
const maxRetiredTokens = 1024

// NewStdioCorrelator returns a correlator with the given bounds (0 → the defaults).
func NewStdioCorrelator(maxInFlight, maxReplies int) *StdioCorrelator {
	if maxInFlight <= 0 {
		maxInFlight = DefaultMaxInFlight
	}
	if maxReplies <= 0 {
		maxReplies = DefaultMaxReplies
	}
	return &StdioCorrelator{
		maxInFlight: maxInFlight, maxReplies: maxReplies, pending: map[string]*StdioExchange{},
		listens: map[string]bool{}, tokens: map[string]string{}, retired: map[string]bool{},
	}
}

// SetMaxBytes caps the line bytes the open exchanges hold together (0: no cap beyond the counts).
// A reply that would pass it is counted in Truncated instead of kept, so a server flooding large
// lines into requests that never complete costs the cap, not the flood.
func (c *StdioCorrelator) SetMaxBytes(n int64) { c.maxBytes = n }

// HeldBytes is how many line bytes the open exchanges hold.
func (c *StdioCorrelator) HeldBytes() int64 { return c.bytes }

// Add takes the next frame and returns the exchanges it completed, and the frame itself when it
// belongs to no exchange (a server line that is not a message, an unsolicited response, a
// notification with nothing in flight, a client response).
func (c *StdioCorrelator) Add(f Frame) (done []*StdioExchange, stray *Frame) {
	m := f.Message
	if f.Dir == ToServer {
		switch {
		case m == nil || m.IsResponse():
			return nil, &f
		case m.IsNotification():
			done = append(done, &StdioExchange{Request: f, End: EndNotification})
			if m.Method == "notifications/cancelled" {
				if x := c.take(compactID(m.ParamField("requestId"))); x != nil {
					x.End = EndCancelled
					c.retire(x)
					done = append(done, x)
				}
			}
			return done, nil
		default:
			return c.open(f), nil
		}
	}
	if m == nil {
		return nil, &f
	}
	if m.IsResponse() {
		x := c.take(compactID(m.ID))
		if x == nil {
			return nil, &f
		}
		// The response ends the exchange: it is always kept (the exchange is no longer held).
		x.Replies = append(x.Replies, f)
		x.End = EndResponse
		return []*StdioExchange{x}, nil
	}
	id, ok := c.owner(m)
	if !ok {
		return nil, &f
	}
	x := c.pending[id]
	c.reply(x, f)
	if m.Method == "notifications/cancelled" && c.listens[id] {
		c.take(id)
		x.End = EndTornDown
		return []*StdioExchange{x}, nil
	}
	return nil, nil
}

// Close ends every exchange still open, as closed, in the order their requests were sent.
func (c *StdioCorrelator) Close() []*StdioExchange {
	var out []*StdioExchange
	for _, id := range append([]string(nil), c.order...) {
		if x := c.take(id); x != nil {
			x.End = EndClosed
			out = append(out, x)
		}
	}
	return out
}

// Abandon ends the open exchange of request id as abandoned (the caller's deadline passed) and
// returns it; nil when none is open. Frames the server sends for it later are strays.
func (c *StdioCorrelator) Abandon(id json.RawMessage) *StdioExchange {
	x := c.take(compactID(id))
	if x != nil {
		x.End = EndAbandoned
		c.retire(x)
	}
	return x
}

// retire remembers the progress token of a request the client stopped waiting for (abandoned
// or cancelled). The server may still be working on it — it learns of a cancellation only when
// it reads it, and of an abandonment never — so progress naming that token is the request's own,
// late: a stray, not a foreign token on whichever request happens to be in flight. Without this,
// a scan that gave up on a slow tool charged the next request with progress-token-scope.
func (c *StdioCorrelator) retire(x *StdioExchange) {
	tok := progressToken(x.Request.Message)
	if tok == "" || c.retired[tok] {
		return
	}
	if len(c.retiredOrder) >= maxRetiredTokens {
		delete(c.retired, c.retiredOrder[0])
		c.retiredOrder = c.retiredOrder[1:]
	}
	c.retired[tok] = true
	c.retiredOrder = append(c.retiredOrder, tok)
}

// Peek returns the open exchange of request id without ending it; nil when none is open. The
// caller must not keep it past its next call to Add.
func (c *StdioCorrelator) Peek(id json.RawMessage) *StdioExchange { return c.pending[compactID(id)] }

// InFlight is how many requests await their response.
func (c *StdioCorrelator) InFlight() int { return len(c.pending) }

// open starts an exchange for a request, evicting the oldest when too many are in flight. A
// request that reuses the id of one still in flight ends the earlier one as evicted: the ids
// collide, so no later frame can be attributed to it.
func (c *StdioCorrelator) open(f Frame) []*StdioExchange {
	var done []*StdioExchange
	id := compactID(f.Message.ID)
	if x := c.take(id); x != nil {
		x.End = EndEvicted
		done = append(done, x)
	}
	if len(c.pending) >= c.maxInFlight && len(c.order) > 0 {
		if x := c.take(c.order[0]); x != nil {
			x.End = EndEvicted
			done = append(done, x)
		}
	}
	c.pending[id] = &StdioExchange{Request: f}
	c.bytes += int64(len(f.Line.Bytes))
	c.order = append(c.order, id)
	if f.Message.Method == "subscriptions/listen" {
		c.listens[id] = true
	}
	if tok := progressToken(f.Message); tok != "" {
		c.tokens[tok] = id
	}
	return done
}

// take removes and returns the exchange of id, nil when none is open.
func (c *StdioCorrelator) take(id string) *StdioExchange {
	x, ok := c.pending[id]
	if !ok {
		return nil
	}
	delete(c.pending, id)
	delete(c.listens, id)
	c.bytes -= int64(len(x.Request.Line.Bytes))
	for _, r := range x.Replies {
		c.bytes -= int64(len(r.Line.Bytes))
	}
	for tok, owner := range c.tokens {
		if owner == id {
			delete(c.tokens, tok)
		}
	}
	for i, o := range c.order {
		if o == id {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	return x
}

// owner finds the open request a server notification (or request) belongs to: the listen its
// subscription ID names, the request whose progress token it carries, the listen a server
// cancellation names; progress naming the token of a request the client gave up on belongs to no
// open request (see retire); failing those, the only ordinary request in flight — a notification with
// a token or an id that names nothing (a foreign progress token, a cancellation of the server's
// own request) is then judged where an HTTP client would see it, on that request's stream.
func (c *StdioCorrelator) owner(m *Message) (string, bool) {
	if sub, ok := m.Meta()[MetaSubscriptionID]; ok {
		if id := compactID(sub); c.listens[id] {
			return id, true
		}
	}
	if tok := compactID(m.ParamField("progressToken")); tok != "" {
		if id, ok := c.tokens[tok]; ok {
			return id, true
		}
		if c.retired[tok] {
			return "", false
		}
	}
	if m.Method == "notifications/cancelled" {
		if id := compactID(m.ParamField("requestId")); c.listens[id] {
			return id, true
		}
	}
	only, n := "", 0
	for id := range c.pending {
		if !c.listens[id] {
			only, n = id, n+1
		}
	}
	return only, n == 1
}

// reply appends a server frame to x within the cap.
func (c *StdioCorrelator) reply(x *StdioExchange, f Frame) {
	n := int64(len(f.Line.Bytes))
	if len(x.Replies) >= c.maxReplies || (c.maxBytes > 0 && c.bytes+n > c.maxBytes) {
		x.Truncated++
		return
	}
	x.Replies = append(x.Replies, f)
	c.bytes += n
}

// progressToken is a request's params._meta.progressToken, compact; empty when absent.
func progressToken(m *Message) string {
	meta := decodeMetaOf(m.Params)
	return compactID(meta["progressToken"])
}

// decodeMetaOf returns the members of params._meta, nil when absent.
func decodeMetaOf(params json.RawMessage) map[string]json.RawMessage {
	obj, err := decodeObject(params)
	if err != nil {
		return nil
	}
	meta, err := decodeObject(obj["_meta"])
	if err != nil {
		return nil
	}
	return meta
}

// compactID is a JSON id or token with insignificant whitespace removed ("" when absent), so that
// equal values compare equal; 1 and "1" stay distinct.
func compactID(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(bytes.TrimSpace(raw))
	}
	return buf.String()
}
