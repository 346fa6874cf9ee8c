package broker

import (
	"context"
	"crypto"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/auth"
	"github.com/mcp-sentinel/sentinel/broker/config"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

const testIssuer = "https://issuer.test"

// env is one running broker over in-process HTTP with a fresh key pair.
type env struct {
	URL      string // canonical URI, the MCP endpoint
	Key      crypto.Signer
	Recorder *tools.MemoryRecorder
	Server   *httptest.Server
	cfg      *config.Config
	v        *auth.Verifier
}

// verifier returns the verifier the running handler uses.
func (e *env) verifier(t testing.TB) *auth.Verifier {
	t.Helper()
	return e.v
}

// testPolicies are the tenants tests use: acme has both metrics, noinj only groundedness.
func testPolicies() *config.Config {
	return &config.Config{Tenants: []eval.TenantPolicy{
		{TenantID: "acme", Aggregation: "strictest", Metrics: []eval.MetricPolicy{
			{Metric: eval.MetricInjection, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailClosed},
			{Metric: eval.MetricGroundedness, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailOpen},
		}},
		{TenantID: "noinj", Aggregation: "strictest", Metrics: []eval.MetricPolicy{
			{Metric: eval.MetricGroundedness, Enabled: true, Threshold: 0.5, OnTimeout: eval.FailOpen},
		}},
	}}
}

// startHTTP starts the broker on 127.0.0.1:0 with a new Ed25519 key and the test scorer.
func startHTTP(t testing.TB, cfg *config.Config) *env {
	t.Helper()
	return startHTTPWith(t, cfg, newTestScorer())
}

// startHTTPWith starts the broker on 127.0.0.1:0 with a new Ed25519 key and the given scorer.
func startHTTPWith(t testing.TB, cfg *config.Config, scorer tools.Scorer) *env {
	t.Helper()
	dir := t.TempDir()
	privPath, pubPath, err := auth.Keygen(dir, auth.AlgEd25519)
	if err != nil {
		t.Fatal(err)
	}
	key, err := auth.LoadSigningKey(privPath)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := auth.LoadKeyFile(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	t.Cleanup(ts.Close)
	e := &env{URL: ts.URL + "/mcp", Key: key, Recorder: &tools.MemoryRecorder{}, Server: ts, cfg: cfg}
	v, err := auth.NewVerifier(auth.VerifierOptions{Issuer: testIssuer, Audience: e.URL, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	e.v = v
	h, err := NewHTTPHandler(HTTPOptions{
		Server:               NewServer(&tools.Core{Scorer: scorer, Policies: cfg, Recorder: e.Recorder}, &ServerOptions{Version: "test"}),
		CanonicalURI:         e.URL,
		Verifier:             v,
		AuthorizationServers: []string{testIssuer},
	})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = h
	return e
}

// token mints a token for tenant acme (or the given tenant) for this server.
func (e *env) token(t testing.TB, mutate func(*auth.MintOptions)) string {
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

// bearerTransport adds a bearer token to every request.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connect opens an SDK client session to the broker with the given token.
func (e *env) connect(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "broker-test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{
		Endpoint:   e.URL,
		HTTPClient: &http.Client{Transport: &bearerTransport{token: token, base: http.DefaultTransport}, Timeout: 30 * time.Second},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting to the broker: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// testScorer is a deterministic stand-in for eval in tests that exercise the transport, not the
// metrics: a response containing "ignore previous instructions" scores 0.9 for injection; a
// response sharing no word with the context scores 0.9 for ungroundedness.
type testScorer struct{}

func newTestScorer() tools.Scorer { return testScorer{} }

func (testScorer) FlagInjection(_ context.Context, in tools.Input, p eval.MetricPolicy) (eval.Verdict, error) {
	score := 0.1
	if strings.Contains(strings.ToLower(in.Response), "ignore previous instructions") {
		score = 0.9
	}
	return verdict(eval.MetricInjection, score, p, nil), nil
}

func (testScorer) CheckGroundedness(_ context.Context, in tools.Input, p eval.MetricPolicy) (eval.Verdict, error) {
	score := 0.9
	var cited []string
	for _, c := range in.Context {
		for _, w := range strings.Fields(strings.ToLower(in.Response)) {
			if len(w) > 3 && strings.Contains(strings.ToLower(c.Content), w) {
				score = 0.1
				cited = append(cited, c.ID)
				break
			}
		}
	}
	return verdict(eval.MetricGroundedness, score, p, cited), nil
}

func verdict(metric string, score float64, p eval.MetricPolicy, cited []string) eval.Verdict {
	o := eval.OutcomePass
	if score >= p.Threshold {
		o = eval.OutcomeBlock
	}
	return eval.Verdict{Metric: metric, Outcome: o, Score: score, Threshold: p.Threshold, Reason: "test scorer",
		CitedContextIDs: cited, DecidedBy: eval.DecidedByHeuristic, MetricVersion: "test-1", LatencyMs: 1,
		Evidence: []eval.Span{{Start: 0, End: 4, Text: "test"}}}
}

func (testScorer) Build(id string, vs []eval.Verdict, _ eval.TenantPolicy) eval.EvaluationResult {
	r := eval.EvaluationResult{RequestID: id, Verdicts: vs, Action: eval.ActionPass, TrustScore: 100, TotalLatencyMs: 1}
	for _, v := range vs {
		if v.Outcome == eval.OutcomeBlock {
			r.Action, r.TrustScore = eval.ActionBlock, 10
		}
	}
	return r
}

// callTool calls a tool and returns the result and its structured content re-decoded.
func callTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
	}
	return res, out
}
