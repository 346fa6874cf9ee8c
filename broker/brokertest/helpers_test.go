package brokertest

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/config"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/broker/store"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/internal/pgtest"
)

// judgeBait is a text eval's deterministic tier finds ambiguous: a strong override phrasing that is
// only quoted scores 0.3 by construction (eval's damped floor), so it goes to the judge.
const judgeBait = `She wrote "ignore all previous instructions" on the whiteboard.`

const (
	testIssuer      = "https://issuer.test"
	protocolVersion = "2026-07-28"
)

// backend is one database both "broker processes" of a test can share, and the audit key they
// sign with.
type backend struct {
	name string
	dsn  string
	pg   *pgtest.Cluster
	key  *audit.Signer
}

// keys trusts b's audit key.
func (b backend) keys() audit.Keys {
	k := audit.Keys{}
	k.Add(b.key.Public())
	return k
}

// eachStore runs fn against a fresh SQLite file and a fresh PostgreSQL cluster.
func eachStore(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		fn(t, backend{name: store.DialectSQLite, dsn: filepath.Join(t.TempDir(), "broker.db"), key: newAuditKey(t)})
	})
	t.Run("postgres", func(t *testing.T) {
		c := pgtest.Start(t)
		fn(t, backend{name: store.DialectPostgres, dsn: c.DSN, pg: c, key: newAuditKey(t)})
	})
}

