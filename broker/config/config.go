// Package config is the broker's configuration file: tenant policies, HTTP authentication (issuer,
// canonical URI, verification keys), allowed browser origins, and the fixed principal of stdio
// mode. Files are JSON, decoded exactly (unknown, repeated or differently-cased keys are errors)
// and validated with messages that say what to change; tenant policies are decoded and validated
// by eval's own rules, the ones set_metric_policy applies too.
//
// config must not import the MCP SDK or anything of Sentinel's harness (rules, wire, active,
// passive, proxy, findings, report, tui).
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/internal/strictjson"
)

// MaxFileBytes bounds the config file size.
const MaxFileBytes = 4 << 20

// Config is the whole broker configuration.
type Config struct {
	// Auth configures bearer-token verification for HTTP. Required for `serve --http` unless
	// --dev supplies a minted key.
	Auth *Auth `json:"auth,omitempty"`
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed to call the HTTP endpoint
	// in addition to the canonical URI's own origin. A request with any other Origin gets 403.
	AllowedOrigins []string `json:"allowedOrigins,omitempty"`
	// Stdio is the principal every stdio request acts as: stdio is local and single-tenant.
	Stdio *Stdio `json:"stdio,omitempty"`
	// Tenants are the tenant policies; a tenant without one gets a tool error naming this key.
	Tenants []eval.TenantPolicy `json:"tenants"`
	// Judges are named judge models a tenant's metric policy may choose for its ambiguous band
	// ("judge": "<name>" in the metric's policy); a metric that names none uses the default judge
	// chosen from the environment (docs/scoring.md).
	Judges []Judge `json:"judges,omitempty"`
}

// Judge is one judge model: an Anthropic Messages API endpoint or any OpenAI-compatible
// chat-completions endpoint (a local model server too). The API key is never in the file: it is
// read from the environment variable APIKeyEnv names.
type Judge struct {
	// Name is what metric policies choose it by.
	Name string `json:"name"`
	// Provider is "anthropic" or "openai" (the request and reply shape, not the vendor).
	Provider string `json:"provider"`
	// URL is the full endpoint URL, e.g. https://api.anthropic.com/v1/messages or
	// http://127.0.0.1:8080/v1/chat/completions.
	URL string `json:"url"`
	// Model is the model name the endpoint serves.
	Model string `json:"model"`
	// APIKeyEnv names the environment variable holding the key; empty for an endpoint that takes
	// none (a local server).
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
}

// Auth is the resource-server side of authorization.
type Auth struct {
	// Issuer is the exact iss tokens must carry; it is also the authorization server advertised
	// in the protected-resource metadata.
	Issuer string `json:"issuer"`
	// CanonicalURI is this server's identifier (RFC 8707): absolute, no fragment, e.g.
	// https://broker.example.com/mcp. Tokens must list it in aud.
	CanonicalURI string `json:"canonicalURI"`
	// PublicKeyFile is a PEM file of verification keys; exactly one of it and JWKSFile is set.
	// A relative path is relative to the config file.
	PublicKeyFile string `json:"publicKeyFile,omitempty"`
	// JWKSFile is a JSON Web Key Set file; exactly one of it and PublicKeyFile is set.
	JWKSFile string `json:"jwksFile,omitempty"`
	// Scopes, if any, are advertised in scopes_supported of the metadata document.
	Scopes []string `json:"scopes,omitempty"`
}

// Stdio names the principal of stdio mode.
type Stdio struct {
	Tenant  string `json:"tenant"`
	Subject string `json:"subject"`
}

// Load reads, decodes and validates the config file at path. Relative key paths are resolved
// against the file's directory.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("loading config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("loading config %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("loading config %s: larger than %d bytes", path, MaxFileBytes)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("loading config %s: %w", path, err)
	}
	c.resolvePaths(filepath.Dir(path))
	return c, nil
}

