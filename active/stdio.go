package active

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/stdio"
	"github.com/mcp-sentinel/sentinel/wire"
)

// The stdio target. A scan of a stdio server launches it (Options.Command), speaks the stdio
// binding to it, and runs every probe whose rules bind a server over stdio; the rules of the HTTP
// binding are n/a. The server lives in one process for the scan; when a probe makes it exit, the
// next request starts a fresh one (at most maxRestarts times) and the scan says so. Every line
// either way is framed and decoded by wire and graded by the stdio checks at the end, connection
// by connection; every request and what the server sent for it is an exchange for the ordinary
// checks.

// Bounds of a stdio scan.
const (
	// maxRestarts bounds how often a scan starts the server again after it exited.
	maxRestarts = 5
	// strayReplyWait bounds the wait for the answer to a line that is not a request with an id
	// (invalid JSON, a batch): the answer, if any, is a response with a null id.
	strayReplyWait = 3 * time.Second
	// exitWait is how long the scan waits for the server to exit once its stdin is closed
	// (stdio-exit-on-stdin-close) before it stops it with SIGTERM: "promptly", generously.
	exitWait = 5 * time.Second
	// stderrShown bounds the stderr quoted in a note.
	stderrShown = 2000
	// settleWait bounds the wait for a server whose stdout ended or whose stdin broke to be
	// reaped, so that how it ended is known before it is said: the kernel closes a dying
	// process's pipes a moment before the process can be reaped.
	settleWait = stdio.DefaultGrace
)

// stdioLink is the scan's connection to a stdio server: the current process and its Conn, and
// what earlier processes left (their frames, for the stdio checks, and how they ended).
type stdioLink struct {
	opts   stdio.Options
	limits wire.Limits
	life   context.Context // the scan's caller: cancelling it (Ctrl-C) stops the server
	label  string

	mu       sync.Mutex
	proc     *stdio.Process
	conn     *stdio.Conn
	restarts int
	past     []pastProcess
	// onRestart runs after a restart, before the request that needed it (the legacy session
	// re-opens its handshake there).
	onRestart func(ctx context.Context)
	notes     []string
	// gone is set once a request found the current process gone: its stdout ended or its stdin
	// broke (a write got EPIPE, which can come before the reader sees the end of stdout).
	gone bool
}

// pastProcess is what a process that exited during the scan left.
type pastProcess struct {
	frames []wire.Frame
	exit   stdio.Exit
	stderr string
}

