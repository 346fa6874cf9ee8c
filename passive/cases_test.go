package passive

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

var update = flag.Bool("update", false, "rewrite the -- got -- section of every case under testdata/cases")

// archive is a parsed txtar file: a header comment and named sections.
type archive struct {
	comment  string
	sections map[string]string
	order    []string
}

// parseArchive reads the txtar format: free text, then "-- name --" lines opening sections.
func parseArchive(b []byte) archive {
	a := archive{sections: map[string]string{}}
	cur := ""
	var buf strings.Builder
	flush := func() {
		if cur == "" {
			a.comment = buf.String()
		} else {
			a.sections[cur] = buf.String()
			a.order = append(a.order, cur)
		}
		buf.Reset()
	}
	for _, line := range strings.SplitAfter(string(b), "\n") {
		t := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			cur = strings.TrimSpace(t[3 : len(t)-3])
			continue
		}
		buf.WriteString(line)
	}
	flush()
	return a
}

// parseHTTP splits "first line, headers, blank line, body".
func parseHTTP(t *testing.T, s string) (first string, h http.Header, body []byte) {
	t.Helper()
	r := textproto.NewReader(bufio.NewReader(strings.NewReader(s)))
	first, err := r.ReadLine()
	if err != nil {
		t.Fatalf("reading first line: %v", err)
	}
	mh, err := r.ReadMIMEHeader()
	if err != nil && mh == nil {
		t.Fatalf("reading headers: %v", err)
	}
	rest, _ := bufioRest(r)
	return first, http.Header(mh), rest
}

func bufioRest(r *textproto.Reader) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r.R)
	return b.Bytes(), err
}

// buildExchange turns a request and a response section into an exchange.
func buildExchange(t *testing.T, id, req, resp string) *wire.Exchange {
	t.Helper()
	first, h, body := parseHTTP(t, req)
	method, url, _ := strings.Cut(first, " ")
	ex := &wire.Exchange{ID: id, Target: url, Request: wire.Request{Method: method, URL: url, Header: h, Body: bytes.TrimSpace(body)}}
	if strings.TrimSpace(resp) == "" {
		return ex
	}
	first, h, body = parseHTTP(t, resp)
	status, err := strconv.Atoi(strings.Fields(first)[0])
	if err != nil {
		t.Fatalf("response status %q: %v", first, err)
	}
	if !isEventStream(h) {
		body = bytes.TrimSpace(body)
	}
	ex.Response = &wire.Response{Status: status, Header: h, Body: body}
	return ex
}

// expectation is one line of an outcomes section: "pass NAME", "fail NAME", "indeterminate
// NAME" or "none NAME" (no outcome at all for the rule).
type expectation struct{ status, name string }

func parseExpectations(t *testing.T, s string) []expectation {
	t.Helper()
	var out []expectation
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("bad outcomes line %q", line)
		}
		out = append(out, expectation{f[0], f[1]})
	}
	if len(out) == 0 {
		t.Fatal("a case must expect at least one outcome")
	}
	return out
}

// fakeDetector flags the phrase "ignore previous instructions"; the real detector is the scoring
// core's and is tested there.
func fakeDetector(text string) (float64, []eval.Span) {
	const p = "ignore previous instructions"
	if i := strings.Index(strings.ToLower(text), p); i >= 0 {
		return 0.95, []eval.Span{{Start: i, End: i + len(p), Text: text[i : i+len(p)], Family: "override"}}
	}
	return 0, nil
}

// TestCases runs every txtar case under testdata/cases: the optional "before-request" and
// "before-response" exchange first (to fill History), then "request"/"response". Each line of
// "outcomes" must hold, and the "got" section (every outcome Run returned) is a golden record:
// -update rewrites it after review.
func TestCases(t *testing.T) {
	forEachCase(t, func(t *testing.T, f string, a archive) {
		if strings.TrimSpace(a.comment) == "" {
			t.Fatal("a case must start with a header naming the rule it guards")
		}
		h := NewHistory()
		if pre, ok := a.sections["before-request"]; ok {
			Run(buildExchange(t, "before", pre, a.sections["before-response"]), h)
		}
		ex := buildExchange(t, "ex-1", a.sections["request"], a.sections["response"])
		got := Run(ex, h)
		for _, e := range parseExpectations(t, a.sections["outcomes"]) {
			id := rules.IDOf(e.name)
			var statuses []string
			for _, o := range got {
				if o.RuleID == id {
					statuses = append(statuses, string(o.Status))
					if o.Exchange != "ex-1" {
						t.Errorf("outcome %s names exchange %q", e.name, o.Exchange)
					}
					if o.Status != rules.Pass && o.Observed == "" && o.Why == "" {
						t.Errorf("a %s outcome for %s carries no evidence", o.Status, e.name)
					}
				}
			}
			switch {
			case e.status == "none" && len(statuses) > 0:
				t.Errorf("%s: want no outcome, got %v", e.name, statuses)
			case e.status != "none" && !contains(statuses, e.status):
				t.Errorf("%s: want %s, got %v\nall outcomes:\n%s", e.name, e.status, statuses, dump(got))
			}
		}
		if *update {
			writeGot(t, f, a, got)
		} else if want, ok := a.sections["got"]; ok && want != gotSection(got) {
			t.Errorf("the full outcome list changed (review, then rerun with -update):\nwant:\n%sgot:\n%s", want, gotSection(got))
		}
	})
}

// forEachCase runs fn as a subtest on every txtar case under testdata/cases, parsed, with the
// fake injection detector in place of eval's (the cases are about the checks, not the detector).
func forEachCase(t *testing.T, fn func(t *testing.T, path string, a archive)) {
	t.Helper()
	saved := detectInjection
	detectInjection = fakeDetector
	t.Cleanup(func() { detectInjection = saved })
	files, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, f, parseArchive(b))
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func dump(out []rules.Outcome) string {
	var b strings.Builder
	for _, o := range out {
		fmt.Fprintf(&b, "  %s %s %s%s\n", o.Status, o.RuleID, o.Observed, o.Why)
	}
	return b.String()
}

// gotSection renders every outcome as "status rule-id" lines, sorted: the golden part of a case.
func gotSection(got []rules.Outcome) string {
	var lines []string
	for _, o := range got {
		lines = append(lines, fmt.Sprintf("%s %s", o.Status, o.RuleID))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// writeGot rewrites a case with its "got" section (every outcome, sorted), the golden record.
func writeGot(t *testing.T, path string, a archive, got []rules.Outcome) {
	t.Helper()
	a.sections["got"] = gotSection(got)
	var b strings.Builder
	b.WriteString(a.comment)
	for _, name := range a.order {
		if name == "got" {
			continue
		}
		fmt.Fprintf(&b, "-- %s --\n%s", name, a.sections[name])
	}
	fmt.Fprintf(&b, "-- got --\n%s", a.sections["got"])
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
