package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

// conformantExpectedFindings are the only findings the proxy may record on traffic to the
// conformant fixture: its MRTR tools ask for roots and sampling because the official suite
// requires them (fixtures/conformant/GAPS.md), which the deprecation rule rightly notes.
var conformantExpectedFindings = map[string]bool{
	rules.IDOf("deprecated-features-avoided"): true,
}

// TestProxyFindsNothingOnTheConformantFixture puts a full scan's traffic (well-formed and
// deliberately malformed requests, tool calls, MRTR rounds, listen streams) through `sentinel
// proxy` in front of the conformant fixture, waits until every exchange is graded, and requires
// that the proxy recorded no failing finding beyond the documented one: the passive checks that
// flag the unmigrated fixture do not flag a conformant server.
func TestProxyFindsNothingOnTheConformantFixture(t *testing.T) {
	fx := StartFixture(t, "conformant")
	admin, token := freeAddr(t), filepath.Join(t.TempDir(), "admin-token")
	sentinel := BuildBinary(t, "sentinel")
	px := StartServer(t, sentinel, "proxy", "--upstream", fx.URL, "--listen", "127.0.0.1:0",
		"--admin", admin, "--admin-token-file", token, "--db", filepath.Join(t.TempDir(), "findings.db"), "--log-level", "warn")

	args := append([]string{"probe", "--endpoint", px.URL, "--format", "json", "--timeout", "90s"}, conformantScanFlags...)
	if r := RunBinary(t, sentinel, args...); r.ExitCode != 0 {
		t.Fatalf("probe through the proxy exited %d (want 0, the fixture passes): %s", r.ExitCode, tail(r.Stderr, 20))
	}

	// Grading runs off the hot path, at the lowest CPU priority, in batches written one
	// transaction each: on a loaded machine the last batch can still be grading well after the
	// scan ends, with the queue already empty. Wait until the store holds every exchange the
	// proxy carried (bounded), then read everything.
	exs := settledExchanges(t, "http://"+admin, token)
	got := storedRules(t, "http://"+admin, token)
	// The check means something only if the traffic was graded: require a scan's worth of it.
	graded := 0
	for _, ex := range exs {
		if ex.Graded == "graded" {
			graded++
		}
	}
	if graded < 50 {
		t.Fatalf("only %d of %d exchanges were graded; the scan should put well over 50 through the proxy", graded, len(exs))
	}
	t.Logf("%d of %d exchanges graded", graded, len(exs))

	var unexpected []string
	for id := range got {
		if !conformantExpectedFindings[id] {
			unexpected = append(unexpected, id)
		}
	}
	if len(unexpected) > 0 {
		t.Errorf("the proxy recorded failing findings on the conformant fixture:\n  %s", strings.Join(sortedKeys(toSet(unexpected)), "\n  "))
	}
}

// settledExchanges waits until the exchanges the proxy's store lists are all those it carried
// (sentinel_proxy_exchanges_total, less any it counted lost), twice in a row, and returns them.
func settledExchanges(t *testing.T, admin, token string) []findings.Exchange {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	settled := 0
	for {
		carried, lost := proxyMetric(t, admin, token, "sentinel_proxy_exchanges_total"), proxyMetric(t, admin, token, "sentinel_proxy_lost_total")
		var exs []findings.Exchange
		adminPages(t, admin+"/exchanges?limit=500", token, func(dec *json.Decoder) error {
			var page []findings.Exchange
			err := dec.Decode(&page)
			exs = append(exs, page...)
			return err
		})
		if int64(len(exs))+lost >= carried {
			if settled++; settled == 2 {
				return exs
			}
		} else {
			settled = 0
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy's store holds %d of the %d exchanges it carried (%d lost, %d in batches the store failed to write) after 3 minutes",
				len(exs), carried, lost, proxyMetric(t, admin, token, "sentinel_proxy_store_errors_total"))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// proxyMetric reads one unlabelled counter or gauge from the admin API's /metrics.
func proxyMetric(t *testing.T, admin, token, name string) int64 {
	t.Helper()
	tok, err := os.ReadFile(token)
	if err != nil {
		t.Fatalf("reading the admin token: %v", err)
	}
	body := adminGet(t, admin+"/metrics", strings.TrimSpace(string(tok)), http.StatusOK)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatalf("%s on /metrics: %q is not a count", name, v)
			}
			return n
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

func toSet(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}