// Keys each config object may have, exactly as spelt.
var (
	configKeys = []string{"auth", "allowedOrigins", "stdio", "judges", "tenants"}
	judgeKeys  = []string{"name", "provider", "url", "model", "apiKeyEnv"}
	authKeys   = []string{"issuer", "canonicalURI", "publicKeyFile", "jwksFile", "scopes"}
	stdioKeys  = []string{"tenant", "subject"}
)

// Parse decodes and validates a config document. Decoding is exact: every key must be spelt as
// documented (encoding/json alone would accept "onTimeOut" for onTimeout and then report the
// choice as missing, or worse, accept "Issuer"), a key given twice is an error, and tenants are
// decoded by eval.DecodeTenantPolicy, the same rule a policy document follows.
func Parse(data []byte) (*Config, error) {
	top, err := strictjson.ParseObject(data)
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	if err := top.CheckKnown(configKeys...); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	var c Config
	for _, sec := range []struct {
		name string
		keys []string
		dst  any
	}{{"auth", authKeys, &c.Auth}, {"stdio", stdioKeys, &c.Stdio}, {"allowedOrigins", nil, &c.AllowedOrigins}} {
		raw, ok := top.Get(sec.name)
		if !ok {
			continue
		}
		if sec.keys != nil {
			o, err := strictjson.ParseObject(raw)
			if err != nil {
				return nil, fmt.Errorf("decoding %s: %w", sec.name, err)
			}
			if err := o.CheckKnown(sec.keys...); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", sec.name, err)
			}
		}
		if err := json.Unmarshal(raw, sec.dst); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", sec.name, err)
		}
	}
	if raw, ok := top.Get("judges"); ok {
		items, err := strictjson.Array(raw)
		if err != nil {
			return nil, fmt.Errorf("decoding judges: %w", err)
		}
		for i, item := range items {
			o, err := strictjson.ParseObject(item)
			if err != nil {
				return nil, fmt.Errorf("decoding judges[%d]: %w", i, err)
			}
			if err := o.CheckKnown(judgeKeys...); err != nil {
				return nil, fmt.Errorf("decoding judges[%d]: %w", i, err)
			}
			var j Judge
			if err := json.Unmarshal(item, &j); err != nil {
				return nil, fmt.Errorf("decoding judges[%d]: %w", i, err)
			}
			c.Judges = append(c.Judges, j)
		}
	}
	if raw, ok := top.Get("tenants"); ok {
		items, err := strictjson.Array(raw)
		if err != nil {
			return nil, fmt.Errorf("decoding tenants: %w", err)
		}
		for i, item := range items {
			p, err := eval.DecodeTenantPolicy(item)
			if err != nil {
				return nil, fmt.Errorf("decoding tenants[%d]: %w", i, err)
			}
			c.Tenants = append(c.Tenants, p)
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *Config) resolvePaths(dir string) {
	if c.Auth == nil {
		return
	}
	for _, p := range []*string{&c.Auth.PublicKeyFile, &c.Auth.JWKSFile} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
}

// Validate reports every problem at once, each naming the key to change.
func (c *Config) Validate() error {
	var errs []error
	if c.Auth != nil {
		errs = append(errs, c.Auth.validate()...)
	}
	for i, o := range c.AllowedOrigins {
		if _, err := NormalizeOrigin(o); err != nil {
			errs = append(errs, fmt.Errorf("allowedOrigins[%d]: %w", i, err))
		}
	}
	if c.Stdio != nil {
		if c.Stdio.Tenant == "" {
			errs = append(errs, errors.New("stdio.tenant: must be set (the tenant every stdio call acts for)"))
		}
		if c.Stdio.Subject == "" {
			errs = append(errs, errors.New("stdio.subject: must be set (who stdio calls act as)"))
		}
	}
	judges := map[string]bool{}
	for i, j := range c.Judges {
		errs = append(errs, j.validate(i, judges)...)
		judges[j.Name] = true
	}
	seen := map[string]bool{}
	for i, t := range c.Tenants {
		if t.TenantID == "" {
			errs = append(errs, fmt.Errorf("tenants[%d].tenantId: must be set", i))
			continue
		}
		if seen[t.TenantID] {
			errs = append(errs, fmt.Errorf("tenants[%d].tenantId: %q appears twice; merge the two policies", i, t.TenantID))
		}
		seen[t.TenantID] = true
		if err := t.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("tenants[%d] (%s): %w", i, t.TenantID, err))
		}
		for k, m := range t.Metrics {
			if m.Judge != "" && !judges[m.Judge] {
				errs = append(errs, fmt.Errorf("tenants[%d].metrics[%d].judge: %q is not one of the configured judges; add it under \"judges\" or remove the field for the default judge", i, k, m.Judge))
			}
		}
	}
	return errors.Join(errs...)
}

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (j Judge) validate(i int, seen map[string]bool) []error {
	var errs []error
	at := fmt.Sprintf("judges[%d]", i)
	switch {
	case j.Name == "":
		errs = append(errs, fmt.Errorf("%s.name: must be set (what metric policies choose it by)", at))
	case seen[j.Name]:
		errs = append(errs, fmt.Errorf("%s.name: %q appears twice; names must be unique", at, j.Name))
	}
	if j.Provider != eval.ProviderAnthropic && j.Provider != eval.ProviderOpenAI {
		errs = append(errs, fmt.Errorf("%s.provider: %q is not known: use %q or %q (any OpenAI-compatible endpoint)", at, j.Provider, eval.ProviderAnthropic, eval.ProviderOpenAI))
	}
	if u, err := url.Parse(j.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("%s.url: %q must be the full http(s) endpoint URL", at, j.URL))
	}
	if j.Model == "" {
		errs = append(errs, fmt.Errorf("%s.model: must be set (the model name the endpoint serves)", at))
	}
	if j.APIKeyEnv != "" && !envNameRe.MatchString(j.APIKeyEnv) {
		errs = append(errs, fmt.Errorf("%s.apiKeyEnv: %q is not an environment variable name (the key itself never goes in this file)", at, j.APIKeyEnv))
	}
	return errs
}

