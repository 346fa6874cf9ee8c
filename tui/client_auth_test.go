package tui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The client sends the admin token on every call, and a 401 says what to do about it.
func TestClientSendsTheAdminTokenAndExplainsA401(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer right-token-0123456789" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sentinel admin"`)
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("[]"))
	}))
	t.Cleanup(srv.Close)
	c, _ := NewClient(srv.URL, nil)
	if _, err := c.Findings(t.Context(), 10); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("Findings without a token = %v, want a 401 that names the token", err)
	}
	authed := c.WithToken("right-token-0123456789")
	if _, err := authed.Findings(t.Context(), 10); err != nil {
		t.Fatalf("Findings with the token = %v", err)
	}
	if _, _, err := authed.ExchangeRows(t.Context(), time.Time{}, 10); err != nil {
		t.Fatalf("ExchangeRows with the token = %v", err)
	}
	if seen[len(seen)-1] != "/exchanges Bearer right-token-0123456789" {
		t.Fatalf("requests seen %q, want the token on each", seen)
	}
}

// The admin API answers at most a page; the client follows the Link header up to its limit.
func TestClientFollowsPagesUpToItsLimit(t *testing.T) {
	const stored = 2300
	var asked []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		from, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		asked = append(asked, limit)
		if limit > findingsPage {
			http.Error(w, "limit too large", http.StatusBadRequest)
			return
		}
		n := min(limit, stored-from)
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"ruleId":"r%d"}`, from+i)
		}
		b.WriteString("]")
		if n == limit {
			w.Header().Set("Link", fmt.Sprintf(`</findings?cursor=%d&limit=%d>; rel="next"`, from+n, limit))
		}
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	c, _ := NewClient(srv.URL, nil)
	fs, err := c.Findings(context.Background(), 2100)
	if err != nil || len(fs) != 2100 || fs[2099].RuleID != "r2099" {
		t.Fatalf("Findings(2100) = %d findings, %v; want 2100 in order", len(fs), err)
	}
	if fmt.Sprint(asked) != "[1000 1000 100]" {
		t.Fatalf("pages asked for %v, want [1000 1000 100]", asked)
	}
	asked = nil
	all, err := c.Findings(context.Background(), -1)
	if err != nil || len(all) != stored {
		t.Fatalf("Findings(all) = %d, %v; want %d", len(all), err, stored)
	}
}
