package brokertest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/eval"
)

var elicitCaps = map[string]any{"elicitation": map[string]any{}}

// askArgs is a set_metric_policy call without onTimeout, which the broker must not guess.
var askArgs = map[string]any{"metric": eval.MetricGroundedness, "threshold": 0.4}

func accept(choice string) map[string]any {
	return map[string]any{"on_timeout": map[string]any{"action": "accept", "content": map[string]any{"onTimeout": choice}}}
}

func TestSetMetricPolicyWithoutElicitationAnswersMissingCapability(t *testing.T) {
	eachStore(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		e := startBroker(t, st, envOptions{})
		// Declaring elicitation in URL mode only does not declare the form onTimeout is asked in.
		urlOnly := map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}
		if r := e.mustCall(t, e.token(t, nil), broker.NameSetMetricPolicy, askArgs, callParams{caps: urlOnly}); r.Status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32021 {
			t.Fatalf("URL mode only: status %d, error %+v, result %v; want 400 and -32021, not a form", r.Status, r.Error, r.Result)
		}
		r := e.mustCall(t, e.token(t, nil), broker.NameSetMetricPolicy, askArgs, callParams{})
		if r.Status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32021 {
			t.Fatalf("status %d, error %+v; want 400 and -32021", r.Status, r.Error)
		}
		var data struct {
			RequiredCapabilities map[string]any `json:"requiredCapabilities"`
		}
		if err := json.Unmarshal(r.Error.Data, &data); err != nil || data.RequiredCapabilities["elicitation"] == nil || len(data.RequiredCapabilities) != 1 {
			t.Fatalf("error data = %s, want requiredCapabilities.elicitation", r.Error.Data)
		}
		if rev := policyRevision(t, st, "acme", eval.MetricGroundedness); rev != 0 {
			t.Fatalf("a refused call wrote the policy (revision %d)", rev)
		}
	})
}

// askOnce runs round one and returns the requestState.
func askOnce(t *testing.T, e *brokerEnv, tok string) string {
	t.Helper()
	r := e.mustCall(t, tok, broker.NameSetMetricPolicy, askArgs, callParams{caps: elicitCaps})
	if r.Status != http.StatusOK || r.Result["resultType"] != "input_required" {
		t.Fatalf("round one: status %d, result %v; want an InputRequiredResult", r.Status, r.Result)
	}
	reqs, _ := r.Result["inputRequests"].(map[string]any)
	ask, _ := reqs["on_timeout"].(map[string]any)
	params, _ := ask["params"].(map[string]any)
	if ask["method"] != "elicitation/create" || !strings.Contains(params["message"].(string), "fail_closed") {
		t.Fatalf("inputRequests = %v; want an elicitation explaining the choices", reqs)
	}
	if _, hinted := r.Result["ttlMs"]; hinted {
		t.Fatalf("an InputRequiredResult carries caching hints: %v", r.Result)
	}
	state, _ := r.Result["requestState"].(string)
	if state == "" {
		t.Fatal("round one returned no requestState")
	}
	return state
}

func TestSetMetricPolicyAsksThenAppliesTheAnswerOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		e := startBroker(t, st, envOptions{})
		tok := e.token(t, nil)
		state := askOnce(t, e, tok)
		if rev := policyRevision(t, st, "acme", eval.MetricGroundedness); rev != 0 {
			t.Fatalf("asking wrote the policy (revision %d)", rev)
		}
		var first string
		for i := range 3 {
			r := e.mustCall(t, tok, broker.NameSetMetricPolicy, askArgs, callParams{caps: elicitCaps, requestState: state, inputResponses: accept("fail_closed")})
			if r.Status != http.StatusOK || r.isError() || r.Result["resultType"] == "input_required" {
				t.Fatalf("retry %d: status %d, %v", i, r.Status, r.Result)
			}
			if first == "" {
				first = r.text()
			}
			if r.text() != first {
				t.Fatalf("retry %d replied %s, first %s", i, r.text(), first)
			}
		}
		rows, err := st.Policies(ctxT(t), "acme")
		if err != nil || len(rows) != 1 || rows[0].Revision != 1 || rows[0].Policy.OnTimeout != eval.FailClosed || rows[0].Policy.Threshold != 0.4 {
			t.Fatalf("stored policies = %+v, %v; want one write of fail_closed at 0.4", rows, err)
		}
		// A new flow is a new request: it writes again.
		state2 := askOnce(t, e, tok)
		e.mustCall(t, tok, broker.NameSetMetricPolicy, askArgs, callParams{caps: elicitCaps, requestState: state2, inputResponses: accept("fail_open")})
		if rev := policyRevision(t, st, "acme", eval.MetricGroundedness); rev != 2 {
			t.Fatalf("a second flow left revision %d, want 2", rev)
		}
	})
}

