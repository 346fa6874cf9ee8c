package passive

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// The stdio binding's checks judge single lines, not exchanges: what the framing and the decoder
// (wire.DecodeFrame) found on the server's stdout, and the order of messages on the one shared
// channel. They run on every frame of a connection, both directions, in Seq order; the frames'
// messages are also paired into exchanges (wire.StdioCorrelator) for the protocol-level checks.

// stdioRules are the rules RunStdio can produce outcomes for, by name.
var stdioRules = []string{
	"stdio-newline-delimited", "stdio-stdout-messages-only", "stdio-no-server-requests",
	"stdio-nothing-after-cancel", "utf8-messages", "result-id-echo",
}

// StdioRuleIDs returns the IDs of the rules RunStdio can produce outcomes for.
func StdioRuleIDs() []string {
	out := make([]string, len(stdioRules))
	for i, n := range stdioRules {
		out[i] = rules.IDOf(n)
	}
	return out
}

// Bounds of a StdioHistory, so a hostile connection cannot grow it without limit.
const (
	// maxStdioFailsPerRule caps the failures reported per rule and connection: the first ones
	// show the behaviour, the rest are counted in one closing sentence by the caller's report.
	maxStdioFailsPerRule = 10
	// maxStdioTracked caps the request ids remembered (sent, in flight, cancelled).
	maxStdioTracked = 10000
)

// StdioHistory is what the stdio checks remember across the frames of one connection. It is not
// safe for concurrent use.
type StdioHistory struct {
	passed   map[string]bool
	fails    map[string]int
	sent     map[string]int64  // ids of every client request seen -> the Seq it was sent at
	tokens   map[string]string // in-flight request id -> its progress token
	answered map[string]bool   // ids already answered
	// cancelled are requests the client cancelled, by id, with the Seq of the cancellation, and
	// proof: the Seq of the first server response to a request sent after it (0 until then);
	// proof2: of the first response to a request sent after proof (see afterCancel).
	cancelled map[string]*cancellation
}

type cancellation struct {
	at, proof, proof2 int64
	token             string
	judged            bool
}

// NewStdioHistory returns an empty history for one connection.
func NewStdioHistory() *StdioHistory {
	return &StdioHistory{
		passed: map[string]bool{}, fails: map[string]int{}, sent: map[string]int64{},
		tokens: map[string]string{}, answered: map[string]bool{}, cancelled: map[string]*cancellation{},
	}
}

// RunStdio applies the stdio binding's checks to one frame and returns their outcomes, each
// naming the frame ("line-N", N its Seq: lines of both directions numbered together) as its
// evidence. A rule passes once per connection, on the first
// frame that shows it met; it fails on each violation, up to a cap.
func RunStdio(f wire.Frame, h *StdioHistory) []rules.Outcome {
	if h == nil {
		h = NewStdioHistory()
	}
	var out []rules.Outcome
	emit := func(o rules.Outcome) {
		o.Exchange = fmt.Sprintf("line-%d", f.Seq)
		out = append(out, o)
	}
	s := &stdioCheck{f: f, h: h, emit: emit}
	if f.Dir == wire.ToServer {
		s.client()
	} else {
		s.server()
	}
	return out
}

// stdioCheck is one frame being judged.
type stdioCheck struct {
	f    wire.Frame
	h    *StdioHistory
	emit func(rules.Outcome)
}

func (s *stdioCheck) pass(name, observed string) {
	if s.h.passed[name] {
		return
	}
	s.h.passed[name] = true
	s.emit(rules.Passed(rules.IDOf(name), observed))
}

func (s *stdioCheck) fail(name, format string, args ...any) {
	if s.h.fails[name] >= maxStdioFailsPerRule {
		return
	}
	s.h.fails[name]++
	s.emit(rules.Failed(rules.IDOf(name), fmt.Sprintf("line %d of the conversation (server→client): ", s.f.Seq)+fmt.Sprintf(format, args...)))
}

// client records what the client sent: requests (for id checks), and cancellations.
func (s *stdioCheck) client() {
	m := s.f.Message
	if m == nil {
		return
	}
	switch {
	case m.IsRequest():
		id := compactJSON(m.ID)
		if len(s.h.sent) < maxStdioTracked {
			s.h.sent[id] = s.f.Seq
			if tok := compactJSON(m.Meta()["progressToken"]); tok != "" {
				s.h.tokens[id] = tok
			}
		}
	case m.IsNotification() && m.Method == "notifications/cancelled":
		id := compactJSON(m.ParamField("requestId"))
		if _, sent := s.h.sent[id]; id == "" || !sent || s.h.answered[id] || len(s.h.cancelled) >= maxStdioTracked {
			return // not a cancellation of a request in flight: nothing to hold the server to
		}
		if _, dup := s.h.cancelled[id]; !dup {
			s.h.cancelled[id] = &cancellation{at: s.f.Seq, token: s.h.tokens[id]}
		}
	}
}