func newAuditKey(t testing.TB) *audit.Signer {
	k, err := audit.GenerateSigner()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// openStore opens and migrates a store on b, signing with b's key, closed at cleanup.
func openStore(t testing.TB, b backend) store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if b.key == nil {
		b.key = newAuditKey(t)
	}
	st, err := store.Open(ctx, b.dsn, store.WithSigner(b.key))
	if err != nil {
		t.Fatalf("opening the %s store: %v", b.name, err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrating the %s store: %v", b.name, err)
	}
	return st
}

// policies: acme has both metrics at threshold 0.5, so a text the deterministic tier scores
// between 0.25 and 0.75 (judgeBait) goes to a configured judge.
func policies(archive bool) *config.Config {
	return &config.Config{Tenants: []eval.TenantPolicy{
		{TenantID: "acme", Aggregation: "strictest", ArchivePayloads: archive, Metrics: []eval.MetricPolicy{
			{Metric: eval.MetricInjection, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailClosed, MaxJudgeLatencyMs: 5000},
			{Metric: eval.MetricGroundedness, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailOpen},
		}},
		{TenantID: "globex", Aggregation: "strictest", Metrics: []eval.MetricPolicy{
			{Metric: eval.MetricInjection, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailClosed},
		}},
	}}
}

// brokerEnv is one broker process over in-process HTTP.
type brokerEnv struct {
	URL   string
	Key   crypto.Signer
	Store store.Store
	ids   atomic.Int64
}

type envOptions struct {
	scorer  tools.Scorer
	keys    *seal.Keyring
	archive bool
	key     crypto.Signer
	ttl     time.Duration
	// handleTTL is the evaluation handles' lifetime; 0 means the default.
	handleTTL time.Duration
}

// startBroker starts a broker on st (a store opened on a shared backend).
func startBroker(t testing.TB, st store.Store, o envOptions) *brokerEnv {
	t.Helper()
	if o.scorer == nil {
		o.scorer = broker.EvalScorer{Evaluator: &eval.Evaluator{}}
	}
	if o.keys == nil {
		k, err := seal.NewKeyring(seal.GenerateKey("t"))
		if err != nil {
			t.Fatal(err)
		}
		o.keys = k
	}
	if o.key == nil {
		k, err := auth.GenerateKey(auth.AlgEd25519)
		if err != nil {
			t.Fatal(err)
		}
		o.key = k
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	t.Cleanup(ts.Close)
	e := &brokerEnv{URL: ts.URL + "/mcp", Key: o.key, Store: st}
	v, err := auth.NewVerifier(auth.VerifierOptions{Issuer: testIssuer, Audience: e.URL, Keys: auth.KeySet{{Public: o.key.Public()}}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := broker.NewStatefulServer(broker.RunOptions{Config: policies(o.archive), Scorer: o.scorer, Store: st, StateKeys: o.keys, StateTTL: o.ttl, HandleTTL: o.handleTTL})
	if err != nil {
		t.Fatal(err)
	}
	h, err := broker.NewHTTPHandler(broker.HTTPOptions{Server: srv, CanonicalURI: e.URL, Verifier: v, AuthorizationServers: []string{testIssuer}})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = h
	return e
}

// token mints a token for acme/alice unless mutate changes it.
func (e *brokerEnv) token(t testing.TB, mutate func(*auth.MintOptions)) string {
	t.Helper()
	o := auth.MintOptions{Issuer: testIssuer, Audience: e.URL, Tenant: "acme", Subject: "alice", TTL: time.Hour}
	if mutate != nil {
		mutate(&o)
	}
	tok, err := auth.Mint(e.Key, o)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// reply is one HTTP exchange's outcome.
type reply struct {
	Status int
	Result map[string]any
	Raw    json.RawMessage
	Error  *rpcError
	// Body is the raw HTTP body.
	Body string
}

// callParams are tools/call params beyond name and arguments.
type callParams struct {
	caps           map[string]any
	requestState   string
	inputResponses map[string]any
}

// httpClient is shared so connections are reused, as a real client's would be.
var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 128, MaxConnsPerHost: 256}}

// call sends one tools/call as a raw 2026-07-28 request and decodes the reply. Transport
// failures are returned, not fatal, so load tests can count them.
func (e *brokerEnv) call(ctx context.Context, token, tool string, args map[string]any, p callParams) (reply, error) {
	caps := p.caps
	if caps == nil {
		caps = map[string]any{}
	}
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    protocolVersion,
		"io.modelcontextprotocol/clientCapabilities": caps,
	}}
	if p.requestState != "" {
		params["requestState"] = p.requestState
	}
	if p.inputResponses != nil {
		params["inputResponses"] = p.inputResponses
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": e.ids.Add(1), "method": "tools/call", "params": params})
	if err != nil {
		return reply{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return reply{}, err
	}
	r := reply{Status: resp.StatusCode, Body: string(raw)}
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "text/event-stream") {
		return r, nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				raw = []byte(d)
			}
		}
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &env); err != nil {
			return r, fmt.Errorf("decoding reply (status %d): %w: %s", resp.StatusCode, err, raw)
		}
	}
	r.Error, r.Raw = env.Error, env.Result
	if env.Result != nil {
		if err := json.Unmarshal(env.Result, &r.Result); err != nil {
			return r, fmt.Errorf("decoding result: %w", err)
		}
	}
	return r, nil
}

// postRaw posts body as one 2026-07-28 request (headers for method and name) and returns the
// response body.
func postRaw(ctx context.Context, url, token, method, name string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, 16<<20))
}

// mustCall is call that fails the test on a transport error.
func (e *brokerEnv) mustCall(t testing.TB, token, tool string, args map[string]any, p callParams) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := e.call(ctx, token, tool, args, p)
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	return r
}

// structuredContent returns the result's structuredContent object.
func (r reply) structured() map[string]any {
	m, _ := r.Result["structuredContent"].(map[string]any)
	return m
}

func (r reply) isError() bool {
	b, _ := r.Result["isError"].(bool)
	return b
}

// text is the first text content of the result.
func (r reply) text() string {
	c, _ := r.Result["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	m, _ := c[0].(map[string]any)
	s, _ := m["text"].(string)
	return s
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pgtestStart starts a throwaway PostgreSQL cluster (fails, never skips, without binaries).
func pgtestStart(t *testing.T) *pgtest.Cluster { return pgtest.Start(t) }
