package auth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// WellKnownPrefix is RFC 9728's well-known path for protected-resource metadata.
const WellKnownPrefix = "/.well-known/oauth-protected-resource"

// ResourceMetadata is the RFC 9728 protected-resource metadata document. The spec requires at
// least one authorization server, and RFC 9728 requires resource to equal the identifier the
// metadata URL was derived from (the canonical URI).
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// MetadataPath returns the path-inserted well-known path for canonicalURI: for
// http://h/mcp it is /.well-known/oauth-protected-resource/mcp; for a URI without a path, the
// prefix alone.
func MetadataPath(canonicalURI string) (string, error) {
	u, err := url.Parse(canonicalURI)
	if err != nil {
		return "", fmt.Errorf("parsing canonical URI %q: %w", canonicalURI, err)
	}
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	return WellKnownPrefix + p, nil
}

// MetadataURL returns the absolute URL of the metadata document for canonicalURI.
func MetadataURL(canonicalURI string) (string, error) {
	u, err := url.Parse(canonicalURI)
	if err != nil {
		return "", fmt.Errorf("parsing canonical URI %q: %w", canonicalURI, err)
	}
	if !u.IsAbs() || u.Host == "" || u.Fragment != "" {
		return "", fmt.Errorf("canonical URI %q must be absolute, with a host and no fragment", canonicalURI)
	}
	p, err := MetadataPath(canonicalURI)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: p}).String(), nil
}

// MetadataHandler serves md as JSON on GET (and HEAD); other methods get 405. The document is
// marshalled once, so every response carries the same bytes.
func MetadataHandler(md ResourceMetadata) (http.Handler, error) {
	body, err := json.Marshal(md)
	if err != nil {
		return nil, fmt.Errorf("encoding protected-resource metadata: %w", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	}), nil
}
