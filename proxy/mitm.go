package proxy

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/elazarl/goproxy"
)

// leafValidity is how long a leaf certificate signed for an intercepted host stays valid.
const leafValidity = 7 * 24 * time.Hour

// mitm intercepts CONNECT tunnels in forward mode: it answers the client's TLS handshake with a
// leaf certificate for the host, signed by the user's own CA, and serves the decrypted
// requests (HTTP/1.1 or HTTP/2, as the client chooses) with the same forwarder as every other
// request, so they are forwarded, flushed and graded alike.
type mitm struct {
	ca     *tls.Certificate
	leaves leafCache
	srv    *http.Server
	ln     *chanListener
	// hosts maps each intercepted connection to the CONNECT authority it was opened for,
	// until the server picks it up.
	hosts sync.Map
	log   *slog.Logger
}

// tunnelInfo is what an intercepted connection was opened for.
type tunnelInfo struct {
	scheme, host string // host:port from CONNECT
}

type tunnelKey struct{}

func newMITM(ca *tls.Certificate, fwd *httputil.ReverseProxy, lg *slog.Logger) *mitm {
	m := &mitm{ca: ca, ln: newChanListener(), log: lg}
	m.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ti, _ := r.Context().Value(tunnelKey{}).(tunnelInfo)
			u := &url.URL{Scheme: ti.scheme, Host: ti.host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
			fwd.ServeHTTP(w, withTarget(r, target{url: u, host: r.Host}))
		}),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if ti, ok := m.hosts.LoadAndDelete(c); ok {
				return context.WithValue(ctx, tunnelKey{}, ti)
			}
			return ctx
		},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() { _ = m.srv.Serve(m.ln) }()
	return m
}

// hijack is the ConnectHijack action goproxy runs for an allowed CONNECT once it has taken
// over the connection: it confirms the tunnel, answers the client's TLS handshake with a leaf
// for the host, and hands the decrypted connection to the server, whose handler is the
// ReverseProxy. (goproxy's own ConnectMitm would read and write the decrypted exchanges by
// hand, and its leaves are valid for a year with a math/rand serial.)
func (m *mitm) hijack(r *http.Request, client net.Conn, _ *goproxy.ProxyCtx) {
	host := hostPort("https", r.Host)
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		_ = client.Close()
		return
	}
	// What the client sent with the CONNECT line (a ClientHello, often) is in the server's
	// buffer, which goproxy does not pass on: the front kept it when goproxy hijacked.
	in := bufferedOf(r)
	if in == nil {
		in = bufio.NewReader(client)
	}
	conn := &bufferedConn{Conn: client, r: in}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	first, err := conn.r.Peek(1)
	_ = conn.SetReadDeadline(time.Time{})
	if err != nil {
		_ = conn.Close()
		return
	}
	var c net.Conn = conn
	ti := tunnelInfo{scheme: "http", host: host}
	if first[0] == 0x16 { // a TLS handshake record: intercept it
		hostname, _, _ := net.SplitHostPort(host)
		c = tls.Server(conn, &tls.Config{
			MinVersion: tls.VersionTLS12,
			NextProtos: []string{"h2", "http/1.1"},
			GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
				name := hello.ServerName
				if name == "" {
					name = hostname
				}
				return m.leaves.Fetch(name, func() (*tls.Certificate, error) { return signLeaf(m.ca, name, time.Now()) })
			},
		})
		ti.scheme = "https"
	}
	m.hosts.Store(c, ti)
	if !m.ln.push(c) {
		m.hosts.Delete(c)
		_ = c.Close()
	}
}

func (m *mitm) close() {
	_ = m.srv.Close()
}

// signLeaf signs a certificate for host (a name or an IP) with the CA: ECDSA P-256, server
// authentication only, valid for leafValidity or until the CA expires.
func signLeaf(ca *tls.Certificate, host string, now time.Time) (*tls.Certificate, error) {
	if ca.Leaf == nil {
		return nil, errors.New("the CA certificate is not parsed (load it with ParseCA)")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating a leaf key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("drawing a serial number: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ca.Leaf.NotAfter.Before(tmpl.NotAfter) {
		tmpl.NotAfter = ca.Leaf.NotAfter
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Leaf, &key.PublicKey, ca.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("signing a leaf certificate for %s: %w", host, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("reading the leaf certificate for %s: %w", host, err)
	}
	return &tls.Certificate{Certificate: [][]byte{der, ca.Certificate[0]}, PrivateKey: key, Leaf: leaf}, nil
}

// bufferedConn is a hijacked connection whose first bytes may already sit in a reader.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// chanListener is a net.Listener fed with connections taken over from CONNECT requests, so
// that one http.Server serves them all.
type chanListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newChanListener() *chanListener {
	return &chanListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// push hands c to the server; false when the listener is closed.
func (l *chanListener) push(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }
