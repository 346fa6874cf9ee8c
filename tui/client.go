package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// Deadlines for admin API calls.
const (
	// RequestTimeout bounds one GET to the admin API.
	RequestTimeout = 10 * time.Second
	// IdleTimeout is how long the live stream may stay silent before it is treated as dead; the
	// proxy sends a keepalive every 15 s.
	IdleTimeout = 45 * time.Second
	// ProbeTimeout bounds one POST /probe, a little above the proxy's own limit.
	ProbeTimeout = 6 * time.Minute
	// maxJSONBytes bounds a JSON answer from the admin API.
	maxJSONBytes = 64 << 20
)

// Client talks to a proxy's admin API. It holds no state besides the base URL and the token.
type Client struct {
	base  *url.URL
	http  *http.Client
	token string
}

// WithToken returns a client that sends the admin API's bearer token with every request.
func (c *Client) WithToken(token string) *Client {
	c2 := *c
	c2.token = token
	return &c2
}

// newRequest builds a request to the admin API, with the token.
func (c *Client) newRequest(ctx context.Context, method, path string, q url.Values, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint(path, q), body)
	if err != nil {
		return nil, fmt.Errorf("building %s %s: %w", method, path, err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// statusError says what a non-200 answer means, and what to do about a 401.
func statusError(what string, resp *http.Response) error {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("%s: %s: the admin API wants the proxy's token (sentinel tui reads it from the state file the proxy writes; or pass --admin-token-file)", what, resp.Status)
	}
	return fmt.Errorf("%s: %s: %s", what, resp.Status, strings.TrimSpace(string(msg)))
}

// NewClient returns a client for the admin API at base (http://127.0.0.1:9101). hc nil means a
// client with no overall timeout: every call sets its own deadline.
func NewClient(base string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("admin URL %q: want http://host:port of a running `sentinel proxy` admin API", base)
	}
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: u, http: hc}, nil
}

// URL is the admin API's base URL, for messages.
func (c *Client) URL() string { return c.base.String() }

func (c *Client) endpoint(path string, q url.Values) string {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	u.RawQuery = q.Encode()
	return u.String()
}

// getJSON decodes GET path?q into v and returns the next page's cursor ("" on the last page).
func (c *Client) getJSON(ctx context.Context, path string, q url.Values, v any) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, path, q, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", statusError("GET "+path, resp)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJSONBytes)).Decode(v); err != nil {
		return "", fmt.Errorf("decoding GET %s: %w", path, err)
	}
	return nextCursor(resp), nil
}

// Pages of the admin API: it answers at most these many rows per request and names the next
// page in a Link header, which the client follows up to the caller's limit.
const (
	findingsPage  = 1000
	exchangesPage = 500
)

// nextCursor is the cursor of the page after resp (from its Link: <...>; rel="next"), or "".
func nextCursor(resp *http.Response) string {
	for _, l := range resp.Header.Values("Link") {
		target, params, ok := strings.Cut(l, ";")
		if !ok || !strings.Contains(params, `rel="next"`) {
			continue
		}
		u, err := url.Parse(strings.Trim(strings.TrimSpace(target), "<>"))
		if err == nil {
			return u.Query().Get("cursor")
		}
	}
	return ""
}

