package proxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

// Pages of the admin API's listings. A page is never larger than its maximum, whatever the
// caller asks, and the inline bodies of an exchange listing are cut, so one request holds at
// most MaxExchangePage × 2 × ListBodyBytes of bodies. The next page is named by the
// Link: <...>; rel="next" header; GET /exchanges?id=ID returns one exchange with its bodies as
// stored.
const (
	DefaultExchangePage = 100
	MaxExchangePage     = 500
	DefaultFindingPage  = 500
	MaxFindingPage      = 1000
	// ListBodyBytes is how much of each body an exchange listing carries inline.
	ListBodyBytes = 16 << 10
)

// listing is what one listing endpoint needs to know about its rows.
type listing struct {
	defaultPage, maxPage int
}

var (
	exchangeListing = listing{DefaultExchangePage, MaxExchangePage}
	findingListing  = listing{DefaultFindingPage, MaxFindingPage}
)

func (a *admin) serveFindings(w http.ResponseWriter, r *http.Request) {
	f, err := filterFrom(r.URL.Query(), time.Now(), findingListing)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fs, err := a.pipe.store.Findings(r.Context(), f)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if len(fs) == f.Limit {
		setNext(w, r, findings.FindingCursor(fs[len(fs)-1]))
	}
	writeRows(w, fs)
}

func (a *admin) serveExchanges(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, err := filterFrom(q, time.Now(), exchangeListing)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if f.ExchangeID == "" {
		f.MaxBody = ListBodyBytes // one exchange by ID comes with its bodies as stored
	}
	exs, err := a.pipe.store.Exchanges(r.Context(), f)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if len(exs) == f.Limit {
		setNext(w, r, findings.ExchangeCursor(exs[len(exs)-1]))
	}
	writeRows(w, exs)
}

// setNext announces the page after c, with the same filters.
func setNext(w http.ResponseWriter, r *http.Request, c findings.Cursor) {
	q := r.URL.Query()
	q.Set("cursor", c.String())
	w.Header().Set("Link", fmt.Sprintf("<%s?%s>; rel=\"next\"", r.URL.Path, q.Encode()))
}

// writeRows writes a JSON array one row at a time, so a page is never encoded twice in memory.
func writeRows[T any](w http.ResponseWriter, rows []T) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_, _ = w.Write([]byte("["))
	for i := range rows {
		if i > 0 {
			_, _ = w.Write([]byte(","))
		}
		if enc.Encode(rows[i]) != nil {
			return
		}
	}
	_, _ = w.Write([]byte("]\n"))
}

// ParseSince reads a --since or ?since= value: an RFC 3339 time or a duration back from now.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("since %q: give an RFC 3339 time (2026-07-28T12:00:00Z) or a duration (24h)", s)
	}
	return now.Add(-d), nil
}

// ParseLevel reads a level filter, accepting MUST-NOT for MUST NOT.
func ParseLevel(s string) (rules.Level, error) {
	if s == "" {
		return "", nil
	}
	l := rules.Level(strings.ReplaceAll(strings.ToUpper(s), "-", " "))
	if !l.Valid() {
		return "", fmt.Errorf("level %q: use MUST, MUST-NOT, SHOULD or SHOULD-NOT", s)
	}
	return l, nil
}

// filterFrom reads a listing's query: since, level, rule, target, key, id, limit (1 to the
// listing's maximum) and cursor (from a Link header).
func filterFrom(q url.Values, now time.Time, l listing) (findings.Filter, error) {
	var f findings.Filter
	var err error
	if f.Since, err = ParseSince(q.Get("since"), now); err != nil {
		return f, err
	}
	if f.Level, err = ParseLevel(q.Get("level")); err != nil {
		return f, err
	}
	f.Rule, f.Target, f.Key, f.ExchangeID = q.Get("rule"), q.Get("target"), q.Get("key"), q.Get("id")
	f.Limit = l.defaultPage
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > l.maxPage {
			return f, fmt.Errorf("limit %q: give a number from 1 to %d, and follow the Link header (rel=\"next\") for more", s, l.maxPage)
		}
		f.Limit = n
	}
	if f.After, err = findings.ParseCursor(q.Get("cursor")); err != nil {
		return f, err
	}
	return f, nil
}
