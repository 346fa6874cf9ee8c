package proxy

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"
)

// Timeouts of the upstream transport. None bounds a whole exchange: a stream may last as long
// as its peers keep it open, and a client that gives up cancels it.
const (
	dialTimeout           = 30 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	expectContinueTimeout = time.Second
	idleConnTimeout       = 90 * time.Second
)

// NewTransport returns the transport sentinel proxy sends upstream with, and the one to give a
// plain httputil.ReverseProxy that it is compared with. It speaks HTTP/1.1 and HTTP/2 (offered
// in the TLS handshake and spoken when chosen), never uses HTTP_PROXY, and never adds or
// removes compression, so the client's Accept-Encoding and the body cross unchanged. tlsConf
// (nil: the system's roots) verifies HTTPS upstreams.
func NewTransport(tlsConf *tls.Config) *http.Transport {
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	return newTransport(tlsConf, d.DialContext)
}

func newTransport(tlsConf *tls.Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Transport {
	var conf *tls.Config
	if tlsConf != nil {
		conf = tlsConf.Clone()
	}
	t := &http.Transport{
		Proxy:                 nil, // never chain through HTTP_PROXY
		DialContext:           dial,
		TLSClientConfig:       conf,
		ForceAttemptHTTP2:     true, // a custom dialer and TLS config would otherwise turn h2 off
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       idleConnTimeout,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ExpectContinueTimeout: expectContinueTimeout,
		DisableCompression:    true, // forward the client's Accept-Encoding and the body as sent
	}
	t.Protocols = new(http.Protocols)
	t.Protocols.SetHTTP1(true)
	t.Protocols.SetHTTP2(true)
	return t
}
