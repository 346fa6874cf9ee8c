package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
)

// HostPattern is one --allow-host entry: a host name, "*.domain" (its subdomains, not the
// domain itself), an IP literal, or "*" (any host), each optionally with ":port" (without a
// port any port matches). A pattern without "*" names its host exactly and reaches whatever
// it resolves to; a wildcard pattern never reaches a loopback, private, link-local or
// unspecified address, so "*" is not a way into the network of whoever runs the proxy.
type HostPattern struct {
	host string // lower case; "*" or "*.suffix" for wildcards
	port string // "" for any
}

// ParseHostPattern reads one --allow-host value.
func ParseHostPattern(s string) (HostPattern, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return HostPattern{}, errors.New("--allow-host: empty pattern (give a host such as api.example.com, *.example.com:443 or *)")
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.Count(s, ":") == 1 {
		return HostPattern{}, fmt.Errorf("--allow-host %q: %w", s, err)
	}
	if port != "" && port != "*" {
		for _, c := range port {
			if c < '0' || c > '9' {
				return HostPattern{}, fmt.Errorf("--allow-host %q: the port must be a number or *", s)
			}
		}
	}
	if port == "*" {
		port = ""
	}
	host = strings.Trim(host, "[]")
	switch {
	case host == "*":
	case strings.HasPrefix(host, "*."):
		if strings.Contains(host[2:], "*") || host[2:] == "" {
			return HostPattern{}, fmt.Errorf("--allow-host %q: only a leading *. is allowed", s)
		}
	case strings.Contains(host, "*"):
		return HostPattern{}, fmt.Errorf("--allow-host %q: only a leading *. is allowed", s)
	}
	return HostPattern{host: host, port: port}, nil
}

// wildcard reports whether the pattern names no host exactly.
func (h HostPattern) wildcard() bool { return strings.HasPrefix(h.host, "*") }

// matches reports whether the pattern permits host:port (host lower case, unbracketed).
func (h HostPattern) matches(host, port string) bool {
	if h.port != "" && h.port != port {
		return false
	}
	switch {
	case h.host == "*":
		return true
	case strings.HasPrefix(h.host, "*."):
		return strings.HasSuffix(host, h.host[1:])
	}
	return host == h.host
}

// forwardPolicy decides which hosts forward mode may reach.
type forwardPolicy struct {
	allow     []HostPattern
	protected func(addr string) bool
	dialer    net.Dialer
	resolver  *net.Resolver
}

func newForwardPolicy(patterns []string, protected func(string) bool) (*forwardPolicy, error) {
	if len(patterns) == 0 {
		return nil, errors.New("forward mode needs at least one --allow-host pattern (such as api.example.com:443, *.example.com, or * for any public host)")
	}
	fp := &forwardPolicy{protected: protected, dialer: net.Dialer{Timeout: dialTimeout}, resolver: net.DefaultResolver}
	for _, s := range patterns {
		h, err := ParseHostPattern(s)
		if err != nil {
			return nil, err
		}
		fp.allow = append(fp.allow, h)
	}
	return fp, nil
}

// match returns whether host:port is allowed, and whether only by a wildcard.
func (fp *forwardPolicy) match(host, port string) (allowed, exact bool) {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, h := range fp.allow {
		if h.matches(host, port) {
			allowed = true
			if !h.wildcard() {
				return true, true
			}
		}
	}
	return allowed, false
}

// check returns why a forward-mode request to host (as in the request, port optional) is
// refused, or "".
func (fp *forwardPolicy) check(scheme, host string) string {
	addr := hostPort(scheme, host)
	h, port, err := net.SplitHostPort(addr)
	if err != nil || h == "" {
		return fmt.Sprintf("%q is not a host to forward to", host)
	}
	if fp.protected(addr) {
		return "that address is this proxy's own listener"
	}
	if ok, _ := fp.match(h, port); !ok {
		return fmt.Sprintf("forwarding to %s is not allowed (start sentinel proxy with --allow-host %s)", addr, addr)
	}
	return ""
}

// errBlockedAddress is a forward-mode dial refused by the policy.
var errBlockedAddress = errors.New("forward mode refuses this address")

// dial connects to addr for forward mode, checking what the name resolves to: a wildcard
// pattern never reaches an internal address, and nothing reaches the proxy's own listeners.
// Resolving here and dialing the checked address leaves no gap for a name to change between
// the check and the connection.
func (fp *forwardPolicy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("forwarding to %s: %w", addr, err)
	}
	allowed, exact := fp.match(host, port)
	if !allowed {
		return nil, fmt.Errorf("forwarding to %s: %w: no --allow-host pattern permits it", addr, errBlockedAddress)
	}
	ips, err := fp.resolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("forwarding to %s: %w", addr, err)
	}
	lastErr := fmt.Errorf("forwarding to %s: %w: it resolves to no address", addr, errBlockedAddress)
	for _, ip := range ips {
		target := net.JoinHostPort(ip.IP.String(), port)
		switch {
		case fp.protected(target):
			lastErr = fmt.Errorf("forwarding to %s: %w: it is this proxy's own listener", addr, errBlockedAddress)
			continue
		case !exact && internalIP(ip.IP):
			lastErr = fmt.Errorf("forwarding to %s: %w: %s is an internal address, reachable only through an --allow-host pattern that names the host exactly", addr, errBlockedAddress, ip.IP)
			continue
		}
		c, err := fp.dialer.DialContext(ctx, network, target)
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// internalIP reports whether ip belongs to this machine or its private networks.
func internalIP(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || isLocalIP(ip)
}

var localIPs = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			out[n.IP.String()] = true
		}
	}
	return out
})

// isLocalIP reports whether ip is one of this machine's own addresses.
func isLocalIP(ip net.IP) bool { return localIPs()[ip.String()] }

// transport is forward mode's upstream transport: its own connection pool (a connection
// dialed for a reverse-mode route is never reused for a forward-mode request), every dial
// through the policy.
func (fp *forwardPolicy) transport(tlsConf *tls.Config) *http.Transport {
	return newTransport(tlsConf, fp.dial)
}
