package active

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-sentinel/sentinel/wire"
)

// A tool that takes longer than --request-timeout costs the whole deadline every time it is
// called, and several probes call the same tool with the same arguments (discovery looks for an
// MRTR tool, the MRTR, progress and elicitation probes call it again). Over stdio the probes run
// one after another, so server-everything's trigger-long-running-operation (10 s by default, just
// past the 10 s deadline) alone cost four deadlines and pushed a default scan past --timeout:
// incomplete, exit 2. The first call that gets no answer by its deadline is the evidence; the
// same call again would wait as long and prove nothing more, so it is not sent, and what it would
// have decided is indeterminate for the same reason the first call gave.

// slowCallKey names a tools/call by its tool, its arguments and whether it asks for progress.
// The rest of _meta (an MRTR response, the client's capabilities) changes what the server
// answers, not how long the tool takes; a progress token changes what a call that is cut at its
// deadline still shows (the progress sent before it), so a call with one is sent even after the
// same call without one went unanswered. ok is false for any other request. The body is the
// scan's own request, not bytes off the wire.
func slowCallKey(spec wire.RequestSpec) (key string, ok bool) {
	if !bytes.Contains(spec.Body, []byte("tools/call")) {
		return "", false // most requests: not worth decoding on every send
	}
	m, err := wire.DecodeMessage(bytes.TrimSpace(spec.Body))
	if err != nil || m.Method != "tools/call" || !m.IsRequest() {
		return "", false
	}
	name := m.ParamsMembers()["name"]
	var args bytes.Buffer
	if raw := m.ParamsMembers()["arguments"]; len(raw) > 0 {
		if err := json.Compact(&args, raw); err != nil {
			return "", false
		}
	}
	key = string(name) + "\x00" + args.String()
	if _, progress := m.Meta()["progressToken"]; progress {
		key += "\x00progress"
	}
	return key, true
}

// unansweredByDeadline reports whether ex ended at its own deadline without a JSON-RPC response
// (notifications may have come): the tool was still running.
func unansweredByDeadline(ex *wire.Exchange) bool {
	return ex.Reply() == nil && ex.Err != "" && containsAny(ex.Err, "deadline", "Client.Timeout")
}

// markSlow records that call got no answer by its deadline, and notes its tool once.
func (t *Target) markSlow(call string) {
	tool, timeout := toolLabel(call), t.Options.Limits.WithDefaults().ReadTimeout
	t.mu.Lock()
	if t.slow == nil {
		t.slow, t.slowNoted = map[string]string{}, map[string]bool{}
	}
	t.slow[call] = fmt.Sprintf("the same tools/call of %s got no answer before the deadline (--request-timeout %s) earlier in this scan, so it was not sent again", tool, timeout)
	seen := t.slowNoted[tool] // one note per tool, however many argument sets went unanswered
	t.slowNoted[tool] = true
	t.mu.Unlock()
	if !seen {
		t.Note("tools/call of %s got no answer within --request-timeout %s; later calls with the same arguments were not sent (each would wait as long) and what they would show is indeterminate. Raise --request-timeout, or give the tool quicker arguments with --tool-args.",
			tool, timeout)
	}
}

// skipSlow returns the exchange of a call not sent because the same call already went
// unanswered, nil when call may be sent. Its Err names the deadline, so every probe reads it as
// it read the first call's: no answer before the deadline, nothing decided.
func (t *Target) skipSlow(call string, spec wire.RequestSpec) *wire.Exchange {
	t.mu.Lock()
	why, ok := t.slow[call]
	t.mu.Unlock()
	if !ok {
		return nil
	}
	ex := &wire.Exchange{Target: t.Endpoint, Request: wire.Request{Method: spec.Method, URL: spec.URL, Body: spec.Body}, Err: "not sent: " + why}
	if t.stdio != nil {
		ex.Target, ex.Transport = t.stdio.label, wire.TransportStdio
	}
	ex.Parse(wire.Limits{})
	return ex
}

// toolLabel is the tool name of a slowCallKey, quoted as the JSON had it.
func toolLabel(call string) string {
	name, _, _ := strings.Cut(call, "\x00")
	return name
}