func (a *Auth) validate() []error {
	var errs []error
	if a.Issuer == "" {
		errs = append(errs, errors.New("auth.issuer: must be set (the iss your tokens carry)"))
	}
	if err := ValidateCanonicalURI(a.CanonicalURI); err != nil {
		errs = append(errs, fmt.Errorf("auth.canonicalURI: %w", err))
	}
	switch {
	case a.PublicKeyFile == "" && a.JWKSFile == "":
		errs = append(errs, errors.New("auth: set publicKeyFile or jwksFile (the keys tokens are verified with)"))
	case a.PublicKeyFile != "" && a.JWKSFile != "":
		errs = append(errs, errors.New("auth: set only one of publicKeyFile and jwksFile"))
	}
	return errs
}

// ValidateCanonicalURI checks an RFC 8707 resource identifier: absolute http(s), a host, no
// fragment, no query.
func ValidateCanonicalURI(s string) error {
	if s == "" {
		return errors.New("must be set (this server's URI, e.g. https://broker.example.com/mcp)")
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URI: %w", s, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("%q must be an absolute http or https URI", s)
	}
	if u.Host == "" {
		return fmt.Errorf("%q has no host", s)
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return fmt.Errorf("%q must not have a fragment", s)
	}
	if u.RawQuery != "" {
		return fmt.Errorf("%q must not have a query", s)
	}
	return nil
}

// NormalizeOrigin turns "https://App.example:443/" into the serialised origin
// "https://app.example:443" (scheme and host lower-cased, no path), the form browsers send.
func NormalizeOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%q is not an origin: %w", s, err)
	}
	if u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin: want scheme://host[:port]", s)
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// Policy returns the tenant's policy, and false when the config has none.
func (c *Config) Policy(tenant string) (eval.TenantPolicy, bool) {
	for _, t := range c.Tenants {
		if t.TenantID == tenant {
			return t, true
		}
	}
	return eval.TenantPolicy{}, false
}
