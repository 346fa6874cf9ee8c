package active

import (
	"context"
	"fmt"
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
