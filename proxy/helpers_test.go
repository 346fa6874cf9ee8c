package proxy

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
)

// rig is a proxy in front of an upstream, both httptest servers on loopback.
type rig struct {
	upstream *httptest.Server
	proxy    *Proxy
	front    *httptest.Server
	store    findings.Store
}

func newRig(t *testing.T, upstream http.Handler, opts Options) *rig {
	t.Helper()
	up := httptest.NewServer(upstream)
	t.Cleanup(up.Close)
	return newRigFor(t, up, opts)
}

func newRigFor(t *testing.T, up *httptest.Server, opts Options) *rig {
	t.Helper()
	store, err := findings.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"), nil)
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	u, _ := url.Parse(up.URL)
	if opts.Routes == nil { // an empty, non-nil list means no route: forward mode only
		opts.Routes = []Route{{Prefix: "/", Upstream: u}}
	}
	opts.Store = store
	p, err := New(&opts)
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	t.Cleanup(func() { _ = p.Close(t.Context()) })
	return &rig{upstream: up, proxy: p, front: front, store: store}
}

// waitFor polls cond until it holds or a bounded wait ends; it fails the test with what. The
// bound is generous (a race-enabled run on a loaded 2-core machine grades slowly): it only
// delays a failure, never a pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// exchanges reads the stored exchanges of the rig.
func (r *rig) exchanges(t *testing.T) []findings.Exchange {
	t.Helper()
	exs, err := r.store.Exchanges(t.Context(), findings.Filter{Limit: -1})
	if err != nil {
		t.Fatalf("Exchanges() = %v", err)
	}
	return exs
}

func urlParse(s string) (*url.URL, error) { return url.Parse(s) }
