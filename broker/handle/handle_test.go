package handle

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/store"
)

func newService(t *testing.T) (*Service, *time.Time) {
	t.Helper()
	ctx := t.Context()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.PutEvaluation(ctx, store.Evaluation{ID: "ev", Tenant: "acme", Subject: "alice", Policy: []byte(`{}`), Result: []byte(`{"ok":1}`)}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	return &Service{Store: st, TTL: time.Hour, Now: func() time.Time { return now }}, &now
}

func TestResolveRefusesEveryMisuseWithOneError(t *testing.T) {
	s, now := newService(t)
	ctx := context.Background()
	h, err := s.Issue(ctx, "acme", "alice", "ev")
	if err != nil {
		t.Fatal(err)
	}
	revoked, _ := s.Issue(ctx, "acme", "alice", "ev")
	if err := s.Revoke(ctx, "acme", "alice", revoked); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tenant, subject, handle string
		advance                       time.Duration
		ok                            bool
	}{
		{"owner resolves", "acme", "alice", h, 0, true},
		{"another subject of the same tenant", "acme", "bob", h, 0, false},
		{"another tenant with the same subject name", "evil", "alice", h, 0, false},
		{"unknown handle", "acme", "alice", New(), 0, false},
		{"malformed handle", "acme", "alice", "not-a-handle", 0, false},
		{"revoked handle", "acme", "alice", revoked, 0, false},
		{"expired handle", "acme", "alice", h, time.Hour, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			saved := *now
			*now = now.Add(tc.advance)
			defer func() { *now = saved }()
			ev, err := s.Resolve(ctx, tc.tenant, tc.subject, tc.handle)
			if tc.ok {
				if err != nil || string(ev.Result) != `{"ok":1}` {
					t.Fatalf("Resolve = %+v, %v", ev, err)
				}
				return
			}
			if err != ErrUnusable { //nolint:errorlint // identity is the point: one error value for every refusal
				t.Fatalf("Resolve = %v, want exactly ErrUnusable", err)
			}
		})
	}
}

func TestRevokeByAnotherPrincipalIsRefusedAndHarmless(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	h, _ := s.Issue(ctx, "acme", "alice", "ev")
	if err := s.Revoke(ctx, "acme", "bob", h); !errors.Is(err, ErrUnusable) {
		t.Fatalf("Revoke by bob = %v, want ErrUnusable", err)
	}
	if _, err := s.Resolve(ctx, "acme", "alice", h); err != nil {
		t.Fatalf("after bob's attempt alice's Resolve = %v", err)
	}
}

func TestNewHasTheAdvertisedEntropyAndNeverRepeats(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		h := New()
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(h, Prefix))
		if !strings.HasPrefix(h, Prefix) || err != nil || len(raw) != RandomBytes {
			t.Fatalf("New() = %q: want %s + %d random bytes", h, Prefix, RandomBytes)
		}
		if seen[h] {
			t.Fatalf("New() repeated %q", h)
		}
		seen[h] = true
	}
}
