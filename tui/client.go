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

// Client talks to a proxy's admin API. It holds no state besides the base URL.
type Client struct {
	base *url.URL
	http *http.Client
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

func (c *Client) getJSON(ctx context.Context, path string, q url.Values, v any) error {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint(path, q), nil)
	if err != nil {
		return fmt.Errorf("building GET %s: %w", path, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, strings.TrimSpace(string(msg)))
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJSONBytes)).Decode(v); err != nil {
		return fmt.Errorf("decoding GET %s: %w", path, err)
	}
	return nil
}

// Findings returns up to limit stored findings (negative: all), most recently seen first.
func (c *Client) Findings(ctx context.Context, limit int) ([]findings.Finding, error) {
	var fs []findings.Finding
	err := c.getJSON(ctx, "/findings", url.Values{"limit": {strconv.Itoa(limit)}}, &fs)
	return fs, err
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

// eachExchange streams GET /exchanges?q, calling fn for each exchange until it returns false.
func (c *Client) eachExchange(ctx context.Context, q url.Values, fn func(findings.Exchange) bool) error {
	ctx, cancel := context.WithTimeout(ctx, historyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint("/exchanges", q), nil)
	if err != nil {
		return fmt.Errorf("building GET /exchanges: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("GET /exchanges: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET /exchanges: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxHistoryBytes))
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("decoding GET /exchanges: %w", err)
	}
	for dec.More() {
		var ex findings.Exchange
		if err := dec.Decode(&ex); err != nil {
			return fmt.Errorf("decoding GET /exchanges: %w", err)
		}
		if !fn(ex) {
			return nil
		}
	}
	return nil
}

// detailWindow is how many exchanges after the wanted one Exchange reads to find it.
const detailWindow = 500

// ErrExchangeGone is returned by Exchange when the store no longer has the exchange (pruned, or
// more than detailWindow newer exchanges with the same key and target followed it).
var ErrExchangeGone = fmt.Errorf("the admin API no longer returns this exchange (pruned, or too many newer ones with the same method)")

// Exchange fetches one exchange with its headers and bodies. The admin API has no lookup by ID,
// so it asks for exchanges of the same target and key started at or after the row's start and
// picks the row's ID.
func (c *Client) Exchange(ctx context.Context, r Row) (findings.Exchange, error) {
	q := url.Values{"since": {r.Started.UTC().Format(time.RFC3339Nano)}, "limit": {strconv.Itoa(detailWindow)}}
	if r.Target != "" {
		q.Set("target", r.Target)
	}
	if r.Key != "" {
		q.Set("key", r.Key)
	}
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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint("/events", nil), nil)
	if err != nil {
		return fmt.Errorf("building GET /events: %w", err)
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
		return fmt.Errorf("subscribing to GET /events: %s", resp.Status)
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint("/probe", nil), body)
	if err != nil {
		return nil, fmt.Errorf("building POST /probe: %w", err)
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
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("POST /probe: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
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
