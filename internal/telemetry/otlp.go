package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The OTLP exporter. Spans leave as an OTLP/HTTP export request in binary protobuf, POSTed to
// the traces endpoint, which every OTLP receiver accepts. It is written here rather than taken
// from the OpenTelemetry exporter module because that module links gRPC, the protobuf runtime
// and gRPC-gateway into every binary that imports telemetry, and their package initialisers
// (seventy-odd packages) ran at the start of every sentinel command, traced or not. The encoding
// is the small, stable subset of the OTLP trace messages a span needs; e2e and this package's
// tests decode it with the official protobuf definitions.

// The further standard variables the exporter reads (the signal-specific form wins).
const (
	envHeaders           = "OTEL_EXPORTER_OTLP_HEADERS"
	envTracesHeaders     = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	envTimeout           = "OTEL_EXPORTER_OTLP_TIMEOUT"
	envTracesTimeout     = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"
	envCompression       = "OTEL_EXPORTER_OTLP_COMPRESSION"
	envTracesCompression = "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"
	envCertificate       = "OTEL_EXPORTER_OTLP_CERTIFICATE"
	envTracesCertificate = "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"
	envClientCert        = "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"
	envTracesClientCert  = "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE"
	envClientKey         = "OTEL_EXPORTER_OTLP_CLIENT_KEY"
	envTracesClientKey   = "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY"
)

// defaultExportTimeout is the standard default of OTEL_EXPORTER_OTLP_TIMEOUT.
const defaultExportTimeout = 10 * time.Second

// maxExportAttempts bounds the tries of one batch: a receiver that answers 429, 502, 503 or 504
// (or does not answer) gets the batch again after a short pause, within the export timeout.
const maxExportAttempts = 3

// otlpExporter is an sdktrace.SpanExporter that POSTs each batch to one OTLP/HTTP endpoint.
type otlpExporter struct {
	endpoint string
	header   http.Header
	gzip     bool
	timeout  time.Duration
	client   *http.Client

	mu       sync.Mutex
	shutdown bool
}

var _ sdktrace.SpanExporter = (*otlpExporter)(nil)

// newOTLPExporter configures the exporter from the standard variables, read through getenv.
func newOTLPExporter(getenv func(string) string) (*otlpExporter, error) {
	pick := func(signal, general string) string {
		if v := strings.TrimSpace(getenv(signal)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv(general))
	}
	endpoint := strings.TrimSpace(getenv(EnvTracesEndpoint))
	if endpoint == "" {
		base := strings.TrimSpace(getenv(EnvEndpoint))
		endpoint = strings.TrimSuffix(base, "/") + "/v1/traces"
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the traces endpoint %q is not an http:// or https:// URL", endpoint)
	}
	e := &otlpExporter{endpoint: u.String(), header: http.Header{}, timeout: defaultExportTimeout}
	if err := parseHeaders(pick(envTracesHeaders, envHeaders), e.header); err != nil {
		return nil, err
	}
	if v := pick(envTracesTimeout, envTimeout); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s=%q is not a positive number of milliseconds", envTimeout, v)
		}
		e.timeout = time.Duration(ms) * time.Millisecond
	}
	switch c := strings.ToLower(pick(envTracesCompression, envCompression)); c {
	case "", "none":
	case "gzip":
		e.gzip = true
	default:
		return nil, fmt.Errorf("%s=%q: the compressions are gzip and none", envCompression, c)
	}
	tlsConf, err := exportTLS(pick(envTracesCertificate, envCertificate), pick(envTracesClientCert, envClientCert), pick(envTracesClientKey, envClientKey))
	if err != nil {
		return nil, err
	}
	e.client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsConf, MaxIdleConnsPerHost: 2}}
	return e, nil
}

// parseHeaders reads "key=value,key2=value2" (values URL-encoded) into h.
func parseHeaders(s string, h http.Header) error {
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("%s: %q is not key=value", envHeaders, strings.TrimSpace(pair))
		}
		val, err := url.QueryUnescape(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%s: the value of %q is not URL-encoded: %w", envHeaders, k, err)
		}
		h.Add(k, val)
	}
	return nil
}

// exportTLS builds the client TLS configuration from a CA file and a client certificate pair;
// nil (the system's roots) when none is given.
func exportTLS(caFile, certFile, keyFile string) (*tls.Config, error) {
	if caFile == "" && certFile == "" && keyFile == "" {
		return nil, nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", envCertificate, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s %s holds no PEM certificate", envCertificate, caFile)
		}
		conf.RootCAs = pool
	}
	if (certFile == "") != (keyFile == "") {
		return nil, fmt.Errorf("give both %s and %s, or neither", envClientCert, envClientKey)
	}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("loading the OTLP client certificate: %w", err)
		}
		conf.Certificates = []tls.Certificate{pair}
	}
	return conf, nil
}

// ExportSpans sends one batch, retrying a receiver that is briefly unavailable, within the
// export timeout and ctx.
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	down := e.shutdown
	e.mu.Unlock()
	if down || len(spans) == 0 {
		return nil
	}
	body := encodeExport(spans)
	if e.gzip {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		_, _ = zw.Write(body)
		_ = zw.Close()
		body = z.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	var err error
	for attempt := range maxExportAttempts {
		var retry bool
		if retry, err = e.post(ctx, body); err == nil || !retry {
			return err
		}
		pause := time.NewTimer(time.Duration(attempt+1) * 200 * time.Millisecond)
		select {
		case <-ctx.Done():
			pause.Stop()
			return fmt.Errorf("exporting %d spans: %w (last try: %w)", len(spans), ctx.Err(), err)
		case <-pause.C:
		}
	}
	return err
}

// post sends body once; retry says whether the failure is one worth another try.
func (e *otlpExporter) post(ctx context.Context, body []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.endpoint, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Errorf("building the OTLP export request: %w", err)
	}
	for k, vs := range e.header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return ctx.Err() == nil, fmt.Errorf("sending spans to %s: %w", e.endpoint, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusBadGateway ||
		resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
		return true, fmt.Errorf("the OTLP receiver at %s answered %d", e.endpoint, resp.StatusCode)
	}
	return false, fmt.Errorf("the OTLP receiver at %s refused the spans: %d", e.endpoint, resp.StatusCode)
}

// Shutdown stops further exports; the batcher flushes before it calls this.
func (e *otlpExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	e.shutdown = true
	e.mu.Unlock()
	e.client.CloseIdleConnections()
	return nil
}
