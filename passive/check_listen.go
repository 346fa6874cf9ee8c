package passive

import (
	"fmt"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
)

// listenFilter maps a subscriptions/listen filter member to the notification it opts into.
var listenFilter = map[string]string{
	"toolsListChanged":     "notifications/tools/list_changed",
	"promptsListChanged":   "notifications/prompts/list_changed",
	"resourcesListChanged": "notifications/resources/list_changed",
}

// checkListen enforces the subscriptions/listen stream.
//
//	The response is a long-lived text/event-stream. "The first message MUST be
//	notifications/subscriptions/acknowledged" carrying subscriptionId; the acknowledgement lists
//	only what the server will honour. Every notification on the stream "MUST include
//	io.modelcontextprotocol/subscriptionId" equal to the listen request's id, and the server
//	"MUST NOT send any notification type the client did not request"; resources/updated goes only
//	for URIs named in resourceSubscriptions (or their sub-resources).
func checkListen(v *view, _ *History) []rules.Outcome {
	if v.method() != "subscriptions/listen" || !v.isRequest() || v.ex.Response == nil {
		return nil
	}
	if _, isErr := v.errorCode(); isErr || authStatus(v.status) || v.status >= 400 {
		return nil
	}
	var out []rules.Outcome
	switch {
	case v.ex.Stdio():
		// No stream on stdio: the listen's notifications are the lines that carry its
		// subscription ID, which the correlator gathered into this exchange.
	case !v.sse:
		return []rules.Outcome{fail("listen-is-open-sse", "subscriptions/listen was answered with HTTP %d and Content-Type %q, not an event stream", v.status, clip(v.ex.Response.Header.Get("Content-Type")))}
	default:
		out = append(out, pass("listen-is-open-sse", "an event stream"))
	}
	wanted := decodeObject(v.reqParams["notifications"])
	allowed := map[string]bool{}
	for k, m := range listenFilter {
		if string(wanted[k]) == "true" {
			allowed[m] = true
		}
	}
	var uris []string
	for _, u := range decodeArray(wanted["resourceSubscriptions"]) {
		if s, ok := stringOf(u); ok {
			uris = append(uris, s)
		}
	}
	if len(v.msgs) == 0 {
		return out
	}
	first := v.msgs[0]
	if first.Method != "notifications/subscriptions/acknowledged" {
		out = append(out, fail("listen-ack-first", "the first message on the listen stream was %s, not notifications/subscriptions/acknowledged", describe(first)))
	} else {
		out = append(out, pass("listen-ack-first", "the acknowledgement came first"))
		ack := decodeObject(first.ParamsMembers()["notifications"])
		extra := ""
		for k, val := range ack {
			if string(val) == "true" && string(wanted[k]) != "true" {
				extra = k
			}
		}
		if extra != "" {
			out = append(out, fail("listen-ack-honoured-subset", "the acknowledgement lists %s, which the client did not ask for", extra))
		} else {
			out = append(out, pass("listen-ack-honoured-subset", "the acknowledgement lists only requested types"))
		}
	}
	badID, badType := false, false
	for _, n := range v.notifications() {
		sid := decodeObject(n.ParamsMembers()["_meta"])[metaSubscriptionID]
		if !sameID(sid, v.req.ID) && !badID {
			badID = true
			out = append(out, fail("listen-subscription-id", "%s on the listen stream carries subscriptionId %s; the listen request's id is %s", n.Method, clip(idText(sid)), clipBytes(v.req.ID)))
		}
		switch {
		case n.Method == "notifications/subscriptions/acknowledged", requestScoped(n.Method), n.Method == "notifications/cancelled":
		case n.Method == "notifications/resources/updated":
			u, _ := stringOf(n.ParamsMembers()["uri"])
			if !coveredURI(u, uris) {
				badType = true
				out = append(out, fail("resource-updated-opt-in", "resources/updated for %q, which is not among the subscribed URIs %v", clip(u), uris))
			} else {
				out = append(out, pass("resource-updated-opt-in", fmt.Sprintf("resources/updated for subscribed %q", clip(u))))
			}
		case !allowed[n.Method]:
			badType = true
			out = append(out, fail("listen-only-requested-types", "the server sent %s, which the client did not subscribe to", clip(n.Method)))
		}
	}
	if !badID {
		out = append(out, pass("listen-subscription-id", "every notification carries the listen request's id"))
	}
	if !badType {
		out = append(out, pass("listen-only-requested-types", "only requested notification types"))
	}
	return out
}

// coveredURI reports whether u is one of the subscribed URIs or a sub-resource of one.
func coveredURI(u string, subscribed []string) bool {
	for _, s := range subscribed {
		if u == s || strings.HasPrefix(u, strings.TrimSuffix(s, "/")+"/") {
			return true
		}
	}
	return false
}