// Findings returns up to limit stored findings (negative: all), most recently seen first,
// reading as many pages as that takes.
func (c *Client) Findings(ctx context.Context, limit int) ([]findings.Finding, error) {
	var out []findings.Finding
	cursor := ""
	for {
		page := findingsPage
		if limit >= 0 {
			page = min(page, limit-len(out))
		}
		if page <= 0 {
			return out, nil
		}
		q := url.Values{"limit": {strconv.Itoa(page)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var fs []findings.Finding
		next, err := c.getJSON(ctx, "/findings", q, &fs)
		if err != nil {
			return out, err
		}
		out = append(out, fs...)
		if next == "" || len(fs) == 0 {
			return out, nil
		}
		cursor = next
	}
}

// historyTimeout bounds loading the exchange history, which may carry many bodies.
const historyTimeout = 60 * time.Second

// maxHistoryBytes bounds the history answer; bodies are dropped while it is read, so this
// bounds transfer, not memory.
const maxHistoryBytes = 1 << 30

// ExchangeRows returns up to limit stored exchanges started at or after since, newest first,
// as list rows, with the deprecated or removed features their bodies show in use. The admin
// API sends every exchange with its bodies; they are decoded one at a time and dropped, so
// memory stays proportional to the rows, not the bodies.
func (c *Client) ExchangeRows(ctx context.Context, since time.Time, limit int) ([]Row, []string, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	var rows []Row
	seen := map[string]bool{}
	var features []string
	err := c.eachExchange(ctx, q, func(ex findings.Exchange) bool {
		rows = append(rows, rowOf(ex))
		for _, f := range featuresOf(ex) {
			if !seen[f] {
				seen[f] = true
				features = append(features, f)
			}
		}
		return true
	})
	return rows, features, err
}

// eachExchange streams GET /exchanges?q, page after page, calling fn for each exchange until
// it returns false or q's limit (negative: none) is reached.
func (c *Client) eachExchange(ctx context.Context, q url.Values, fn func(findings.Exchange) bool) error {
	ctx, cancel := context.WithTimeout(ctx, historyTimeout)
	defer cancel()
	limit := -1
	if s := q.Get("limit"); s != "" {
		limit, _ = strconv.Atoi(s)
	}
	seen := 0
	for {
		page := exchangesPage
		if limit >= 0 {
			page = min(page, limit-seen)
		}
		if page <= 0 {
			return nil
		}
		q.Set("limit", strconv.Itoa(page))
		n, next, more, err := c.exchangePage(ctx, q, fn)
		seen += n
		if err != nil || !more || next == "" || n == 0 {
			return err
		}
		q.Set("cursor", next)
	}
}

// exchangePage reads one page of GET /exchanges; more is false once fn asked to stop.
func (c *Client) exchangePage(ctx context.Context, q url.Values, fn func(findings.Exchange) bool) (n int, next string, more bool, err error) {
	req, err := c.newRequest(ctx, http.MethodGet, "/exchanges", q, nil)
	if err != nil {
		return 0, "", false, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, "", false, fmt.Errorf("GET /exchanges: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, "", false, statusError("GET /exchanges", resp)
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxHistoryBytes))
	if _, err := dec.Token(); err != nil {
		return 0, "", false, fmt.Errorf("decoding GET /exchanges: %w", err)
	}
	for dec.More() {
		var ex findings.Exchange
		if err := dec.Decode(&ex); err != nil {
			return n, "", false, fmt.Errorf("decoding GET /exchanges: %w", err)
		}
		n++
		if !fn(ex) {
			return n, "", false, nil
		}
	}
	return n, nextCursor(resp), true, nil
}

// ErrExchangeGone is returned by Exchange when the store no longer has the exchange (pruned by
// the retention).
var ErrExchangeGone = fmt.Errorf("the admin API no longer returns this exchange (pruned)")

// Exchange fetches one exchange with its headers and bodies as stored (listings carry only a
// prefix of each body), by its ID.
func (c *Client) Exchange(ctx context.Context, r Row) (findings.Exchange, error) {
	q := url.Values{"id": {r.ID}, "limit": {"1"}}
	var found *findings.Exchange
	err := c.eachExchange(ctx, q, func(ex findings.Exchange) bool {
		if ex.ID == r.ID {
			found = &ex
			return false
		}
		return true
	})
	if err != nil {
		return findings.Exchange{}, err
	}
	if found != nil {
		return *found, nil
	}
	return findings.Exchange{}, ErrExchangeGone
}

// Events opens the live stream and calls fn for each event until ctx ends, the stream ends or
// stays silent for IdleTimeout, or fn fails. connected is called once the proxy accepted the
// subscription, before any event is read, so a caller can start loading history without a gap;
// it must not block for long (the proxy drops events for a reader that falls behind).
func (c *Client) Events(parent context.Context, connected func() error, fn func(sseEvent) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, "/events", nil, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	idle := time.AfterFunc(RequestTimeout, cancel)
	defer idle.Stop()
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("subscribing to GET /events: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return statusError("subscribing to GET /events", resp)
	}
	idle.Reset(IdleTimeout)
	if err := connected(); err != nil {
		return err
	}
	idle.Reset(IdleTimeout)
	err = readSSE(&idleReader{r: resp.Body, t: idle}, fn)
	switch {
	case parent.Err() != nil:
		return fmt.Errorf("live stream: %w", parent.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("the live stream was silent for %v", IdleTimeout)
	case err != nil:
		return err
	}
	return fmt.Errorf("the proxy closed the live stream")
}

// idleReader pushes the idle deadline forward on every read that returns data.
type idleReader struct {
	r io.Reader
	t *time.Timer
}

func (i *idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.t.Reset(IdleTimeout)
	}
	return n, err
}

// ProbeProgress is one step of a probe run as POST /probe streams it.
type ProbeProgress struct {
	Message string       `json:"message"`
	RuleID  string       `json:"ruleId,omitempty"`
	Status  rules.Status `json:"status,omitempty"`
}

// Probe asks the proxy to run the active prober against its upstream (path "" lets the proxy
// pick its route) and calls progress for each step. It returns the result, or the prober's
// error, or why the run could not be started.
func (c *Client) Probe(ctx context.Context, path string, progress func(ProbeProgress)) (*report.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	var body io.Reader
	if path != "" {
		b, _ := json.Marshal(map[string]string{"path": path})
		body = bytes.NewReader(b)
	}
	req, err := c.newRequest(ctx, http.MethodPost, "/probe", nil, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("POST /probe: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, statusError("POST /probe", resp)
	}
	var res *report.Result
	var runErr error
	err = readSSE(resp.Body, func(ev sseEvent) error {
		switch ev.Name {
		case "progress":
			var p ProbeProgress
			if json.Unmarshal(ev.Data, &p) == nil {
				progress(p)
			}
		case "result":
			res = &report.Result{}
			if err := json.Unmarshal(ev.Data, res); err != nil {
				return fmt.Errorf("decoding the probe result: %w", err)
			}
		case "error":
			var e struct {
				Error string `json:"error"`
			}
			_ = json.Unmarshal(ev.Data, &e)
			runErr = fmt.Errorf("the probe could not run: %s", e.Error)
		}
		return nil
	})
	switch {
	case runErr != nil:
		return nil, runErr
	case res != nil:
		return res, nil
	case err != nil:
		return nil, err
	}
	return nil, fmt.Errorf("POST /probe: the stream ended without a result")
}
