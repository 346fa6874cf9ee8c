package active

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// The capability round of the MRTR probes. The target is asked again declaring no capability,
// three times, and each answer is judged against a control:
//
//	control   {} on a fresh connection, before the scan declares anything on it
//	declare   every capability, on a connection of the scan's own
//	reused    {} next on that same connection
//	fresh     {} on a fresh connection again
//
// Over stdio every request shares the server's one connection: the control still comes before
// this round's declaration, and "reused" is that connection by construction, but no fresh one
// exists to tell a context derived from the connection from one inferred from earlier requests.
//
// The control is the same request as reused without the earlier declaration, so only a server
// that honours {} there and asks for undeclared input on reused infers capabilities from an
// earlier request; one that asks on the control too ignores the declaration altogether (that is
// mrtr-declared-capabilities), and whether it also infers cannot be told. fresh tells whether
// what it inferred came from the connection. The control is also the request whose refusal
// settles the -32021 rules: the first round, identical but for declaring every capability, was
// answered input_required, so a refusal of the control is a refusal for the missing capability.

// capabilityOutcomes runs the capability round on it.
func capabilityOutcomes(ctx context.Context, t *Target, it *interim) []rules.Outcome {
	inference, connection := rules.IDOf("no-capability-inference"), rules.IDOf("no-connection-derived-context")
	capErr, capStatus := rules.IDOf("missing-capability-error"), rules.IDOf("missing-capability-http-400")
	none := map[string]any{}

	oneConnection := t.stdio != nil
	ctlLabel := it.what("declaring no client capability, on a fresh connection (control: nothing was declared on it before)")
	if oneConnection {
		ctlLabel = it.what("declaring no client capability (control: before this round declares anything)")
	}
	ctl := t.SendFresh(ctx, it.spec(ctlLabel, it.args, none, nil))
	if cut(ctl) {
		return []rules.Outcome{undecidedCut(inference, ctlLabel, ctl), undecidedCut(connection, ctlLabel, ctl),
			undecidedCut(capErr, ctlLabel, ctl), undecidedCut(capStatus, ctlLabel, ctl)}
	}
	out := missingCapabilityOutcomes(it, ctlLabel, ctl)

	conn := t.ownConnection()
	defer conn.CloseIdleConnections()
	declLabel := it.what("declaring every client capability, on a connection of the scan's own")
	decl := t.send(ctx, conn, it.spec(declLabel, it.args, allCapabilities, nil), true)
	label := it.what("declaring no client capability, next on the connection whose previous request declared all")
	reused := oneConnection // over stdio, every request is on the one connection
	traced := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) { reused = c.Reused }})
	ex := t.send(traced, conn, it.spec(label, it.args, none, nil), true)
	for _, e := range []struct {
		label string
		ex    *wire.Exchange
	}{{declLabel, decl}, {label, ex}} {
		if cut(e.ex) {
			return append(out, undecidedCut(inference, e.label, e.ex), undecidedCut(connection, e.label, e.ex))
		}
	}
	undeclaredCtl, undeclared := undeclaredInputRequests(ctl), undeclaredInputRequests(ex)
	switch {
	case undeclaredCtl != "":
		why := fmt.Sprintf("declaring no capability before this round declared anything, the server already asked for %s: it ignores the declaration (see mrtr-declared-capabilities), so whether it also infers capabilities from earlier requests cannot be told", undeclaredCtl)
		return append(out, undecidedOn(inference, ctlLabel, ctl, why), undecidedOn(connection, ctlLabel, ctl, why))
	case inputKeys(decl) == nil:
		why := fmt.Sprintf("declaring every capability on the scan's own connection, the %s was not answered input_required (%s), so there was no declaration to infer from", it.kind(), decl.Summary())
		return append(out, undecidedOn(inference, declLabel, decl, why), undecidedOn(connection, declLabel, decl, why))
	case undeclared == "":
		out = append(out, stamp(rules.Passed(inference, fmt.Sprintf("%s; the control without the earlier declaration got %s, and no input request relied on an undeclared capability after it", observed(label, ex), ctl.Summary())), ex))
		if !reused {
			return append(out, undecidedOn(connection, label, ex, "the server did not keep the connection after the declaring request (the next request opened a new one), so a connection-derived context was not put to the test"))
		}
		return append(out, stamp(rules.Passed(connection, observed(label, ex)+"; the capability-less call was judged on its own declaration on the connection that had declared all"), ex))
	}
	out = append(out, stamp(rules.Failed(inference, fmt.Sprintf("%s; the server asked for %s, although this request declared {} (no capability) and the same request without the earlier declaration got %s (the control)", observed(label, ex), undeclared, ctl.Summary())), ex))
	return append(out, connectionOutcome(ctx, t, it, label, ex, undeclared, reused))
}

