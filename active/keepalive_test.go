package active

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// countingServer is the fake server behind a listener that counts the connections it accepts.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc((&fakeServer{}).serve))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// TestAScanReusesItsConnections holds issue 17's kept-alive connections: a scan opens far fewer
// connections than it sends requests, because the probes share an idle pool as large as the
// number that run at once; only the probes about connections themselves open their own. The
// same scan with keep-alive switched off opens one per request, which is the yardstick.
func TestAScanReusesItsConnections(t *testing.T) {
	srv, conns := countingServer(t)
	out := scan(t, srv.URL, Options{Origin: "http://allowed.example"})
	kept := conns.Load()

	off, offConns := countingServer(t)
	noKeep := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	outOff := scan(t, off.URL, Options{Origin: "http://allowed.example", Client: noKeep})
	perRequest := offConns.Load()

	t.Logf("kept alive: %d connections for %d exchanges; keep-alive off: %d connections for %d exchanges", kept, len(out.Exchanges), perRequest, len(outOff.Exchanges))
	if perRequest < int64(len(outOff.Exchanges))/2 {
		t.Fatalf("with keep-alive off the scan opened %d connections for %d exchanges: the count is not seeing the connections", perRequest, len(outOff.Exchanges))
	}
	if kept*3 > perRequest {
		t.Errorf("the scan opened %d connections, more than a third of the %d it opens with keep-alive off: connections are not being reused", kept, perRequest)
	}
}
