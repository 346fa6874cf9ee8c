package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkProxiedSSEStream measures one event stream (sseBenchEvents progress notifications
// and a result, each flushed by the upstream) through sentinel proxy with grading on, one
// client at a time. The measurement's SSE row is where sentinel's CPU per request was furthest
// from the plain proxy's (1.89x), so this is the loop to profile that in: cpu-µs/op is the
// process's CPU per stream, grading and storing included, and cpu-µs/event that divided by the
// events. Compare with BenchmarkBareReverseProxySSEStream at -cpu 1.
func BenchmarkProxiedSSEStream(b *testing.B) {
	_, sentinel, _, p := measureTargets(b)
	benchStreams(b, strings.TrimSuffix(sentinel, "/mcp")+"/sse", p)
}

// BenchmarkBareReverseProxySSEStream is its baseline: the same stream through
// httputil.ReverseProxy.
func BenchmarkBareReverseProxySSEStream(b *testing.B) {
	_, _, bare, _ := measureTargets(b)
	benchStreams(b, strings.TrimSuffix(bare, "/mcp")+"/sse", nil)
}

// benchStreams opens b.N event streams at url from one client, each read to its end and checked
// whole, with the recording waited for as benchCalls does (benchRecorded).
func benchStreams(b *testing.B, url string, p *Proxy) {
	c := measureClient()
	stream := func() error {
		req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(measureCall)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		events := 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				events++
			}
		}
		if err := sc.Err(); err != nil {
			return err
		}
		if events != sseBenchEvents+1 {
			return fmt.Errorf("%d events, want %d", events, sseBenchEvents+1)
		}
		return nil
	}
	cpu := benchRecorded(b, p, stream)
	b.ReportMetric(cpu/float64(sseBenchEvents+1), "cpu-µs/event")
}
