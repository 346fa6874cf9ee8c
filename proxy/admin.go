package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// DefaultAdminAddr is where the admin API listens unless told otherwise: loopback, apart from
// the proxy listener so that proxied clients cannot reach it.
const DefaultAdminAddr = "127.0.0.1:9101"

// Prober runs the active prober against an endpoint. The proxy calls it with an endpoint on its
// own listener, so the probe's exchanges cross the proxy and are graded too. cmd/sentinel wires
// the real prober; tests use a fake.
type Prober interface {
	Probe(ctx context.Context, endpoint string, progress func(ProbeProgress)) (*report.Result, error)
}

// ProbeProgress is one step of a probe run, streamed to the POST /probe caller.
type ProbeProgress struct {
	Message string       `json:"message"`
	RuleID  string       `json:"ruleId,omitempty"`
	Status  rules.Status `json:"status,omitempty"`
}

// AdminOptions configures the admin API.
type AdminOptions struct {
	// Prober runs POST /probe; nil answers 501.
	Prober Prober
	// ProxyURL is the proxy listener's base URL (http://127.0.0.1:9100); probes are sent there.
	ProxyURL string
	// ProbeTimeout bounds one probe run; 0 means DefaultProbeTimeout.
	ProbeTimeout time.Duration
}

// DefaultProbeTimeout bounds a POST /probe run.
const DefaultProbeTimeout = 5 * time.Minute

// Admin returns the admin API handler: GET /findings, GET /exchanges (JSON, filtered by since,
// rule, level, target, key, id (an exchange ID), limit), GET /events (live SSE of exchanges and findings), POST /probe
// (runs the prober through the proxy, streaming progress as SSE), GET /metrics, GET /healthz.
func (p *Proxy) Admin(opts AdminOptions) http.Handler {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if err := p.metrics.writeTo(w); err != nil {
			p.log.Debug("writing /metrics", logError, err)
		}
	})
	mux.HandleFunc("GET /findings", func(w http.ResponseWriter, r *http.Request) {
		f, err := filterFrom(r.URL.Query(), time.Now())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fs, err := p.store.Findings(r.Context(), f)
		writeJSON(w, nonNil(fs), err)
	})
	mux.HandleFunc("GET /exchanges", func(w http.ResponseWriter, r *http.Request) {
		f, err := filterFrom(r.URL.Query(), time.Now())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		exs, err := p.store.Exchanges(r.Context(), f)
		writeJSON(w, nonNil(exs), err)
	})
	mux.HandleFunc("GET /events", p.serveEvents)
	mux.HandleFunc("POST /probe", func(w http.ResponseWriter, r *http.Request) { p.serveProbe(w, r, opts) })
	return mux
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func writeJSON(w http.ResponseWriter, v any, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// ParseSince reads a --since or ?since= value: an RFC 3339 time or a duration back from now.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("since %q: give an RFC 3339 time (2026-07-28T12:00:00Z) or a duration (24h)", s)
	}
	return now.Add(-d), nil
}

// ParseLevel reads a level filter, accepting MUST-NOT for MUST NOT.
func ParseLevel(s string) (rules.Level, error) {
	if s == "" {
		return "", nil
	}
	l := rules.Level(strings.ReplaceAll(strings.ToUpper(s), "-", " "))
	if !l.Valid() {
		return "", fmt.Errorf("level %q: use MUST, MUST-NOT, SHOULD or SHOULD-NOT", s)
	}
	return l, nil
}

func filterFrom(q url.Values, now time.Time) (findings.Filter, error) {
	var f findings.Filter
	var err error
	if f.Since, err = ParseSince(q.Get("since"), now); err != nil {
		return f, err
	}
	if f.Level, err = ParseLevel(q.Get("level")); err != nil {
		return f, err
	}
	f.Rule, f.Target, f.Key, f.ExchangeID = q.Get("rule"), q.Get("target"), q.Get("key"), q.Get("id")
	if s := q.Get("limit"); s != "" {
		if f.Limit, err = strconv.Atoi(s); err != nil {
			return f, fmt.Errorf("limit %q: give a whole number", s)
		}
	}
	return f, nil
}

// sse writes Server-Sent Events, flushing each one.
type sse struct {
	w http.ResponseWriter
	c *http.ResponseController
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, c: http.NewResponseController(w)}
	_ = s.c.Flush()
	return s
}

func (s *sse) send(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding a %s event: %w", name, err)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return fmt.Errorf("writing a %s event: %w", name, err)
	}
	return s.c.Flush()
}

func (p *Proxy) serveEvents(w http.ResponseWriter, r *http.Request) {
	ch, cancel := p.hub.subscribe()
	defer cancel()
	s := startSSE(w)
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case e := <-ch:
			if s.send(e.Type, e.Data) != nil {
				return
			}
		case <-keepalive.C:
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil || s.c.Flush() != nil {
				return
			}
		}
	}
}

func (p *Proxy) serveProbe(w http.ResponseWriter, r *http.Request, opts AdminOptions) {
	if opts.Prober == nil {
		http.Error(w, "this proxy was started without a prober", http.StatusNotImplemented)
		return
	}
	var body struct {
		Path string `json:"path"`
	}
	if r.ContentLength != 0 {
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil {
			http.Error(w, "reading the probe request: "+err.Error()+` (send {"path":"/mcp"} or nothing)`, http.StatusBadRequest)
			return
		}
	}
	if body.Path == "" {
		body.Path = p.endpoint
	}
	if body.Path == "" || !strings.HasPrefix(body.Path, "/") {
		http.Error(w, `give the path to probe on the proxy listener: {"path":"/mcp"}`, http.StatusBadRequest)
		return
	}
	endpoint := strings.TrimSuffix(opts.ProxyURL, "/") + body.Path
	ctx, cancel := context.WithTimeout(r.Context(), opts.ProbeTimeout)
	defer cancel()
	s := startSSE(w)
	progress := make(chan ProbeProgress, 64)
	type outcome struct {
		res *report.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := opts.Prober.Probe(ctx, endpoint, func(pp ProbeProgress) {
			select {
			case progress <- pp:
			case <-ctx.Done():
			}
		})
		done <- outcome{res, err}
	}()
	for {
		select {
		case pp := <-progress:
			_ = s.send("progress", pp)
		case o := <-done:
			for drained := false; !drained; {
				select {
				case pp := <-progress:
					_ = s.send("progress", pp)
				default:
					drained = true
				}
			}
			if o.err != nil {
				_ = s.send("error", map[string]string{"error": o.err.Error()})
				return
			}
			_ = s.send("result", o.res)
			return
		}
	}
}
