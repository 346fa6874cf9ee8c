package wire

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestDoRecordsWhatCameBack(t *testing.T) {
	chunk := strings.Repeat("x", 64<<10)
	tests := []struct {
		name        string
		handler     http.HandlerFunc
		lim         Limits
		status      int
		truncatedBy string
		messages    int
		wantErr     bool
	}{
		{
			name: "JSON reply",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`))
			},
			status: 200, messages: 1,
		},
		{
			name: "SSE reply",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"))
			},
			status: 200, messages: 2,
		},
		{
			name: "endless SSE stops at the event cap",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.Copy(io.Discard, r.Body)
				for i := 0; i < 1e6 && r.Context().Err() == nil; i++ {
					if _, err := w.Write([]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\n")); err != nil {
						return
					}
				}
			},
			lim: Limits{MaxSSEEvents: 100}, status: 200, truncatedBy: TruncatedEvents, messages: 100,
		},
		{
			name: "100 MB body stops at the byte cap",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				for i := 0; i < 1600 && r.Context().Err() == nil; i++ {
					if _, err := w.Write([]byte(chunk)); err != nil {
						return
					}
				}
			},
			lim: Limits{MaxBodyBytes: 1 << 20}, status: 200, truncatedBy: TruncatedBytes,
		},
		{
			name: "slow drip stops at the deadline",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				io.Copy(io.Discard, r.Body)
				for stop := time.Now().Add(5 * time.Second); r.Context().Err() == nil && time.Now().Before(stop); {
					w.Write([]byte(":"))
					w.(http.Flusher).Flush()
					select {
					case <-r.Context().Done():
					case <-time.After(20 * time.Millisecond):
					}
				}
			},
			lim: Limits{ReadTimeout: 300 * time.Millisecond}, status: 200, truncatedBy: TruncatedDeadline,
		},
		{
			name: "no answer at all",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body) // so the server notices the client leaving
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			lim: Limits{ReadTimeout: 300 * time.Millisecond}, wantErr: true,
		},
		{
			name: "connection reset",
			handler: func(w http.ResponseWriter, r *http.Request) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.(*net.TCPConn).SetLinger(0)
					conn.Close()
				}
			},
			wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.handler)
			spec := NewCall("tools/list", nil, WithID(1))
			spec.URL = srv.URL
			ex := Do(context.Background(), srv.Client(), spec, tc.lim)
			if ex == nil {
				t.Fatal("Do returned nil")
			}
			if tc.wantErr {
				if ex.Err == "" || ex.Response != nil {
					t.Fatalf("want a transport error, got %s", ex.Summary())
				}
				return
			}
			if ex.Response == nil {
				t.Fatalf("no response: %s", ex.Err)
			}
			if ex.Status() != tc.status || ex.Response.TruncatedBy != tc.truncatedBy || ex.Response.Truncated != (tc.truncatedBy != "") {
				t.Errorf("status %d truncated %v by %q, want %d by %q", ex.Status(), ex.Response.Truncated, ex.Response.TruncatedBy, tc.status, tc.truncatedBy)
			}
			if len(ex.Response.Messages) != tc.messages {
				t.Errorf("%d messages, want %d (%v)", len(ex.Response.Messages), tc.messages, ex.Response.ParseErrors)
			}
			if lim := tc.lim.WithDefaults(); int64(len(ex.Response.Body)) > lim.MaxBodyBytes {
				t.Errorf("kept %d bytes over the %d cap", len(ex.Response.Body), lim.MaxBodyBytes)
			}
			if ex.Request.Message == nil || ex.Request.Message.Method != "tools/list" {
				t.Error("request message not parsed")
			}
		})
	}
}

func TestDoRefusedConnectionIsAnError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	spec := NewCall("server/discover", nil)
	spec.URL = "http://" + addr + "/mcp"
	ex := Do(context.Background(), http.DefaultClient, spec, Limits{ReadTimeout: time.Second})
	if ex.Err == "" || ex.Response != nil {
		t.Fatalf("want a transport error, got %s", ex.Summary())
	}
}

func TestDoRedactsSecretsInTheRecord(t *testing.T) {
	var got string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
		w.WriteHeader(202)
	})
	spec := NewCall("tools/list", nil, WithHeader("Authorization", "Bearer s3cret"), WithHeader("X-Key", "s3cret"))
	spec.URL = srv.URL
	ex := Do(context.Background(), srv.Client(), spec, Limits{}, "s3cret")
	if got != "Bearer s3cret" {
		t.Errorf("server saw %q: the real token must be sent", got)
	}
	if h := ex.Request.Header; h.Get("Authorization") != Redacted || strings.Contains(h.Get("X-Key"), "s3cret") {
		t.Errorf("recorded headers leak the secret: %v", h)
	}
}

func TestNewCallBuildsAWellFormedRequestAndItsBrokenVariants(t *testing.T) {
	spec := NewCall("tools/call", map[string]any{"name": "héllo", "arguments": map[string]any{}}, WithID("x"))
	if spec.Header.Get(HeaderMethod) != "tools/call" || spec.Header.Get(HeaderName) != EncodeHeaderValue("héllo") ||
		spec.Header.Get(HeaderProtocolVersion) != ProtocolVersion || spec.Header.Get(HeaderAccept) != AcceptBoth {
		t.Errorf("headers %v", spec.Header)
	}
	m, err := DecodeMessage(spec.Body)
	if err != nil || !m.IsRequest() || m.IDString() != `"x"` {
		t.Fatalf("body %s: %v", spec.Body, err)
	}
	for _, key := range []string{MetaProtocolVersion, MetaClientCapabilities, MetaClientInfo} {
		if m.Meta()[key] == nil {
			t.Errorf("_meta lacks %s", key)
		}
	}
	broken := NewCall("tools/list", nil, WithoutMetaKey(MetaClientCapabilities), WithoutHeader("mcp-method"), AsBatch())
	if broken.Header.Get(HeaderMethod) != "" || broken.Body[0] != '[' || strings.Contains(string(broken.Body), MetaClientCapabilities) {
		t.Errorf("broken variant: %v %s", broken.Header, broken.Body)
	}
	n := NewNotification("notifications/initialized", nil)
	if m, _ := DecodeMessage(n.Body); !m.IsNotification() {
		t.Errorf("notification body %s", n.Body)
	}
	if g := NewCall("x", nil, WithHTTPMethod("GET")); g.Method != "GET" || g.Body != nil {
		t.Errorf("GET variant %+v", g)
	}
}

func TestDoSendsAHostOverride(t *testing.T) {
	got := make(chan string, 1)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got <- r.Host
		w.WriteHeader(202)
	})
	spec := NewCall("server/discover", nil, WithHeader("Host", "evil.invalid"))
	spec.URL = srv.URL
	Do(context.Background(), srv.Client(), spec, Limits{})
	if h := <-got; h != "evil.invalid" {
		t.Errorf("server saw Host %q", h)
	}
}