func TestSetMetricPolicyRefusesBadRequestState(t *testing.T) {
	eachStore(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		e := startBroker(t, st, envOptions{})
		short := startBroker(t, st, envOptions{ttl: time.Millisecond, key: e.Key})
		alice := e.token(t, nil)
		state := askOnce(t, e, alice)
		expired := askOnce(t, short, short.token(t, nil))
		time.Sleep(20 * time.Millisecond) // outlive the 1 ms state lifetime
		flipped := []byte(state)
		flipped[len(flipped)/2] ^= 1
		if flipped[len(flipped)/2] == '.' || flipped[len(flipped)/2] == state[len(state)/2] {
			flipped[len(flipped)/2] = 'A'
		}
		cases := []struct {
			name  string
			env   *brokerEnv
			tok   string
			args  map[string]any
			state string
		}{
			{"tampered", e, alice, askArgs, string(flipped)},
			{"expired", short, short.token(t, nil), askArgs, expired},
			{"presented by another subject", e, e.token(t, func(o *auth.MintOptions) { o.Subject = "bob" }), askArgs, state},
			{"presented by another tenant", e, e.token(t, func(o *auth.MintOptions) { o.Tenant = "globex" }), askArgs, state},
			{"attached to other arguments", e, alice, map[string]any{"metric": eval.MetricGroundedness, "threshold": 0.1}, state},
			{"never issued", e, alice, askArgs, "s1.t.AAAA"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := tc.env.mustCall(t, tc.tok, broker.NameSetMetricPolicy, tc.args, callParams{caps: elicitCaps, requestState: tc.state, inputResponses: accept("fail_open")})
				if r.Error == nil || r.Error.Code != -32602 {
					t.Fatalf("status %d, result %v, error %+v; want -32602", r.Status, r.Result, r.Error)
				}
			})
		}
		if rev := policyRevision(t, st, "acme", eval.MetricGroundedness); rev != 0 {
			t.Fatalf("a refused requestState wrote the policy (revision %d)", rev)
		}
		if rev := policyRevision(t, st, "globex", eval.MetricGroundedness); rev != 0 {
			t.Fatalf("a foreign requestState wrote globex's policy (revision %d)", rev)
		}
	})
}

func TestSetMetricPolicyHandlesDeclineAndMissingAnswers(t *testing.T) {
	eachStore(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		e := startBroker(t, st, envOptions{})
		tok := e.token(t, nil)
		state := askOnce(t, e, tok)
		again := e.mustCall(t, tok, broker.NameSetMetricPolicy, askArgs, callParams{caps: elicitCaps, requestState: state,
			inputResponses: map[string]any{"unrelated": map[string]any{"action": "accept", "content": map[string]any{}}}})
		if again.Result["resultType"] != "input_required" {
			t.Fatalf("a retry without the needed answer = %v; want a new InputRequiredResult", again.Result)
		}
		bad := e.mustCall(t, tok, broker.NameSetMetricPolicy, askArgs, callParams{caps: elicitCaps, requestState: state, inputResponses: accept("maybe")})
		if bad.Error == nil || bad.Error.Code != -32602 {
			t.Fatalf("malformed answer: %+v %v; want -32602", bad.Error, bad.Result)
		}
		declined := e.mustCall(t, tok, broker.NameSetMetricPolicy, askArgs, callParams{caps: elicitCaps, requestState: state,
			inputResponses: map[string]any{"on_timeout": map[string]any{"action": "decline"}}})
		if !declined.isError() || !strings.Contains(declined.text(), "not changed") {
			t.Fatalf("decline = %v; want a tool error saying nothing changed", declined.Result)
		}
		if rev := policyRevision(t, st, "acme", eval.MetricGroundedness); rev != 0 {
			t.Fatalf("revision %d after no accepted answer, want 0", rev)
		}
	})
}

func TestStoredPolicyGovernsLaterEvaluations(t *testing.T) {
	eachStore(t, func(t *testing.T, b backend) {
		st := openStore(t, b)
		e := startBroker(t, st, envOptions{})
		tok := e.token(t, func(o *auth.MintOptions) { o.Tenant = "newco" })
		before := e.mustCall(t, tok, eval.MetricInjection, map[string]any{"response": "hello"}, callParams{})
		if !before.isError() {
			t.Fatalf("a tenant without policy got %v", before.Result)
		}
		set := e.mustCall(t, tok, broker.NameSetMetricPolicy, map[string]any{"metric": eval.MetricInjection, "threshold": 0.6, "onTimeout": "fail_closed"}, callParams{})
		if set.isError() {
			t.Fatalf("set_metric_policy = %v", set.Result)
		}
		after := e.mustCall(t, tok, eval.MetricInjection, map[string]any{"response": "hello", "response_format": "detailed"}, callParams{})
		vs, _ := after.structured()["verdicts"].([]any)
		if after.isError() || len(vs) != 1 || vs[0].(map[string]any)["threshold"] != 0.6 {
			t.Fatalf("after the write flag_injection = %v; want a verdict at threshold 0.6", after.Result)
		}
	})
}

func TestConcurrentDuplicateRetriesOfOneFlowWriteOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, b backend) {
		// Two broker processes sharing the database and the requestState keys, as replicas do.
		keys, err := seal.NewKeyring(seal.GenerateKey("shared"))
		if err != nil {
			t.Fatal(err)
		}
		a := startBroker(t, openStore(t, b), envOptions{keys: keys})
		c := startBroker(t, openStore(t, b), envOptions{keys: keys, key: a.Key})
		envs := []*brokerEnv{a, c}
		tokens := []string{a.token(t, nil), c.token(t, nil)}
		state := askOnce(t, a, tokens[0])
		const n = 100
		replies := make([]reply, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				replies[i], errs[i] = envs[i%2].call(ctxT(t), tokens[i%2], broker.NameSetMetricPolicy, askArgs,
					callParams{caps: elicitCaps, requestState: state, inputResponses: accept("fail_closed")})
			})
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil || replies[i].Error != nil || replies[i].isError() || replies[i].text() != replies[0].text() {
				t.Fatalf("retry %d: %v %+v %v; want the same recorded result as retry 0 (%s)", i, errs[i], replies[i].Error, replies[i].Result, replies[0].text())
			}
		}
		if rev := policyRevision(t, a.Store, "acme", eval.MetricGroundedness); rev != 1 {
			t.Fatalf("%d concurrent retries of one flow on two processes wrote the policy %d times, want once", n, rev)
		}
	})
}
