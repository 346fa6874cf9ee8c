package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/proxy"
)

// Put sentinel proxy in front of an MCP server, send one request through it, and read back
// what grading stored.
func ExampleNew() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	}))
	defer upstream.Close()

	dir, _ := os.MkdirTemp("", "sentinel-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	store, err := findings.Open(ctx, filepath.Join(dir, "findings.db"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()

	route, _ := proxy.ParseRoute(upstream.URL + "/mcp")
	p, err := proxy.New(&proxy.Options{Routes: []proxy.Route{route}, Store: store, Graders: []proxy.Grader{proxy.Passive()}})
	if err != nil {
		fmt.Println(err)
		return
	}
	front := httptest.NewServer(p)
	defer front.Close()

	resp, err := http.Post(front.URL+p.EndpointPath(), "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))

	// Grading runs off the hot path: wait (bounded) until the exchange is stored.
	var exs []findings.Exchange
	for deadline := time.Now().Add(5 * time.Second); len(exs) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		exs, _ = store.Exchanges(ctx, findings.Filter{})
	}
	_ = p.Close(ctx)
	if len(exs) == 0 {
		fmt.Println("not graded in time")
		return
	}
	fmt.Println(len(exs), exs[0].RPCMethod, exs[0].Graded)
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
	// 1 tools/list graded
}