// startStdio launches the server. The error means it could not be started (a missing program).
func startStdio(life context.Context, opts stdio.Options, limits wire.Limits) (*stdioLink, error) {
	l := &stdioLink{opts: opts, limits: limits.WithDefaults(), life: life, label: "stdio: " + opts.Command()}
	if err := l.spawn(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *stdioLink) spawn() error {
	p, err := stdio.Start(l.life, l.opts)
	if err != nil {
		return err
	}
	l.proc = p
	l.conn = stdio.Dial(p, stdio.ConnOptions{MaxLineBytes: l.limits.MaxBodyBytes})
	l.gone = false
	return nil
}

// ended stops the current process, whose stdout has ended, and returns how it ended: a process
// exiting on its own is first let be reaped (within settleWait), so its exit is not credited to
// the stdin Stop closes; one that closed its stdout and keeps running is stopped. l.mu is held.
func (l *stdioLink) ended(ctx context.Context) stdio.Exit {
	sctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	l.proc.Settle(sctx)
	return l.proc.Stop()
}

// current returns the live process and connection, restarting the server when it has exited.
func (l *stdioLink) current(ctx context.Context, label string) (*stdio.Conn, error) {
	l.mu.Lock()
	exited := false
	select {
	case <-l.conn.Closed():
		exited = true
	default:
	}
	if !exited {
		c := l.conn
		l.mu.Unlock()
		return c, nil
	}
	if l.restarts >= maxRestarts {
		l.mu.Unlock()
		return nil, fmt.Errorf("the stdio server exited %d times during the scan; it was not started again", l.restarts+1)
	}
	if !servedAny(l.conn.Frames(0, 0)) {
		// A server that never wrote a message would die the same way again: say how it
		// ended instead of starting it over.
		exit := l.ended(ctx)
		l.mu.Unlock()
		return nil, fmt.Errorf("the server %s before it wrote any message", exit)
	}
	exit := l.ended(ctx)
	l.past = append(l.past, pastProcess{frames: l.conn.Frames(0, 0), exit: exit, stderr: l.proc.Stderr()})
	l.restarts++
	l.notes = append(l.notes, fmt.Sprintf("The server %s before %s; a fresh server was started for the rest of the scan (restart %d of at most %d).%s",
		exit, label, l.restarts, maxRestarts, stderrNote(l.proc.Stderr())))
	if err := l.spawn(); err != nil {
		l.mu.Unlock()
		return nil, fmt.Errorf("starting the stdio server again: %w", err)
	}
	c, hook := l.conn, l.onRestart
	l.mu.Unlock()
	if hook != nil {
		hook(ctx)
	}
	return c, nil
}

// servedAny reports whether the server wrote at least one MCP message on this connection.
func servedAny(frames []wire.Frame) bool {
	for _, f := range frames {
		if f.Dir == wire.ToClient && f.Message != nil {
			return true
		}
	}
	return false
}

// roundTrip sends one request spec as one stdio line and returns the exchange: the request and
// what the server sent for it. HTTP-only parts of the spec (method, URL, headers) have no stdio
// form and are ignored; probes of HTTP rules are not run over stdio.
func (l *stdioLink) roundTrip(ctx context.Context, spec wire.RequestSpec) *wire.Exchange {
	fail := func(format string, args ...any) *wire.Exchange {
		ex := &wire.Exchange{Target: l.label, Transport: wire.TransportStdio, Started: time.Now(),
			Request: wire.Request{Body: spec.Body}, Err: fmt.Sprintf(format, args...)}
		ex.Parse(wire.Limits{})
		return ex
	}
	body := bytes.TrimSpace(spec.Body)
	if len(body) == 0 {
		return fail("an HTTP %s without a body has no stdio form", spec.Method)
	}
	if bytes.ContainsAny(body, "\r\n") {
		var buf bytes.Buffer
		if json.Compact(&buf, body) != nil {
			return fail("the request holds a newline and is not JSON that can be compacted onto one line")
		}
		body = buf.Bytes()
	}
	conn, err := l.current(ctx, describeSpec(spec))
	if err != nil {
		return fail("%v", err)
	}
	rctx, cancel := context.WithTimeout(ctx, l.limits.ReadTimeout)
	defer cancel()
	m, derr := wire.DecodeMessage(body)
	switch {
	case derr == nil && m.IsRequest():
		var until func(*wire.Message) bool
		if spec.Until != nil {
			until = spec.Until
		}
		x, err := conn.CallUntil(rctx, body, until)
		if x == nil {
			return fail("%v", err)
		}
		return l.exchange(x, err)
	case derr == nil && m.IsNotification():
		f, err := conn.Notify(rctx, body)
		x := &wire.StdioExchange{Request: f, End: wire.EndNotification}
		return l.exchange(x, err)
	default:
		// Not a request the server can answer by id (invalid JSON, a batch, a response): its
		// answer, if it sends one, is a response with a null id, or an array.
		f, err := conn.Send(rctx, body)
		if err != nil {
			return l.exchange(&wire.StdioExchange{Request: f, End: wire.EndAbandoned}, err)
		}
		wctx, stop := context.WithTimeout(rctx, strayReplyWait)
		defer stop()
		r, werr := conn.WaitFor(wctx, f.Seq, func(g wire.Frame) bool {
			return g.Dir == wire.ToClient && (g.Problem == wire.ProblemBatch ||
				(g.Message != nil && g.Message.IsResponse() && (g.Message.ID == nil || string(g.Message.ID) == "null")))
		})
		x := &wire.StdioExchange{Request: f, End: wire.EndAbandoned}
		if werr == nil {
			x.Replies, x.End = []wire.Frame{r}, wire.EndResponse
		}
		ex := l.exchange(x, nil)
		if werr != nil {
			ex.Err = "no answer to the line before the deadline"
			if errors.Is(werr, stdio.ErrClosed) {
				ex.Err = "the server closed its stdout without answering the line"
			}
		}
		return ex
	}
}

// exchange converts a stdio exchange, with the transport error (if any) said in Err.
func (l *stdioLink) exchange(x *wire.StdioExchange, err error) *wire.Exchange {
	ex := x.Exchange("", l.label)
	if errors.Is(err, stdio.ErrClosed) {
		l.mu.Lock()
		l.gone = true
		l.mu.Unlock()
	}
	switch {
	case errors.Is(err, stdio.ErrNotReading):
		ex.Err = "the server did not read its stdin: " + err.Error()
	case errors.Is(err, stdio.ErrClosed):
		ex.Err = "the server closed its stdout before answering (it exited, or closed the stream)"
	case errors.Is(err, stdio.ErrNoReply):
		ex.Err = "no answer before the deadline"
	case err != nil && ex.Err == "":
		ex.Err = err.Error()
	}
	return ex
}

// describeSpec names a request in a note: its method, or its label.
func describeSpec(spec wire.RequestSpec) string {
	if m, err := wire.DecodeMessage(bytes.TrimSpace(spec.Body)); err == nil && m.Method != "" {
		return "a " + m.Method + " request"
	}
	if spec.Label != "" {
		return "the request " + spec.Label
	}
	return "a request"
}

// aside sends spec to a throwaway process of the same server and stops it: the legacy initialize
// a modern server must not see on the scan's own process, where it would select legacy semantics
// for the rest of the scan.
func (l *stdioLink) aside(ctx context.Context, spec wire.RequestSpec) *wire.Exchange {
	side := &stdioLink{opts: l.opts, limits: l.limits, life: l.life, label: l.label}
	if err := side.spawn(); err != nil {
		ex := &wire.Exchange{Target: l.label, Transport: wire.TransportStdio, Request: wire.Request{Body: spec.Body}, Err: err.Error()}
		ex.Parse(wire.Limits{})
		return ex
	}
	defer side.proc.Stop()
	side.restarts = maxRestarts // a throwaway process is never restarted
	return side.roundTrip(ctx, spec)
}

// finish stops the server and runs the stdio checks over every line of every process the scan
// started, each connection with its own history.
func (l *stdioLink) finish() []rules.Outcome {
	l.mu.Lock()
	defer l.mu.Unlock()
	exit := l.proc.Stop()
	l.past = append(l.past, pastProcess{frames: l.conn.Frames(0, 0), exit: exit, stderr: l.proc.Stderr()})
	var out []rules.Outcome
	for _, p := range l.past {
		h := passive.NewStdioHistory()
		for _, f := range p.frames {
			out = append(out, passive.RunStdio(f, h)...)
		}
	}
	return out
}

// exitOnStdinClose starts a throwaway process of the server, makes sure it serves (one
// server/discover), closes its stdin and waits up to exitWait for it to exit.
func (l *stdioLink) exitOnStdinClose(ctx context.Context, discover wire.RequestSpec) rules.Outcome {
	id := rules.IDOf("stdio-exit-on-stdin-close")
	side := &stdioLink{opts: l.opts, limits: l.limits, life: l.life, label: l.label, restarts: maxRestarts}
	if err := side.spawn(); err != nil {
		return rules.Undecided(id, "a second server for this check could not be started: "+err.Error())
	}
	defer side.proc.Stop()
	ex := side.roundTrip(ctx, discover)
	if _, gone := side.proc.Exited(); gone {
		return rules.Undecided(id, "the server exited before its stdin was closed ("+ex.Summary()+"), so the check shows nothing")
	}
	side.proc.CloseStdin()
	wctx, cancel := context.WithTimeout(ctx, exitWait)
	defer cancel()
	exit, err := side.proc.Wait(wctx)
	if err != nil {
		if ctx.Err() != nil {
			return rules.Undecided(id, "the scan ran out of time while waiting for the server to exit")
		}
		return rules.Failed(id, fmt.Sprintf("after %s the scan closed the server's stdin; it was still running %s later, and was stopped (%s)", ex.Summary(), exitWait, side.proc.Stop()))
	}
	return rules.Passed(id, fmt.Sprintf("the server %s once its stdin was closed", exit))
}

// stop ends the server without grading (a scan that could not run); idempotent.
func (l *stdioLink) stop() {
	l.mu.Lock()
	p := l.proc
	l.mu.Unlock()
	p.Stop()
}

// takeNotes returns the notes the link made (restarts) since the last call.
func (l *stdioLink) takeNotes() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.notes
	l.notes = nil
	return n
}

