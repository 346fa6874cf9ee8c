package e2e

import (
	"encoding/json"
	"path/filepath"
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

	// Grading runs off the hot path; give it a bounded moment to settle, then read everything.
	var got map[string]bool
	for deadline := time.Now().Add(10 * time.Second); ; {
		got = storedRules(t, "http://"+admin, token)
		time.Sleep(500 * time.Millisecond)
		again := storedRules(t, "http://"+admin, token)
		if len(again) == len(got) || time.Now().After(deadline) {
			got = again
			break
		}
	}
	// The check means something only if the traffic was graded: require a scan's worth of it.
	var exs []findings.Exchange
	adminPages(t, "http://"+admin+"/exchanges?limit=500", token, func(dec *json.Decoder) error {
		var page []findings.Exchange
		err := dec.Decode(&page)
		exs = append(exs, page...)
		return err
	})
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

func toSet(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}
