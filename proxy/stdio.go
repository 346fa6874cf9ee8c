package proxy

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// StdioFrontEnd feeds the grading pipeline from a stdio connection it watches in passing (`sentinel
// shim`): it receives every line both ways, in order, already framed and decoded by wire, runs the
// stdio binding's checks on each line, pairs the lines into exchanges (wire.StdioCorrelator) and
// submits each exchange as a Capture, to be graded, stored and streamed like the HTTP proxy's. A
// line that belongs to no exchange (garbage on stdout, an unsolicited message) is recorded too.
// The lines of exchanges still open are capped at DefaultStdioHeld bytes in all (replies past it
// are counted, not kept), and a submitted exchange's bodies are reserved in the pipeline's Budget
// as the HTTP tap's are: past it, the exchange is recorded as not graded. Observe must be called
// from one goroutine.
type StdioFrontEnd struct {
	pipe    *Pipeline
	target  string
	prefix  string
	maxBody int

	mu      sync.Mutex
	seq     int
	history *passive.StdioHistory
	corr    *wire.StdioCorrelator
}

// DefaultStdioHeld caps the line bytes a StdioFrontEnd holds for exchanges not yet answered.
const DefaultStdioHeld = 32 << 20

// NewStdioFrontEnd returns a front end that submits to pipe, naming target ("stdio: node
// server.js") on every record.
func NewStdioFrontEnd(pipe *Pipeline, target string) *StdioFrontEnd {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	corr := wire.NewStdioCorrelator(0, 0)
	corr.SetMaxBytes(DefaultStdioHeld)
	return &StdioFrontEnd{
		pipe: pipe, target: target, prefix: "stdio-" + hex.EncodeToString(b), maxBody: pipe.maxBody,
		history: passive.NewStdioHistory(), corr: corr,
	}
}

// Observe takes the next line of the connection.
func (s *StdioFrontEnd) Observe(f wire.Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var lineFails []rules.Outcome
	for _, o := range passive.RunStdio(f, s.history) {
		if o.Status == rules.Fail {
			lineFails = append(lineFails, o)
		}
	}
	done, stray := s.corr.Add(f)
	for _, x := range done {
		s.submitExchange(x, lineFails)
		lineFails = nil
	}
	if stray != nil || len(lineFails) > 0 {
		s.submitLine(f, lineFails)
	}
}

// Close records every exchange still open (the connection ended before their answers).
func (s *StdioFrontEnd) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.corr.Close() {
		s.submitExchange(x, nil)
	}
}

// submitExchange records one exchange, with the line verdicts reached on its last frame.
func (s *StdioFrontEnd) submitExchange(x *wire.StdioExchange, lineFails []rules.Outcome) {
	c := s.capture()
	c.Start = x.Request.At
	c.End = x.Request.At
	if n := len(x.Replies); n > 0 {
		c.End = x.Replies[n-1].At
	}
	c.RequestBody = append([]byte(nil), x.Request.Line.Bytes...)
	c.RequestBytes = x.Request.Line.Size
	lines := make([][]byte, 0, len(x.Replies))
	for _, r := range x.Replies {
		lines = append(lines, r.Line.Bytes)
		c.ResponseBytes += r.Line.Size + 1
	}
	if len(x.Replies) > 0 || x.End == wire.EndResponse || x.End == wire.EndNotification {
		c.ResponseBody = bytes.Join(lines, []byte("\n"))
		if c.ResponseBody == nil {
			c.ResponseBody = []byte{}
		}
	}
	if ex := x.Exchange("", s.target); ex.Err != "" {
		c.Err = fmt.Errorf("%s", ex.Err)
	}
	c.Outcomes = lineFails
	s.keep(c, x.Request.Line.TooLong || x.Truncated > 0)
	s.pipe.Submit(c)
}

// submitLine records one server line that belongs to no exchange, or that carried a line verdict.
func (s *StdioFrontEnd) submitLine(f wire.Frame, lineFails []rules.Outcome) {
	c := s.capture()
	c.Start, c.End = f.At, f.At
	if f.Dir == wire.ToClient {
		c.ResponseBody = append([]byte(nil), f.Line.Bytes...)
		c.ResponseBytes = f.Line.Size
	} else {
		c.RequestBody = append([]byte(nil), f.Line.Bytes...)
		c.RequestBytes = f.Line.Size
	}
	c.Outcomes = lineFails
	s.keep(c, f.Line.TooLong)
	s.pipe.Submit(c)
}

// keep decides whether c's bodies can be graded: not when a line was cut or a reply dropped (the
// exchange is no longer what crossed), not when larger than the pipeline grades, not when the
// budget has no room for them; the bodies are dropped then, and the record says why.
func (s *StdioFrontEnd) keep(c *Capture, cut bool) {
	n := int64(len(c.RequestBody) + len(c.ResponseBody))
	switch {
	case cut || len(c.RequestBody) > s.maxBody || len(c.ResponseBody) > s.maxBody:
		c.NotGraded = NotGradedTooLarge
	case !s.pipe.budget.reserveBody(n):
		c.NotGraded = NotGradedBudget
	default:
		c.held = n
		return
	}
	if len(c.RequestBody) > s.maxBody {
		c.RequestBody = nil
	}
	c.ResponseBody = nil
}

func (s *StdioFrontEnd) capture() *Capture {
	s.seq++
	return &Capture{ID: fmt.Sprintf("%s-%06d", s.prefix, s.seq), Target: s.target, Transport: wire.TransportStdio, budget: s.pipe.budget}
}
