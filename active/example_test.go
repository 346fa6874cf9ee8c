package active_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/report"
)

// A scan of a server that rejects everything with a JSON-RPC error: it is not in the 2026-07-28
// era, so discover-implemented fails and the negative checks stay indeterminate instead of
// passing.
func ExampleScan() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}`)
	}))
	defer srv.Close()
	out, err := active.Scan(context.Background(), active.Options{
		Endpoint: srv.URL,
		Rules:    []string{"discover-implemented", "mcp-method-required"},
		Timeout:  10 * time.Second,
	})
	if err != nil {
		fmt.Println("could not run:", err)
		return
	}
	fmt.Println("era:", out.Result.Era)
	for _, rr := range out.Result.Rules {
		fmt.Println(rr.Rule.Name, rr.Status)
	}
	fmt.Println("gate:", report.GateMust.Check(out.Result) != nil)
	fmt.Println(strings.HasPrefix(out.Result.Notes[0], "Era gate"))
	// Output:
	// era: unknown
	// discover-implemented fail
	// mcp-method-required indeterminate
	// gate: true
	// true
}