// whyUnreachable says why a stdio server did not answer the era gate, for the exit-2 error: how
// it ended if it did, what it wrote to stdout instead of messages, and its stderr.
func (l *stdioLink) whyUnreachable() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.conn.Closed():
		l.gone = true
	default:
	}
	if l.gone {
		// It went: wait for the reap and the rest of its stderr, or the message would say a
		// server that exited is still running, and quote none of what it said on the way out.
		ctx, cancel := context.WithTimeout(context.Background(), settleWait)
		l.proc.Settle(ctx)
		cancel()
	}
	var parts []string
	if exit, ok := l.proc.Exited(); ok {
		parts = append(parts, "it "+exit.String())
	} else if l.gone {
		parts = append(parts, "it closed its stdout or its stdin and is still running")
	} else {
		parts = append(parts, fmt.Sprintf("it is still running, silent for %s after each", l.limits.ReadTimeout))
	}
	if n := l.stdoutNoiseLocked(); n != "" {
		parts = append(parts, n)
	}
	if e := strings.TrimSpace(stderrNote(l.proc.Stderr())); e != "" {
		parts = append(parts, strings.Replace(e, "Its stderr:", "its stderr:", 1))
	}
	return strings.Join(parts, "; ")
}

// stdoutNoise says what the server wrote to stdout that is not an MCP message, or "" when it
// wrote none: a server that prints a banner or logs to stdout never answers the era gate, and
// a scan that ran out of time waiting for it should say what it got instead.
func (l *stdioLink) stdoutNoise() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stdoutNoiseLocked()
}

