package proxy

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// DefaultAdminAddr is where the admin API listens unless told otherwise: loopback, on its own
// listener, never on the proxy listener.
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
	// Token is the bearer token every endpoint but /healthz requires; required (see
	// internal/adminstate for drawing one and telling readers of it).
	Token string
	// Prober runs POST /probe; nil answers 501.
	Prober Prober
	// ProxyURL is the proxy listener's base URL (http://127.0.0.1:9100); probes are sent there.
	ProxyURL string
	// Endpoint is the default path POST /probe probes on ProxyURL (Proxy.EndpointPath).
	Endpoint string
	// ProbeTimeout bounds one probe run; 0 means DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// Logger receives errors; nil discards.
	Logger *slog.Logger
}

// DefaultProbeTimeout bounds a POST /probe run.
const DefaultProbeTimeout = 5 * time.Minute

// Admin returns the proxy's admin API handler (NewAdmin over its pipeline, probing its first
// route by default).
func (p *Proxy) Admin(opts AdminOptions) (http.Handler, error) {
	if opts.Endpoint == "" {
		opts.Endpoint = p.endpoint
	}
	return NewAdmin(p.pipe, opts)
}

// admin serves the admin API over one pipeline.
type admin struct {
	pipe  *Pipeline
	opts  AdminOptions
	token []byte
	log   *slog.Logger
	// lists bounds the listings served at once: each holds at most a page in memory.
	lists chan struct{}
}

// maxConcurrentLists bounds GET /findings and /exchanges served at once.
const maxConcurrentLists = 4

// NewAdmin returns the admin API handler over a pipeline, for the proxy or any other front end
// that feeds one (a stdio shim): GET /findings and /exchanges (paged JSON), GET /events (the
// live stream), POST /probe, GET /metrics, all behind the bearer token; GET /healthz open.
// Serve it on its own listener: the proxy listener never serves admin paths.
func NewAdmin(pipe *Pipeline, opts AdminOptions) (http.Handler, error) {
	if pipe == nil {
		return nil, errors.New("building the admin API: a pipeline is required")
	}
	if len(opts.Token) < 16 {
		return nil, errors.New("building the admin API: a bearer token of at least 16 characters is required")
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	a := &admin{pipe: pipe, opts: opts, token: []byte(opts.Token), log: opts.Logger, lists: make(chan struct{}, maxConcurrentLists)}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", a.auth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if err := pipe.metrics.writeTo(w, pipe.budget); err != nil {
			a.log.Debug("writing /metrics", logError, err)
		}
	})))
	mux.Handle("GET /findings", a.auth(a.limited(a.serveFindings)))
	mux.Handle("GET /exchanges", a.auth(a.limited(a.serveExchanges)))
	mux.Handle("GET /events", a.auth(http.HandlerFunc(a.serveEvents)))
	mux.Handle("POST /probe", a.auth(http.HandlerFunc(a.serveProbe)))
	return mux, nil
}

// auth requires "Authorization: Bearer <token>", compared in constant time.
func (a *admin) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), a.token) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sentinel admin"`)
			http.Error(w, "the admin API needs the proxy's token: sentinel tui finds it in the state file the proxy writes; scripts send Authorization: Bearer $(cat TOKEN_FILE) with --admin-token-file", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limited serves at most maxConcurrentLists listings at once; others wait their turn.
func (a *admin) limited(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case a.lists <- struct{}{}:
			defer func() { <-a.lists }()
			h(w, r)
		case <-r.Context().Done():
		}
	})
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
	frame, err := Frame(Event{Type: name, Data: v})
	if err != nil {
		return err
	}
	if _, err := s.w.Write(frame); err != nil {
		return fmt.Errorf("writing a %s event: %w", name, err)
	}
	return s.c.Flush()
}

// keepaliveEvery is how often a silent live stream sends a comment.
const keepaliveEvery = 15 * time.Second

// liveWriteTimeout is how long one write to a live-stream reader may block before the reader
// is dropped.
const liveWriteTimeout = 10 * time.Second

// maxCoalesce bounds how many queued batches one write to a live-stream reader carries.
const maxCoalesce = 64

func (a *admin) serveEvents(w http.ResponseWriter, r *http.Request) {
	sub, err := a.pipe.hub.Subscribe()
	if err != nil {
		w.Header().Set("Retry-After", "5")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer sub.Cancel()
	s := startSSE(w)
	keepalive := time.NewTicker(keepaliveEvery)
	defer keepalive.Stop()
	var buf []byte
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sub.Done:
			if sub.WasDropped() {
				_, _ = w.Write([]byte(": dropped: this reader fell behind; reconnect and reload /exchanges\n\n"))
				_ = s.c.Flush()
			}
			return
		case f := <-sub.Frames:
			// Write what else is queued with it, in one write and one flush.
			buf = append(buf[:0], f...)
		more:
			for range maxCoalesce {
				select {
				case f := <-sub.Frames:
					buf = append(buf, f...)
				default:
					break more
				}
			}
			// A reader that takes no bytes for liveWriteTimeout is as good as gone.
			_ = s.c.SetWriteDeadline(time.Now().Add(liveWriteTimeout))
			_, err := w.Write(buf)
			if err == nil {
				err = s.c.Flush()
			}
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					a.pipe.metrics.subscribersDropped.Add(1)
				}
				return
			}
		case <-keepalive.C:
			if _, err := w.Write([]byte(": keepalive\n\n")); err != nil || s.c.Flush() != nil {
				return
			}
		}
	}
}

func (a *admin) serveProbe(w http.ResponseWriter, r *http.Request) {
	opts := a.opts
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
		body.Path = opts.Endpoint
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
