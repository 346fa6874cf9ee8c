package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TenantClaim is the private JWT claim that names the tenant. `broker token mint` writes it.
const TenantClaim = "tenant"

// DefaultLeeway is the clock skew tolerated on exp, nbf and iat when VerifierOptions.Leeway is 0.
const DefaultLeeway = 30 * time.Second

// ErrInvalidToken is returned (wrapped) for every token that fails verification: bad signature,
// wrong issuer or audience, expired, alg none, missing tenant. The HTTP guard maps it to 401 with
// error="invalid_token"; the wrapped text says which check failed, for the log only.
var ErrInvalidToken = errors.New("invalid token")

// VerifierOptions configures a Verifier. Issuer, Audience and Keys are required.
type VerifierOptions struct {
	// Issuer is the exact iss a token must carry (the authorization server).
	Issuer string
	// Audience is this server's canonical URI; a token is accepted only when its aud contains
	// exactly this string (RFC 8707 audience binding).
	Audience string
	// Keys are the verification keys; a token's alg must be one its key supports.
	Keys KeySet
	// Leeway is the tolerated clock skew; 0 means DefaultLeeway, a negative value means none.
	Leeway time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// CacheSize bounds how many verified tokens are remembered (by the SHA-256 of their bytes,
	// never the token), so a client presenting the same token on every call costs one signature
	// check, not one per call. 0 means DefaultVerifiedCacheSize, negative none.
	CacheSize int
}

// DefaultVerifiedCacheSize is VerifierOptions.CacheSize at 0.
const DefaultVerifiedCacheSize = 4096

// Verifier checks bearer JWTs. It is safe for concurrent use.
type Verifier struct {
	opts    VerifierOptions
	methods []string
	cache   *verifiedCache
}

// NewVerifier validates opts and returns a Verifier.
func NewVerifier(opts VerifierOptions) (*Verifier, error) {
	if opts.Issuer == "" {
		return nil, errors.New("creating token verifier: issuer is empty: set auth.issuer in the config")
	}
	if opts.Audience == "" {
		return nil, errors.New("creating token verifier: audience is empty: set auth.canonicalURI in the config")
	}
	if len(opts.Keys) == 0 {
		return nil, errors.New("creating token verifier: no keys: set auth.publicKeyFile or auth.jwksFile in the config")
	}
	if opts.Leeway == 0 {
		opts.Leeway = DefaultLeeway
	} else if opts.Leeway < 0 {
		opts.Leeway = 0
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	var methods []string
	for _, k := range opts.Keys {
		for _, m := range k.Algorithms() {
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	v := &Verifier{opts: opts, methods: methods}
	switch {
	case opts.CacheSize == 0:
		v.cache = newVerifiedCache(DefaultVerifiedCacheSize)
	case opts.CacheSize > 0:
		v.cache = newVerifiedCache(opts.CacheSize)
	}
	return v, nil
}

// Audience returns the canonical URI tokens must be issued for.
func (v *Verifier) Audience() string { return v.opts.Audience }

type claims struct {
	jwt.RegisteredClaims
	Tenant string `json:"tenant"`
	Scope  string `json:"scope,omitempty"`
}

// Verify checks raw (the compact JWS, without "Bearer ") and returns the principal it proves.
// Every failure wraps ErrInvalidToken. ctx is accepted for symmetry with remote key sources; the
// configured keys are local, so Verify does no I/O.
func (v *Verifier) Verify(ctx context.Context, raw string) (Principal, error) {
	if err := ctx.Err(); err != nil {
		return Principal{}, fmt.Errorf("verifying token: %w", err)
	}
	key := sha256.Sum256([]byte(raw))
	if p, ok := v.cache.get(key, v.opts.Now().Add(-v.opts.Leeway)); ok {
		return p, nil
	}
	p, err := v.verify(raw)
	if err != nil {
		return Principal{}, err
	}
	v.cache.put(key, p)
	return p, nil
}

// verify is the full check Verify caches the result of.
func (v *Verifier) verify(raw string) (Principal, error) {
	parser := jwt.NewParser(
		jwt.WithValidMethods(v.methods),
		jwt.WithIssuer(v.opts.Issuer),
		jwt.WithAudience(v.opts.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(v.opts.Leeway),
		jwt.WithTimeFunc(v.opts.Now),
		jwt.WithStrictDecoding(),
	)
	var c claims
	if _, err := parser.ParseWithClaims(raw, &c, v.keyFor); err != nil {
		return Principal{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	if c.Subject == "" {
		return Principal{}, fmt.Errorf("%w: the token has no sub claim", ErrInvalidToken)
	}
	if c.Tenant == "" {
		return Principal{}, fmt.Errorf("%w: the token has no %q claim", ErrInvalidToken, TenantClaim)
	}
	return Principal{
		Tenant:    c.Tenant,
		Subject:   c.Subject,
		Scopes:    strings.Fields(c.Scope),
		ExpiresAt: c.ExpiresAt.Time,
	}, nil
}

// keyFor picks the key a token is checked with: the one its kid names, or with no kid, the
// first key whose type matches the token's alg.
func (v *Verifier) keyFor(t *jwt.Token) (any, error) {
	alg := t.Method.Alg()
	kid, _ := t.Header["kid"].(string)
	for _, k := range v.opts.Keys {
		if kid != "" && k.ID != "" && k.ID != kid {
			continue
		}
		if slices.Contains(k.Algorithms(), alg) {
			return k.Public, nil
		}
	}
	return nil, fmt.Errorf("no configured key for alg %q and kid %q", alg, kid)
}