// server judges one line of the server's stdout.
func (s *stdioCheck) server() {
	switch s.f.Problem {
	case wire.ProblemNone:
	case wire.ProblemSplit:
		s.fail("stdio-newline-delimited", "%s", s.f.Detail)
		return
	case wire.ProblemNotUTF8:
		s.fail("utf8-messages", "%s", s.f.Detail)
		return
	case wire.ProblemTooLong:
		if s.h.fails["too-long"] >= maxStdioFailsPerRule {
			return
		}
		s.h.fails["too-long"]++
		o := rules.Undecided(rules.IDOf("stdio-stdout-messages-only"),
			fmt.Sprintf("line %d of the conversation (server→client) was %d bytes, over the limit on one message, and was not decoded: raise the limit to judge it", s.f.Seq, s.f.Line.Size))
		s.emit(o)
		return
	default:
		s.fail("stdio-stdout-messages-only", "%s", s.f.Detail)
		return
	}
	m := s.f.Message
	s.pass("stdio-newline-delimited", "the server's messages arrived one per line")
	s.pass("stdio-stdout-messages-only", "every line the server wrote to stdout was one JSON-RPC message")
	if m.IsRequest() {
		s.fail("stdio-no-server-requests", "the server sent a %s request (id %s) to the client", stdioQuote(m.Method), stdioQuote(m.IDString()))
	} else {
		s.pass("stdio-no-server-requests", "the server sent responses and notifications only")
	}
	s.afterCancel(m)
	if m.IsResponse() {
		id := compactJSON(m.ID)
		if _, sent := s.h.sent[id]; m.Error == nil && id != "" && !sent && len(s.h.sent) < maxStdioTracked {
			s.fail("result-id-echo", "a result for id %s, which no request of the client carried", stdioQuote(m.IDString()))
		}
		if len(s.h.answered) < maxStdioTracked {
			s.h.answered[id] = true
		}
	}
}

// afterCancel judges stdio-nothing-after-cancel. A message for a cancelled request is a failure
// only once it cannot have been on its way when the server read the cancellation. The server's
// answer to a later request proves it had read the cancellation (proof); but a server that
// handles requests concurrently may have finished the cancelled one just before, and its
// writers may put that response on stdout after the later answer: the Go SDK's
// everything-server did so in one scan of two, a MUST NOT failure by chance. So the check waits
// for a second proof: the answer to a request the client sent only after it had the first. A
// response still queued when the cancellation was read does not outlast a whole further round
// trip; a message for the cancelled request after that point is a failure, and none by then is
// a pass.
func (s *stdioCheck) afterCancel(m *wire.Message) {
	for id, c := range s.h.cancelled {
		if c.judged {
			continue
		}
		forIt := (m.IsResponse() && compactJSON(m.ID) == id) ||
			(c.token != "" && m.Method == "notifications/progress" && compactJSON(m.ParamField("progressToken")) == c.token)
		if forIt && c.proof2 > 0 {
			c.judged = true
			what := "its response"
			if !m.IsResponse() {
				what = "a progress notification for it"
			}
			s.fail("stdio-nothing-after-cancel", "the client cancelled request %s at line %d, the server answered later requests at lines %d and %d (the second sent after the first was answered, so the cancellation had been read well before), and then sent %s", stdioQuote(id), c.at, c.proof, c.proof2, what)
			continue
		}
		if !m.IsResponse() || compactJSON(m.ID) == id {
			continue
		}
		switch later := compactJSON(m.ID); {
		case c.proof == 0 && s.sentAfter(later, c.at):
			c.proof = s.f.Seq
		case c.proof > 0 && c.proof2 == 0 && s.sentAfter(later, c.proof):
			c.proof2 = s.f.Seq
			s.pass("stdio-nothing-after-cancel", fmt.Sprintf("after the client cancelled request %s, the server answered two later requests in turn and sent nothing more for the cancelled one", stdioQuote(id)))
		}
	}
}

// sentAfter reports whether request id was sent after Seq at and is not itself cancelled.
func (s *stdioCheck) sentAfter(id string, at int64) bool {
	seq, sent := s.h.sent[id]
	_, cancelledToo := s.h.cancelled[id]
	return sent && !cancelledToo && seq > at
}

// short quotes a server-supplied value for a finding, cut so a hostile peer cannot flood a report.
func stdioQuote(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// compactJSON is a JSON value without insignificant whitespace, "" when absent.
func compactJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
