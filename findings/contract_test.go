package findings

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/internal/pgtest"
	"github.com/mcp-sentinel/sentinel/rules"
)

// backends opens a fresh store of each kind; PostgreSQL never skips (pgtest fails instead).
func backends(t *testing.T, opts *Options) map[string]Store {
	t.Helper()
	out := map[string]Store{}
	lite, err := Open(t.Context(), filepath.Join(t.TempDir(), "findings.db"), opts)
	if err != nil {
		t.Fatalf("Open(sqlite) = %v", err)
	}
	out["sqlite"] = lite
	pg := pgtest.Start(t)
	pgs, err := Open(t.Context(), pg.DSN, opts)
	if err != nil {
		t.Fatalf("Open(postgres) = %v", err)
	}
	out["postgres"] = pgs
	for _, s := range out {
		t.Cleanup(func() { _ = s.Close() })
	}
	return out
}

var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

func TestStoreContract(t *testing.T) {
	for name, s := range backends(t, &Options{RedactKeys: []string{"ssn"}}) {
		t.Run(name, func(t *testing.T) {
			t.Run("repeated finding folds into one with a count", func(t *testing.T) { foldsRepeats(t, s) })
			t.Run("filters select by rule name, level, target and time", func(t *testing.T) { filters(t, s) })
			t.Run("exchanges are stored without credentials", func(t *testing.T) { noCredentials(t, s) })
			t.Run("binary bodies round-trip byte for byte", func(t *testing.T) { binaryBodies(t, s) })
			t.Run("prune removes what is older than the cutoff", func(t *testing.T) { prunes(t, s) })
			t.Run("a batch writes exchanges and folds findings in one go", func(t *testing.T) { batches(t, s) })
			t.Run("pages of exchanges follow the cursor without repeats or gaps", func(t *testing.T) { pagesExchanges(t, s) })
			t.Run("pages of findings follow the cursor without repeats or gaps", func(t *testing.T) { pagesFindings(t, s) })
			t.Run("bodies are cut in the query when asked", func(t *testing.T) { cutsBodies(t, s) })
			t.Run("stored bodies read back as stored, compressed or not", func(t *testing.T) { bodiesRoundTrip(t, s) })
		})
	}
}

func foldsRepeats(t *testing.T, s Store) {
	ctx := t.Context()
	f := Finding{Target: "http://fold", RuleID: "MCP/2026-07-28/MUST/a-rule", Key: "tools/call:x",
		Level: rules.Must, Status: rules.Fail, Observed: "first", ExchangeID: "e1", FirstSeen: t0, LastSeen: t0}
	for i, obs := range []string{"first", "second", "third"} {
		f.Observed, f.ExchangeID = obs, "e"+obs
		f.FirstSeen = t0.Add(time.Duration(i) * time.Minute)
		f.LastSeen = f.FirstSeen
		if err := s.RecordFinding(ctx, f); err != nil {
			t.Fatalf("RecordFinding = %v", err)
		}
	}
	got, err := s.Findings(ctx, Filter{Target: "http://fold"})
	if err != nil || len(got) != 1 {
		t.Fatalf("Findings = %d rows, %v; want 1 row", len(got), err)
	}
	g := got[0]
	if g.Count != 3 || g.Observed != "third" || g.ExchangeID != "ethird" || !g.FirstSeen.Equal(t0) ||
		!g.LastSeen.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("folded finding = %+v, want count 3, latest observed and exchange, first %v, last %v", g, t0, t0.Add(2*time.Minute))
	}
}

func filters(t *testing.T, s Store) {
	ctx := t.Context()
	for _, f := range []Finding{
		{Target: "http://flt", RuleID: "MCP/2026-07-28/MUST/alpha", Level: rules.Must, Status: rules.Fail, FirstSeen: t0},
		{Target: "http://flt", RuleID: "MCP/2026-07-28/SHOULD/beta", Level: rules.Should, Status: rules.Fail, FirstSeen: t0.Add(time.Hour)},
		{Target: "http://other", RuleID: "MCP/2026-07-28/MUST/alpha", Level: rules.Must, Status: rules.Fail, FirstSeen: t0},
	} {
		if err := s.RecordFinding(ctx, f); err != nil {
			t.Fatalf("RecordFinding = %v", err)
		}
	}
	tests := []struct {
		name string
		f    Filter
		want int
	}{
		{"target alone", Filter{Target: "http://flt"}, 2},
		{"rule by name", Filter{Target: "http://flt", Rule: "alpha"}, 1},
		{"rule by full ID", Filter{Rule: "MCP/2026-07-28/MUST/alpha"}, 2},
		{"level", Filter{Target: "http://flt", Level: rules.Should}, 1},
		{"since", Filter{Target: "http://flt", Since: t0.Add(time.Minute)}, 1},
		{"limit", Filter{Target: "http://flt", Limit: 1}, 1},
		{"a name that is only a suffix of another does not match", Filter{Rule: "lpha"}, 0},
	}
	for _, tt := range tests {
		got, err := s.Findings(ctx, tt.f)
		if err != nil || len(got) != tt.want {
			t.Errorf("%s: Findings(%+v) = %d rows, %v; want %d", tt.name, tt.f, len(got), err, tt.want)
		}
	}
}

