package active

import (
	"fmt"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Helpers that turn one exchange into one outcome. Every outcome carries Observed: what was sent
// (the label) and what came back (the exchange summary). An exchange cut by the scan's deadline
// is indeterminate, never a pass and never a failure.

func observed(label string, ex *wire.Exchange) string {
	return fmt.Sprintf("sent %s; got %s", label, ex.Summary())
}

func stamp(o rules.Outcome, ex *wire.Exchange) rules.Outcome {
	if ex != nil {
		o.Exchange = ex.ID
	}
	return o
}

// cut reports whether the exchange produced no evidence because time ran out.
func cut(ex *wire.Exchange) bool {
	return ex.Response == nil && ex.Err != "" && containsAny(ex.Err, "deadline", "context canceled", "Client.Timeout")
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func undecidedCut(id, label string, ex *wire.Exchange) rules.Outcome {
	return stamp(rules.Undecided(id, fmt.Sprintf("sent %s; no answer before the deadline (%s)", label, ex.Err)), ex)
}

// reject judges a request that must be refused with HTTP status and JSON-RPC code (either may be
// 0 to skip it).
func reject(id, label string, ex *wire.Exchange, status, code int) rules.Outcome {
	if cut(ex) {
		return undecidedCut(id, label, ex)
	}
	obs := observed(label, ex)
	if ex.Stdio() {
		status = 0 // stdio has no status: only the JSON-RPC half of the rejection applies
	}
	var want string
	switch {
	case status != 0 && code != 0:
		want = fmt.Sprintf("HTTP %d with JSON-RPC error %d", status, code)
	case status != 0:
		want = fmt.Sprintf("HTTP %d", status)
	default:
		want = fmt.Sprintf("JSON-RPC error %d", code)
	}
	got, isErr := ex.ErrorCode()
	okStatus := status == 0 || ex.Status() == status
	okCode := code == 0 || (isErr && got == code)
	if okStatus && okCode {
		return stamp(rules.Passed(id, obs), ex)
	}
	return stamp(rules.Failed(id, obs+"; expected "+want), ex)
}

// served judges a request that must be served: HTTP 200 and a JSON-RPC result.
func served(id, label string, ex *wire.Exchange) rules.Outcome {
	if cut(ex) {
		return undecidedCut(id, label, ex)
	}
	obs := observed(label, ex)
	if ex.Delivered() && ex.Reply() != nil && ex.Reply().Error == nil {
		return stamp(rules.Passed(id, obs), ex)
	}
	return stamp(rules.Failed(id, obs+"; expected HTTP 200 with a result"), ex)
}

// notRejectedAs judges a request whose headers are valid and must therefore not be refused as
// a header problem: any answer except HTTP 400 with code (the method may still fail for other
// reasons, such as an unknown tool, which shows the headers were accepted).
func notRejectedAs(id, label string, ex *wire.Exchange, code int) rules.Outcome {
	if cut(ex) {
		return undecidedCut(id, label, ex)
	}
	obs := observed(label, ex)
	if ex.Response == nil {
		return stamp(rules.Failed(id, obs+"; expected the request to be processed"), ex)
	}
	if got, isErr := ex.ErrorCode(); isErr && got == code {
		return stamp(rules.Failed(id, fmt.Sprintf("%s; the headers were valid, yet it was refused with %d", obs, code)), ex)
	}
	if ex.Reply() == nil {
		return stamp(rules.Failed(id, obs+"; expected a JSON-RPC answer"), ex)
	}
	return stamp(rules.Passed(id, obs), ex)
}

// pair returns outcomes for a rule split in two: the JSON-RPC code (codeID) and the HTTP status
// (statusID) of the same rejection.
func pair(codeID, statusID, label string, ex *wire.Exchange, status, code int) []rules.Outcome {
	return []rules.Outcome{reject(codeID, label, ex, 0, code), reject(statusID, label, ex, status, 0)}
}
