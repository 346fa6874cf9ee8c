package tui

import (
	"strings"
	"testing"
	"time"

	"reflect"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

func TestParseFilter(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Filter
		wantErr string
	}{
		{name: "empty keeps everything", in: "  ", want: Filter{}},
		{name: "typed tokens compose", in: "method:tools/call tool:search level:must status:4xx verdict:fail rule:session",
			want: Filter{Methods: []string{"tools/call"}, Tools: []string{"search"}, Levels: []rules.Level{rules.Must},
				Statuses: []string{"4xx"}, Verdicts: []string{"fail"}, Rules: []string{"session"}}},
		{name: "comma is repetition", in: "level:must-not,should_not", want: Filter{Levels: []rules.Level{rules.MustNot, rules.ShouldNot}}},
		{name: "keys are case-insensitive", in: "LEVEL:Should", want: Filter{Levels: []rules.Level{rules.Should}}},
		{name: "free words are lower-cased", in: "Search Foo", want: Filter{Text: []string{"search", "foo"}}},
		{name: "a colon after a path is free text", in: "tools/call:search", want: Filter{Text: []string{"tools/call:search"}}},
		{name: "quotes keep spaces in a word", in: `"bad header" method:ping`, want: Filter{Text: []string{"bad header"}, Methods: []string{"ping"}}},
		{name: "quoted value keeps its key", in: `rule:"no session"`, want: Filter{Rules: []string{"no session"}}},
		{name: "status err means no response", in: "status:err", want: Filter{Statuses: []string{"err"}}},
		{name: "unknown key is an error", in: "colour:red", wantErr: "unknown key"},
		{name: "empty value is an error", in: "method:", wantErr: "needs a value"},
		{name: "bad level is an error", in: "level:may", wantErr: "must, must-not"},
		{name: "bad status is an error", in: "status:6xx", wantErr: "4xx"},
		{name: "bad verdict is an error", in: "verdict:maybe", wantErr: "fail, pass"},
		{name: "unclosed quote is an error", in: `"open`, wantErr: "not closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFilter(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseFilter(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFilter(%q) error = %v", tt.in, err)
			}
			if !reflect.DeepEqual(tt.want, got) {
				t.Errorf("ParseFilter(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func testRows() []Row {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	sess := findings.Finding{RuleID: "MCP/2026-07-28/MUST-NOT/x-session", Level: rules.MustNot, ExchangeID: "e2"}
	hint := findings.Finding{RuleID: "MCP/2026-07-28/SHOULD/y-hint", Level: rules.Should, ExchangeID: "e3"}
	rows := []Row{
		{ID: "e1", Target: "http://up/mcp", Started: t0, Method: "initialize", Key: "initialize", Status: 200, Graded: "graded"},
		{ID: "e2", Target: "http://up/mcp", Started: t0, Method: "tools/call", Key: "tools/call:search", Status: 200, Graded: "graded", Count: 1, Findings: []findings.Finding{sess}},
		{ID: "e3", Target: "http://up/mcp", Started: t0, Method: "tools/list", Key: "tools/list", Status: 404, Graded: "graded", Count: 1, Findings: []findings.Finding{hint}},
		{ID: "e4", Target: "http://up/mcp", Started: t0, Method: "ping", Key: "ping", Status: 0, Err: "connection refused", Graded: "graded"},
		{ID: "e5", Target: "http://up/mcp", Started: t0, Method: "tools/call", Key: "tools/call:fetch", Status: 200, Graded: "not graded: body too large"},
	}
	for i := range rows {
		rows[i].finalize()
	}
	return rows
}

func TestFilterMatchRow(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		want   []string
	}{
		{name: "empty filter keeps all", filter: "", want: []string{"e1", "e2", "e3", "e4", "e5"}},
		{name: "method keeps one method", filter: "method:tools/call", want: []string{"e2", "e5"}},
		{name: "same key is any of", filter: "method:ping method:initialize", want: []string{"e1", "e4"}},
		{name: "different keys are all of", filter: "method:tools/call tool:search", want: []string{"e2"}},
		{name: "level matches the exchange's findings", filter: "level:must-not", want: []string{"e2"}},
		{name: "rule matches part of an ID", filter: "rule:hint", want: []string{"e3"}},
		{name: "status class", filter: "status:4xx", want: []string{"e3"}},
		{name: "status err is no response", filter: "status:err", want: []string{"e4"}},
		{name: "verdict fail", filter: "verdict:fail", want: []string{"e2", "e3"}},
		{name: "verdict pass excludes errors and ungraded", filter: "verdict:pass", want: []string{"e1"}},
		{name: "verdict ungraded", filter: "verdict:ungraded", want: []string{"e5"}},
		{name: "verdict error", filter: "verdict:error", want: []string{"e4"}},
		{name: "free text searches rule IDs too", filter: "x-session", want: []string{"e2"}},
		{name: "free text and token compose", filter: "refused method:ping", want: []string{"e4"}},
	}
	rows := testRows()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFilter(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range rows {
				if f.MatchRow(&rows[i]) {
					got = append(got, rows[i].ID)
				}
			}
			if !reflect.DeepEqual(tt.want, got) {
				t.Errorf("filter %q kept %v, want %v", tt.filter, got, tt.want)
			}
		})
	}
}

func TestFilterMatchFinding(t *testing.T) {
	f := findings.Finding{RuleID: "MCP/2026-07-28/MUST/some-rule", Level: rules.Must, Key: "tools/call:search", Observed: "saw Mcp-Session-Id"}
	tests := []struct {
		filter string
		want   bool
	}{
		{"", true},
		{"method:tools/call", true},
		{"method:tools/list", false},
		{"tool:search", true},
		{"level:should", false},
		{"rule:some-rule", true},
		{"verdict:fail", true},
		{"verdict:pass", false},
		{"status:500", true}, // status: does not apply to findings
		{"mcp-session-id", true},
	}
	for _, tt := range tests {
		flt, err := ParseFilter(tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		if got := flt.MatchFinding(f); got != tt.want {
			t.Errorf("filter %q on finding = %v, want %v", tt.filter, got, tt.want)
		}
	}
}

// FuzzParseFilter checks that parsing never panics, that an accepted filter only holds valid
// levels, statuses and verdicts, and that its String parses back to the same filter.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"", "method:tools/call", `"a b" level:must,should`, "status:4xx verdict:fail", "a:b", `"`, "level:\x00", "tool:,", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		if err != nil {
			return
		}
		for _, l := range flt.Levels {
			if !l.Valid() {
				t.Fatalf("ParseFilter(%q) accepted level %q", s, l)
			}
		}
		for _, st := range flt.Statuses {
			if !validStatus(st) {
				t.Fatalf("ParseFilter(%q) accepted status %q", s, st)
			}
		}
		for _, v := range flt.Verdicts {
			switch v {
			case VerdictFail, VerdictPass, VerdictUngraded, VerdictError:
			default:
				t.Fatalf("ParseFilter(%q) accepted verdict %q", s, v)
			}
		}
		for _, w := range flt.Text {
			if w != strings.ToLower(w) {
				t.Fatalf("ParseFilter(%q) kept free text %q not lower-cased", s, w)
			}
		}
		again, err := ParseFilter(flt.String())
		if err != nil {
			t.Fatalf("ParseFilter(%q).String() = %q does not parse: %v", s, flt.String(), err)
		}
		if !reflect.DeepEqual(flt, again) {
			t.Fatalf("ParseFilter(%q) = %+v, but its String %q parses to %+v", s, flt, flt.String(), again)
		}
	})
}