func noCredentials(t *testing.T, s Store) {
	ctx := t.Context()
	h := http.Header{"Authorization": {"Bearer SECRET-A"}, "Cookie": {"sid=SECRET-B"},
		"X-Api-Key": {"SECRET-C"}, "Content-Type": {"application/json"}}
	ex := Exchange{ID: "cred-1", Target: "http://cred", Start: t0, HTTPMethod: "POST", URL: "http://u:SECRET-I@cred/mcp?access_token=SECRET-H",
		RequestHeader: h, ResponseHeader: http.Header{"Set-Cookie": {"sid=SECRET-D"}},
		RequestBody:  []byte(`{"params":{"access_token":"SECRET-E","ssn":"SECRET-F","keep":"visible"}}`),
		ResponseBody: []byte("event: message\ndata: {\"refresh_token\":\"SECRET-G\"}\n\n"), Graded: "graded"}
	if err := s.RecordExchange(ctx, ex); err != nil {
		t.Fatalf("RecordExchange = %v", err)
	}
	if err := s.RecordExchange(ctx, ex); err != nil {
		t.Fatalf("RecordExchange of the same ID again = %v, want nil (kept first)", err)
	}
	got, err := s.Exchanges(ctx, Filter{Target: "http://cred"})
	if err != nil || len(got) != 1 {
		t.Fatalf("Exchanges = %d rows, %v; want 1", len(got), err)
	}
	dump := strings.Join([]string{got[0].URL, string(got[0].RequestBody), string(got[0].ResponseBody),
		strings.Join(flatten(got[0].RequestHeader), " "), strings.Join(flatten(got[0].ResponseHeader), " ")}, "\n")
	if strings.Contains(dump, "SECRET") {
		t.Fatalf("stored exchange still holds a credential:\n%s", dump)
	}
	if !strings.Contains(dump, "visible") || got[0].RequestHeader.Get("Content-Type") != "application/json" {
		t.Fatalf("redaction removed too much:\n%s", dump)
	}
}

func flatten(h http.Header) []string {
	var out []string
	for k, v := range h {
		out = append(out, k+": "+strings.Join(v, ","))
	}
	return out
}

func binaryBodies(t *testing.T, s Store) {
	ctx := t.Context()
	bin := []byte{0, 1, 2, 0xff, 0xfe, 0, 'x'}
	if err := s.RecordExchange(ctx, Exchange{ID: "bin-1", Target: "http://bin", Start: t0, ResponseBody: bin}); err != nil {
		t.Fatalf("RecordExchange = %v", err)
	}
	got, err := s.Exchanges(ctx, Filter{Target: "http://bin"})
	if err != nil || len(got) != 1 || !bytes.Equal(got[0].ResponseBody, bin) {
		t.Fatalf("Exchanges = %v, %v; want the binary body %v back", got, err, bin)
	}
}

