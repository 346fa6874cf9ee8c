package proxy

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestTwentyThousandSequentialRepliesArriveWhole is the regression test of golang/go#40747 as
// the proxy met it: one keep-alive client sends 20,000 requests one after another, each with a
// body larger than the transport's write buffer (so its last bytes reach the upstream before
// the transport's confirming read) and a reply long enough to be cut. A tap that reads the
// request body past its end fails that read on the body net/http has closed, the transport drops
// the upstream connection, and the reply is cut; about 1 in 90 was. Every reply must arrive
// whole.
func TestTwentyThousandSequentialRepliesArriveWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 requests")
	}
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("r", 16<<10) + `"}]}}`)
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
	})
	r := newRig(t, up, Options{Graders: []Grader{Passive()}})
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"text":"` + strings.Repeat("q", 8<<10) + `"}}}`
	const n = 20000
	var failures []string
	for i := range n {
		resp, err := client.Post(r.front.URL+"/mcp", "application/json", strings.NewReader(call))
		if err != nil {
			failures = append(failures, err.Error())
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			failures = append(failures, "reading reply "+itoa(i)+": "+err.Error())
		case resp.StatusCode != http.StatusOK || !bytes.Equal(b, reply):
			failures = append(failures, "reply "+itoa(i)+": status "+itoa(resp.StatusCode)+", "+itoa(len(b))+" bytes")
		}
		if len(failures) > 20 {
			break
		}
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d sequential replies failed or were cut, want 0; first: %s", len(failures), n, strings.Join(failures[:min(5, len(failures))], "; "))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