func (l *stdioLink) stdoutNoiseLocked() string {
	var bad []string
	for _, f := range l.conn.Frames(0, 0) {
		if f.Dir == wire.ToClient && f.Problem != wire.ProblemNone {
			bad = append(bad, f.Detail)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	count := fmt.Sprint(len(bad))
	if l.conn.Dropped() > 0 {
		count = "at least " + count // the link keeps a bounded number of lines
	}
	return fmt.Sprintf("its stdout carried %s line(s) that are not MCP messages (first: %s)", count, bad[0])
}

// stderrNote quotes the end of a server's stderr for a note, or nothing when it wrote none.
func stderrNote(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > stderrShown {
		s = "…" + s[len(s)-stderrShown:]
	}
	return " Its stderr: " + s
}

// Bounds of the wait cancelMidway keeps for messages about the request it cancelled.
const (
	minAfterCancelWait = 250 * time.Millisecond
	maxAfterCancelWait = 3 * time.Second
)

// cancelMidway gives stdio-nothing-after-cancel (passive.RunStdio) a cancellation to judge in
// every scan of a server with a tool that reports progress. Otherwise the only cancellations were
// those of calls cut at their deadline, and whether a call was cut depended on a race: server-
// everything's long-running tool takes 10 s against the 10 s deadline, so a loaded scan could see
// it answer and judge nothing (the same server failed the rule in one scan and was indeterminate
// in the next). It calls the tool again with a progress token of its own, reads it only until the
// first progress notification (the tool is then surely running) and cancels it there, as a client
// that stops waiting does; then it sends two server/discover requests, each after the previous one
// was answered — the two later answers the check needs before a message for the cancelled
// request counts against the server — and waits, at most twice the gap the first call's progress
// came at (bounded by minAfterCancelWait and maxAfterCancelWait), for anything more about the
// cancelled request. The wait ends at the first such message; a server that honours the
// cancellation costs the scan the whole wait.
func (l *stdioLink) cancelMidway(ctx context.Context, t *Target, tool string, args map[string]any, how string, gap time.Duration) {
	token := "sentinel-cancel-" + tool
	ex := t.Call(ctx, "tools/call", map[string]any{"name": tool, "arguments": args},
		wire.WithMeta("progressToken", token),
		wire.ReadUntil(func(m *wire.Message) bool { return m.Method == "notifications/progress" }),
		wire.WithLabel(fmt.Sprintf("tools/call %q with %s and a progressToken, cancelled at its first progress notification", tool, how)))
	if ex.Request.Message == nil || !reportsProgress(ex) || ex.Reply() != nil {
		return // it did not report progress this time, or finished first: nothing was cancelled
	}
	for i := range 2 {
		t.Call(ctx, "server/discover", nil, wire.WithLabel(fmt.Sprintf("server/discover %d of 2 after cancelling the call of %q", i+1, tool)))
	}
	l.mu.Lock()
	c := l.conn
	l.mu.Unlock()
	seq := c.Seq()
	id := string(ex.Request.Message.ID)
	wctx, stop := context.WithTimeout(ctx, min(max(2*gap, minAfterCancelWait), maxAfterCancelWait))
	defer stop()
	_, _ = c.WaitFor(wctx, seq, func(f wire.Frame) bool {
		m := f.Message
		switch {
		case f.Dir != wire.ToClient || m == nil:
			return false
		case m.IsResponse():
			return string(m.ID) == id
		default:
			return m.Method == "notifications/progress" && strings.Trim(string(m.ParamField("progressToken")), `"`) == token
		}
	})
}