func prunes(t *testing.T, s Store) {
	ctx := t.Context()
	old, recent := t0.Add(-48*time.Hour), t0
	for i, ts := range []time.Time{old, recent} {
		id := []string{"old", "recent"}[i]
		if err := s.RecordExchange(ctx, Exchange{ID: "prune-" + id, Target: "http://prune", Start: ts}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordFinding(ctx, Finding{Target: "http://prune", RuleID: "r-" + id, FirstSeen: ts}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Prune(ctx, t0.Add(-time.Hour)); err != nil {
		t.Fatalf("Prune = %v", err)
	}
	exs, _ := s.Exchanges(ctx, Filter{Target: "http://prune"})
	fs, _ := s.Findings(ctx, Filter{Target: "http://prune"})
	if len(exs) != 1 || exs[0].ID != "prune-recent" || len(fs) != 1 || fs[0].RuleID != "r-recent" {
		t.Fatalf("after Prune: exchanges %v, findings %v; want only the recent one of each", exs, fs)
	}
}

func batches(t *testing.T, s Store) {
	ctx := t.Context()
	var b Batch
	for i := range 10 {
		id := fmt.Sprintf("batch-%d", i)
		b.Exchanges = append(b.Exchanges, Exchange{ID: id, Target: "http://batch", Start: t0.Add(time.Duration(i) * time.Second)})
		b.Findings = append(b.Findings, Finding{Target: "http://batch", RuleID: "MCP/2026-07-28/MUST/batched",
			Key: "k", Status: rules.Fail, ExchangeID: id, FirstSeen: t0.Add(time.Duration(i) * time.Second)})
	}
	yields := 0
	b.Yield = func() { yields++ }
	if err := s.Record(ctx, b); err != nil {
		t.Fatalf("Record = %v", err)
	}
	if yields != 11 { // between rows: 10 exchanges and the one folded finding
		t.Fatalf("Record yielded %d times, want 11 (once after each row it wrote)", yields)
	}
	exs, _ := s.Exchanges(ctx, Filter{Target: "http://batch"})
	fs, _ := s.Findings(ctx, Filter{Target: "http://batch"})
	if one, err := s.Exchanges(ctx, Filter{ExchangeID: "batch-3"}); err != nil || len(one) != 1 || one[0].ID != "batch-3" {
		t.Fatalf("Exchanges(ExchangeID batch-3) = %v, %v; want that one exchange", one, err)
	}
	if byEx, err := s.Findings(ctx, Filter{ExchangeID: "batch-9"}); err != nil || len(byEx) != 1 {
		t.Fatalf("Findings(ExchangeID batch-9) = %v, %v; want the finding it last showed", byEx, err)
	}
	if len(exs) != 10 || len(fs) != 1 || fs[0].Count != 10 || fs[0].ExchangeID != "batch-9" {
		t.Fatalf("after one batch: %d exchanges, findings %+v; want 10 and one finding counted 10 times, last exchange batch-9", len(exs), fs)
	}
}

// Two handles on one database stand for two proxies sharing a store: concurrent upserts of the
// same finding must all be counted.
func TestConcurrentWritersShareOneStore(t *testing.T) {
	pg := pgtest.Start(t)
	lite := filepath.Join(t.TempDir(), "shared.db")
	for name, dsn := range map[string]string{"sqlite": lite, "postgres": pg.DSN} {
		t.Run(name, func(t *testing.T) {
			// Both open at once on a fresh database, as proxies started together do.
			var stores [2]Store
			var openErrs [2]error
			var opening sync.WaitGroup
			for i := range stores {
				opening.Go(func() { stores[i], openErrs[i] = Open(t.Context(), dsn, nil) })
			}
			opening.Wait()
			for i, s := range stores {
				if openErrs[i] != nil {
					t.Fatalf("Open #%d = %v", i, openErrs[i])
				}
				t.Cleanup(func() { _ = s.Close() })
			}
			var wg sync.WaitGroup
			errs := make(chan error, 40)
			for i := range 40 {
				wg.Go(func() {
					f := Finding{Target: "http://shared", RuleID: "MCP/2026-07-28/MUST/shared", Key: "k", Status: rules.Fail, FirstSeen: t0}
					errs <- stores[i%2].Record(t.Context(), Batch{Findings: []Finding{f}})
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("concurrent Record = %v", err)
				}
			}
			fs, err := stores[0].Findings(t.Context(), Filter{Target: "http://shared"})
			if err != nil || len(fs) != 1 || fs[0].Count != 40 {
				t.Fatalf("Findings = %+v, %v; want one finding counted 40 times", fs, err)
			}
		})
	}
}

func pagesExchanges(t *testing.T, s Store) {
	ctx := t.Context()
	var b Batch
	// 25 exchanges over 5 distinct start times: ties must be broken by ID across page edges.
	for i := range 25 {
		b.Exchanges = append(b.Exchanges, Exchange{ID: fmt.Sprintf("page-%02d", i), Target: "http://page",
			Start: t0.Add(time.Duration(i/5) * time.Second)})
	}
	if err := s.Record(ctx, b); err != nil {
		t.Fatal(err)
	}
	var got []string
	f := Filter{Target: "http://page", Limit: 4}
	for range 20 {
		page, err := s.Exchanges(ctx, f)
		if err != nil {
			t.Fatalf("Exchanges(%+v) = %v", f, err)
		}
		for _, ex := range page {
			got = append(got, ex.ID)
		}
		if len(page) < f.Limit {
			break
		}
		f.After = ExchangeCursor(page[len(page)-1])
	}
	if len(got) != 25 {
		t.Fatalf("paged %d exchanges %v, want all 25 once", len(got), got)
	}
	seen := map[string]bool{}
	for i, id := range got {
		if seen[id] {
			t.Fatalf("exchange %s listed twice: %v", id, got)
		}
		seen[id] = true
		// Newest first: the start-time group never increases along the listing.
		if i > 0 && groupOf(got[i-1]) < groupOf(id) {
			t.Fatalf("listing not newest first at %d: %v", i, got)
		}
	}
	if _, err := s.Exchanges(ctx, Filter{After: FindingCursor(Finding{Target: "x", RuleID: "y", LastSeen: t0})}); !errors.Is(err, ErrBadCursor) {
		t.Fatalf("a finding cursor on exchanges = %v, want ErrBadCursor", err)
	}
}

func groupOf(id string) int {
	var n int
	fmt.Sscanf(id, "page-%d", &n)
	return n / 5
}

func pagesFindings(t *testing.T, s Store) {
	ctx := t.Context()
	var b Batch
	for i := range 13 {
		b.Findings = append(b.Findings, Finding{Target: "http://fpage", RuleID: fmt.Sprintf("MCP/2026-07-28/MUST/r%02d", i%4),
			Key: fmt.Sprintf("k%d", i), Status: rules.Fail, FirstSeen: t0.Add(time.Duration(i%3) * time.Minute)})
	}
	if err := s.Record(ctx, b); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	f := Filter{Target: "http://fpage", Limit: 5}
	for range 10 {
		page, err := s.Findings(ctx, f)
		if err != nil {
			t.Fatalf("Findings(%+v) = %v", f, err)
		}
		for _, fd := range page {
			k := fd.RuleID + " " + fd.Key
			if seen[k] {
				t.Fatalf("finding %s listed twice", k)
			}
			seen[k] = true
		}
		if len(page) < f.Limit {
			break
		}
		f.After = FindingCursor(page[len(page)-1])
	}
	if len(seen) != 13 {
		t.Fatalf("paged %d findings, want all 13", len(seen))
	}
}

func cutsBodies(t *testing.T, s Store) {
	ctx := t.Context()
	big := bytes.Repeat([]byte("a"), 5000)
	if err := s.RecordExchange(ctx, Exchange{ID: "cut-1", Target: "http://cut", Start: t0, RequestBody: []byte("small"), ResponseBody: big}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Exchanges(ctx, Filter{Target: "http://cut", MaxBody: 100})
	if err != nil || len(got) != 1 {
		t.Fatalf("Exchanges = %v, %v", got, err)
	}
	if string(got[0].RequestBody) != "small" || len(got[0].ResponseBody) != 100 || !got[0].Truncated {
		t.Fatalf("cut exchange: request %q, response %d bytes, truncated %v; want the small one whole, 100 bytes and truncated",
			got[0].RequestBody, len(got[0].ResponseBody), got[0].Truncated)
	}
	whole, _ := s.Exchanges(ctx, Filter{Target: "http://cut"})
	if len(whole) != 1 || len(whole[0].ResponseBody) != 5000 || whole[0].Truncated {
		t.Fatalf("uncut exchange: %d bytes, truncated %v; want 5000 and not truncated", len(whole[0].ResponseBody), whole[0].Truncated)
	}
}

func TestCursorRoundTripsAndRejectsForgeries(t *testing.T) {
	c := ExchangeCursor(Exchange{ID: "abc-1", Start: t0})
	got, err := ParseCursor(c.String())
	if err != nil || got.Micros != c.Micros || len(got.Keys) != 1 || got.Keys[0] != "abc-1" {
		t.Fatalf("ParseCursor(String()) = %+v, %v; want %+v", got, err, c)
	}
	for _, bad := range []string{"!!", "e30", strings.Repeat("A", 5000), "bnVsbA"} {
		if _, err := ParseCursor(bad); !errors.Is(err, ErrBadCursor) {
			t.Errorf("ParseCursor(%q) = %v, want ErrBadCursor", bad, err)
		}
	}
}

func FuzzParseCursor(f *testing.F) {
	f.Add(ExchangeCursor(Exchange{ID: "x", Start: t0}).String())
	f.Add(FindingCursor(Finding{Target: "t", RuleID: "r", Key: "k", LastSeen: t0}).String())
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCursor(s)
		if err != nil {
			return
		}
		if again, err := ParseCursor(c.String()); err != nil || again.Micros != c.Micros || len(again.Keys) != len(c.Keys) {
			t.Fatalf("a parsed cursor does not round-trip: %q -> %+v -> %v", s, c, err)
		}
	})
}
