package proxy

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
)

// Route sends requests whose path starts with Prefix to Upstream (reverse mode). The upstream
// URL's path is the endpoint: after the prefix is removed, an empty path, "/" or that same path
// goes to the upstream URL exactly, and any other path goes to the upstream's host unchanged.
// So with `--upstream http://host/mcp`, clients may use http://proxy/ or http://proxy/mcp, and
// with `--route /a=http://host/mcp`, http://proxy/a or http://proxy/a/mcp.
type Route struct {
	Prefix   string
	Upstream *url.URL
}

// ParseRoute reads "PREFIX=URL" (the --route flag) or a bare URL (prefix "/").
func ParseRoute(s string) (Route, error) {
	prefix, raw, ok := strings.Cut(s, "=")
	if !ok {
		prefix, raw = "/", s
	}
	if !strings.HasPrefix(prefix, "/") {
		return Route{}, fmt.Errorf("route %q: the prefix must start with /, as in /a=http://127.0.0.1:8080", s)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Route{}, fmt.Errorf("route %q: the upstream must be an http(s) URL with a host, as in http://127.0.0.1:8080/mcp", s)
	}
	return Route{Prefix: prefix, Upstream: u}, nil
}

// routes picks the longest matching prefix.
type routes []Route

func newRoutes(rs []Route) routes {
	out := append(routes(nil), rs...)
	sort.Slice(out, func(i, j int) bool { return len(out[i].Prefix) > len(out[j].Prefix) })
	return out
}

// match returns the upstream URL for a relative request path in its escaped form (as the
// client sent it, %2F and all) and query, or false. The upstream gets the path exactly as
// escaped: a proxy that decodes %2F into / changes which resource is asked for.
func (rs routes) match(escapedPath, rawQuery string) (*url.URL, bool) {
	for _, r := range rs {
		p := strings.TrimSuffix(r.Prefix, "/")
		if p != "" && escapedPath != p && !strings.HasPrefix(escapedPath, p+"/") {
			continue
		}
		rest := strings.TrimPrefix(escapedPath, p)
		u := *r.Upstream
		switch rest {
		case "", "/", u.EscapedPath():
			if u.Path == "" {
				u.Path, u.RawPath = "/", ""
			}
		default:
			path, err := url.PathUnescape(rest)
			if err != nil {
				path = rest
			}
			u.Path, u.RawPath = path, rest
		}
		u.RawQuery = rawQuery
		return &u, true
	}
	return nil, false
}

// names reports whether some route's upstream is host (host:port as in an absolute-form
// request), and returns that route's upstream.
func (rs routes) names(scheme, host string) (*url.URL, bool) {
	for _, r := range rs {
		if strings.EqualFold(hostPort(r.Upstream.Scheme, r.Upstream.Host), hostPort(scheme, host)) {
			return r.Upstream, true
		}
	}
	return nil, false
}

// hostPort spells host with its port, the scheme's default when it has none.
func hostPort(scheme, host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "80"
	if strings.EqualFold(scheme, "https") {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// Endpoint is the path on the proxy listener that reaches the route's upstream endpoint: the
// upstream's own path under a "/" prefix, the prefix otherwise.
func (r Route) Endpoint() string {
	if strings.TrimSuffix(r.Prefix, "/") == "" {
		if r.Upstream.Path == "" {
			return "/"
		}
		return r.Upstream.Path
	}
	return r.Prefix
}
