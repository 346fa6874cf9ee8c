package active

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcp-sentinel/sentinel/rules"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/wire"
)

// TestAScanSendsEachPlainListOnce: discovery's prompts/list is the one the cache-hint, pagination,
// current-list and prompt probes judge, while every probe that reads tools/list sends its own copy
// (each is a sample of the server's ordering).
func TestAScanSendsEachPlainListOnce(t *testing.T) {
	srv := (&fakeServer{}).start(t)
	out := scan(t, srv.URL, Options{Origin: "http://allowed.example"})
	plain := map[string]int{}
	for _, ex := range out.Exchanges {
		m := ex.Request.Message
		if m != nil && m.ParamField("cursor") == nil {
			plain[m.Method]++
		}
	}
	if plain["prompts/list"] != 1 {
		t.Errorf("%d plain prompts/list requests, want 1 (discovery's, shared)", plain["prompts/list"])
	}
	if plain["tools/list"] < 4 {
		t.Errorf("%d plain tools/list requests; discovery, the cache-hint, pagination, endpoint and determinism probes each send one", plain["tools/list"])
	}
	for _, name := range []string{"cache-hints-present", "prompts-list-current", "single-post-endpoint", "tools-deterministic-order"} {
		found := false
		for _, rr := range out.Result.Rules {
			found = found || (rr.Rule.Name == name && len(rr.Evidence) > 0 && rr.Evidence[0].Exchange != "")
		}
		if !found {
			t.Errorf("%s has no evidence from an exchange", name)
		}
	}
}

// TestFirstPageIsNotSharedWhenCutShort: an answer the transport cut short is not handed to the
// next probe, which sends the request again; a whole answer is handed to every later caller.
func TestFirstPageIsNotSharedWhenCutShort(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			_ = c.Close() // no answer at all
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"ttlMs":0,"cacheScope":"public"}}`)
	}))
	defer srv.Close()
	tg := &Target{Endpoint: srv.URL, Options: Options{Endpoint: srv.URL}.withDefaults(), history: passive.NewHistory()}
	tg.Client = tg.Options.Client
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := tg.firstPage(ctx, "prompts/list", "prompts/list")
	if first.Response != nil {
		t.Fatalf("the first request got an answer: %s", first.Summary())
	}
	var wg sync.WaitGroup
	got := make([]*wire.Exchange, 4)
	for i := range got {
		wg.Go(func() { got[i] = tg.firstPage(ctx, "prompts/list", "prompts/list") })
	}
	wg.Wait()
	for i, ex := range got {
		if ex.Response == nil || ex != got[0] {
			t.Errorf("caller %d got %s, want the one whole answer every caller shares", i, ex.Summary())
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the server saw %d requests, want 2: the cut one and one shared answer", n)
	}
	if ex := tg.firstPage(withoutSession(ctx), "prompts/list", "outside"); ex == got[0] || !strings.Contains(ex.Summary(), "prompts/list") {
		t.Errorf("a request outside the session was answered from the shared exchange")
	}
}

// TestPromptSearchGetsEachPromptOnce: the two prompt MRTR probes search the same list with the
// same requests, so a prompt that renders at once is got once for both; the prompt that answers
// input_required is got by each probe itself, since the state it carries was issued for one
// request. Before the search was shared every prompt was got once per probe.
func TestPromptSearchGetsEachPromptOnce(t *testing.T) {
	// Without requestState the search does not stop at the first prompt that asks: every listed
	// prompt is tried.
	out := scan(t, (&promptServer{noState: true}).start(t), Options{})
	all, err := json.Marshal(allCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	firstRounds := map[string]int{}
	for _, ex := range out.Exchanges {
		m := ex.Request.Message
		if m == nil || m.Method != "prompts/get" || m.ParamField("requestState") != nil || m.ParamField("inputResponses") != nil {
			continue
		}
		if caps := m.Meta()[wire.MetaClientCapabilities]; string(caps) != string(all) {
			continue
		}
		var name string
		_ = json.Unmarshal(m.ParamField("name"), &name)
		firstRounds[name]++
	}
	for _, name := range []string{"plain", "zeta"} {
		if firstRounds[name] != 1 {
			t.Errorf("prompt %q was got %d times declaring every capability, want 1 (shared by both probes)", name, firstRounds[name])
		}
	}
	// Each probe's own first round, besides the retries that repeat it on purpose.
	if firstRounds["ask"] < 2 {
		t.Errorf("prompt \"ask\" was got %d times declaring every capability, want one first round per probe at least", firstRounds["ask"])
	}
	got := map[string]rules.Status{}
	for _, rr := range out.Result.Rules {
		got[rr.Rule.Name] = rr.Status
	}
	for _, name := range []string{"mrtr-rerequest-missing", "elicitation-decline-handled", "elicitation-response-validated", "form-no-clickable-urls"} {
		if got[name] != rules.Pass {
			t.Errorf("%s: %s, want pass", name, got[name])
		}
	}
}