// connectionOutcome separates "derived from the connection" from "inferred from earlier requests
// on any connection": the capability-less call that asked for undeclared input on the reused
// connection is repeated on a fresh one.
func connectionOutcome(ctx context.Context, t *Target, it *interim, label string, reused *wire.Exchange, undeclared string, onReused bool) rules.Outcome {
	id := rules.IDOf("no-connection-derived-context")
	switch {
	case t.stdio != nil:
		return undecidedOn(id, label, reused, "over stdio every request shares the server's one connection, so a context derived from the connection cannot be told from one inferred from earlier requests (see no-capability-inference)")
	case !onReused:
		return undecidedOn(id, label, reused, "the request that asked for undeclared input did not travel on the connection that had declared (the server did not keep it), so what it inferred came from earlier requests, not from the connection")
	}
	freshLabel := it.what("declaring no client capability, on a fresh connection, after the connection that declared all")
	fresh := t.SendFresh(ctx, it.spec(freshLabel, it.args, map[string]any{}, nil))
	if cut(fresh) {
		return undecidedCut(id, freshLabel, fresh)
	}
	if undeclaredInputRequests(fresh) == "" {
		return stamp(rules.Failed(id, fmt.Sprintf("%s; on the connection that had declared every capability the server asked for %s, on a fresh one it did not", observed(label, reused), undeclared)), reused)
	}
	return undecidedOn(id, freshLabel, fresh, "the server asks for undeclared input on a fresh connection too after the declaration: it infers from earlier requests whatever the connection (see no-capability-inference), so a connection-derived context cannot be told apart")
}

// missingCapabilityOutcomes judges the control's answer by the -32021 rules. The first round,
// the same request declaring every capability, was answered input_required, so a refusal here
// is a refusal for the missing capability, and it must be -32021 with requiredCapabilities, sent
// with HTTP 400. Asking the control for the undeclared input instead fails the -32021 rule too:
//
//	"If processing a request requires a capability the client did not include in
//	io.modelcontextprotocol/clientCapabilities, the server MUST return a
//	MissingRequiredClientCapabilityError (-32021)" (basic#_meta)
func missingCapabilityOutcomes(it *interim, label string, ex *wire.Exchange) []rules.Outcome {
	capErr, capStatus := rules.IDOf("missing-capability-error"), rules.IDOf("missing-capability-http-400")
	both := func(why string, absent bool) []rules.Outcome {
		if absent {
			return []rules.Outcome{stamp(rules.Absent(capErr, why), ex), stamp(rules.Absent(capStatus, why), ex)}
		}
		return []rules.Outcome{undecidedOn(capErr, label, ex, why), undecidedOn(capStatus, label, ex, why)}
	}
	complete, again, _, _ := verdict(ex)
	code, isErr := ex.ErrorCode()
	switch {
	case isErr && code == wire.CodeMissingCapability:
		return missingCapabilityError(label, ex)
	case undeclaredInputRequests(ex) != "":
		// Asking is the server's own word that processing needs the capability: the request
		// that declared none had to be refused with -32021. Whether that -32021 would have come
		// with HTTP 400 no request showed.
		asked := undeclaredInputRequests(ex)
		return []rules.Outcome{
			stamp(rules.Failed(capErr, fmt.Sprintf("%s; the server asked for %s, a capability this request did not declare, instead of refusing with -32021 and data.requiredCapabilities (the same behaviour fails mrtr-declared-capabilities)", observed(label, ex), asked)), ex),
			undecidedOn(capStatus, label, ex, fmt.Sprintf("the server asked for %s instead of sending a -32021, so the status of a -32021 could not be judged", asked)),
		}
	case complete:
		return both(fmt.Sprintf("the %s completed without any client capability (%s), so processing did not require one", it.kind(), ex.Summary()), true)
	case again:
		return both("the server answered input_required asking for no undeclared input, so the -32021 path was not reached", false)
	case len(inputKinds(it)) == 0:
		return both(fmt.Sprintf("the %s's first round asked for no input, so a refusal without capabilities need not be about one", it.kind()), false)
	}
	why := fmt.Sprintf("; declaring every capability the same request was answered input_required asking for %s, so this one needed a capability it did not declare, and the refusal must be -32021 with data.requiredCapabilities",
		strings.Join(inputKinds(it), " and "))
	return []rules.Outcome{stamp(rules.Failed(capErr, observed(label, ex)+why), ex),
		undecidedOn(capStatus, label, ex, "the refusal was not -32021, so the status of a -32021 could not be judged")}
}

