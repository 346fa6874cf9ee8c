package auth

import (
	"context"
	"log/slog"
	"time"
)

// Principal is who a request acts for, as established by a validated token (HTTP) or by
// configuration (stdio). It deliberately has no field for the token itself.
type Principal struct {
	// Tenant selects the tenant policy; it comes from the token's tenant claim, never from a
	// tool argument.
	Tenant string
	// Subject is the token's sub claim (the user or service the client acts for).
	Subject string
	// Scopes are the token's scope claim, split on spaces; empty when the token has none.
	Scopes []string
	// ExpiresAt is the token's exp; zero for a configured (stdio) principal, which does not expire.
	ExpiresAt time.Time
}

// LogValue renders the principal for slog without anything that could be a credential.
func (p Principal) LogValue() slog.Value {
	return slog.GroupValue(slog.String("tenant", p.Tenant), slog.String("subject", p.Subject))
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p. Only the HTTP guard and the stdio runner call it: they are
// the two places a principal is established.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal in ctx, and false when the request has none (which a
// handler must treat as unauthenticated).
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
