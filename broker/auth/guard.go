package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

// Guard is the HTTP authentication check: it runs before any MCP processing, so that no request
// reaches a tool without a principal.
type Guard struct {
	// Verifier checks tokens; required.
	Verifier *Verifier
	// ResourceMetadataURL is the absolute URL of the protected-resource metadata document, put in
	// every challenge so a client can discover the authorization server.
	ResourceMetadataURL string
	// Scopes, if any, are named in every challenge's scope parameter (the spec's SHOULD: the
	// scopes a request needs). The broker's tools need no particular scope, so this is usually empty.
	Scopes []string
	// Logger receives one line per rejected request (never the token); nil discards.
	Logger *slog.Logger
}

// Wrap returns next guarded: a request without a valid bearer token gets 401 and a
// `WWW-Authenticate: Bearer resource_metadata="…"` challenge (with error="invalid_token" when a
// token was presented but failed); a valid one reaches next with its Principal in the context.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	log := g.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, present, malformed := bearer(r.Header.Values("Authorization"))
		if !present {
			g.challenge(w, "", "")
			log.InfoContext(r.Context(), "unauthenticated request", slog.String("reason", "no bearer token"))
			return
		}
		if malformed {
			g.challenge(w, "invalid_request", "the Authorization header must be exactly one `Bearer <token>`")
			log.InfoContext(r.Context(), "unauthenticated request", slog.String("reason", "malformed Authorization header"))
			return
		}
		p, err := g.Verifier.Verify(r.Context(), raw)
		if err != nil {
			g.challenge(w, "invalid_token", "the access token is invalid, expired, or not issued for this server")
			log.InfoContext(r.Context(), "unauthenticated request", slog.String("reason", reasonOf(err)))
			return
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// challenge writes the 401. The error description is fixed text: it must not echo what was wrong
// with a presented token in detail, which would help an attacker tune forgeries.
func (g *Guard) challenge(w http.ResponseWriter, code, description string) {
	params := []string{fmt.Sprintf("resource_metadata=%q", g.ResourceMetadataURL)}
	if len(g.Scopes) > 0 {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(g.Scopes, " ")))
	}
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", description))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte("401 Unauthorized: send Authorization: Bearer <token> with a token issued for this server\n"))
}

// bearer extracts the token. present is false when there is no Authorization header or it uses
// another scheme; malformed is true for repeated headers or an empty token.
func bearer(values []string) (token string, present, malformed bool) {
	if len(values) == 0 {
		return "", false, false
	}
	if len(values) > 1 {
		return "", true, true
	}
	scheme, rest, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false, false
	}
	rest = strings.TrimSpace(rest)
	if rest == "" || strings.ContainsAny(rest, " \t") {
		return "", true, true
	}
	return rest, true, false
}

func reasonOf(err error) string {
	if errors.Is(err, ErrInvalidToken) {
		return err.Error()
	}
	return "verification failed: " + err.Error()
}