// missingCapabilityError judges a -32021: data.requiredCapabilities an object, HTTP 400 (an error
// inside an already started event stream has no status of its own and is not judged).
func missingCapabilityError(label string, ex *wire.Exchange) []rules.Outcome {
	capErr, capStatus := rules.IDOf("missing-capability-error"), rules.IDOf("missing-capability-http-400")
	var out []rules.Outcome
	var data struct {
		Required map[string]any `json:"requiredCapabilities"`
	}
	if ex.Reply().Error.Data != nil && wire.Decode(ex.Reply().Error.Data, &data) == nil && data.Required != nil {
		out = append(out, stamp(rules.Passed(capErr, observed(label, ex)), ex))
	} else {
		out = append(out, stamp(rules.Failed(capErr, observed(label, ex)+"; -32021 without data.requiredCapabilities"), ex))
	}
	if ex.Status() == http.StatusBadRequest || ex.ContentType() == wire.ContentTypeSSE {
		return append(out, stamp(rules.Passed(capStatus, observed(label, ex)), ex))
	}
	return append(out, stamp(rules.Failed(capStatus, observed(label, ex)+"; expected HTTP 400"), ex))
}

// inputKinds are the sorted methods the target's first round asked for.
func inputKinds(it *interim) []string {
	seen := map[string]bool{}
	for _, raw := range it.requests {
		var ir struct {
			Method string `json:"method"`
		}
		if wire.Decode(raw, &ir) == nil && ir.Method != "" {
			seen[ir.Method] = true
		}
	}
	return sortedKeys(seen)
}

// undeclaredInputRequests names the first input request kind in ex's InputRequiredResult (the
// request declared nothing, so any is undeclared); "" when there is none.
func undeclaredInputRequests(ex *wire.Exchange) string {
	r := resultOf(ex)
	if r == nil || ex.Reply().ResultType() != "input_required" {
		return ""
	}
	var reqs map[string]struct {
		Method string `json:"method"`
	}
	_ = wire.Decode(r["inputRequests"], &reqs)
	for _, k := range sortedKeys(reqs) {
		if m := reqs[k].Method; m != "" {
			return m
		}
	}
	return ""
}

// undecidedOn is an indeterminate outcome that keeps what was sent and seen.
func undecidedOn(id, label string, ex *wire.Exchange, why string) rules.Outcome {
	o := rules.Undecided(id, why)
	o.Observed = observed(label, ex)
	return stamp(o, ex)
}

// ownConnection returns a client with one keep-alive connection of its own, shared with no other
// probe, so that requests sent on it one after the other travel on the same connection while the
// server keeps it. The caller closes its idle connection when done.
func (t *Target) ownConnection() *http.Client {
	tr := &http.Transport{Proxy: nil, TLSHandshakeTimeout: 10 * time.Second}
	if base, ok := t.Client.Transport.(*http.Transport); ok && base != nil {
		tr = base.Clone()
	}
	tr.DisableKeepAlives, tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = false, 1, 1
	return &http.Client{Transport: tr, Timeout: t.Client.Timeout, CheckRedirect: t.Client.CheckRedirect}
}

// sortedKeys returns a map's keys in order, so outcomes do not depend on map iteration.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
