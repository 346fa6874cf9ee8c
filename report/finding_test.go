package report

import (
	"slices"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

// failing builds a failing rule result with one outcome per (exchange, observed) pair.
func failing(l rules.Level, name string, areas []rules.Area, obs ...[2]string) RuleResult {
	r := testRule(l, name)
	if areas != nil {
		r.Areas = areas
	}
	rr := RuleResult{Rule: r, Status: rules.Fail}
	for _, o := range obs {
		rr.Evidence = append(rr.Evidence, rules.Outcome{RuleID: r.ID, Status: rules.Fail, Exchange: o[0], Observed: o[1]})
	}
	return rr
}

func groupNames(r *Result) [][]string {
	var out [][]string
	for _, f := range r.Findings() {
		out = append(out, f.RuleNames())
	}
	return out
}

func TestFindingsCountOneBehaviourOnce(t *testing.T) {
	sec := []rules.Area{rules.AreaSecurity}
	tests := []struct {
		name string
		rs   []RuleResult
		want [][]string
	}{
		{
			name: "one requirement stated twice is one finding",
			rs: []RuleResult{
				failing(rules.Must, "origin-invalid-403", sec, [2]string{"ex-44", "sent ping with Origin: x; got POST ping → 200 application/json result; expected HTTP 403"}),
				failing(rules.Must, "origin-validated", sec, [2]string{"ex-44", "sent ping with Origin: x; got POST ping → 200 application/json result; a foreign Origin was not refused"}),
			},
			want: [][]string{{"origin-invalid-403", "origin-validated"}},
		},
		{
			name: "one error code read by an overlap family is one finding",
			rs: []RuleResult{
				failing(rules.ShouldNot, "legacy-range-codes", nil, [2]string{"ex-1", "on POST server/discover → 400 application/json error -32000: the server emitted -32000 from the legacy range"}),
				failing(rules.Should, "app-codes-outside-reserved", nil, [2]string{"ex-1", "on POST server/discover → 400 application/json error -32000: the server emitted -32000, inside -32768..-32000"}),
			},
			want: [][]string{{"legacy-range-codes", "app-codes-outside-reserved"}},
		},
		{
			name: "asking for an undeclared capability instead of refusing with -32021 is one finding",
			rs: []RuleResult{
				failing(rules.MustNot, "mrtr-declared-capabilities", nil, [2]string{"ex-7", `on POST prompts/get → 200 application/json result: inputRequests["ctx"] is elicitation/create, but this request declared no elicitation capability`}),
				failing(rules.MustNot, "no-undeclared-capability-use", nil, [2]string{"ex-7", "on POST prompts/get → 200 application/json result: the server relied on the elicitation capability, which this request did not declare"}),
				failing(rules.Must, "missing-capability-error", nil, [2]string{"ex-7", "sent prompts/get \"ask\" declaring no client capability; got POST prompts/get → 200 application/json result; the server asked for elicitation/create instead of refusing with -32021"}),
			},
			want: [][]string{{"mrtr-declared-capabilities", "no-undeclared-capability-use", "missing-capability-error"}},
		},
		{
			name: "one reply wrong in two ways is two findings",
			rs: []RuleResult{
				failing(rules.Must, "output-schema-conformance", nil, [2]string{"ex-62", "sent tools/call x; got POST tools/call → 200 application/json result; structuredContent breaks the schema"}),
				failing(rules.Should, "structured-text-mirror", nil, [2]string{"ex-62", "sent tools/call x; got POST tools/call → 200 application/json result; no text block mirrors it"}),
			},
			want: [][]string{{"output-schema-conformance"}, {"structured-text-mirror"}},
		},
		{
			name: "the same words on the same exchange are one finding",
			rs: []RuleResult{
				failing(rules.Must, "log-at-or-above-level", nil, [2]string{"ex-24", `on POST tools/call → 200 text/event-stream result: the request asked for "error"; the server sent a "info" message`}),
				failing(rules.Must, "deprecated-features-correct", nil, [2]string{"ex-24", `on POST tools/call → 200 text/event-stream result: the request asked for "error"; the server sent a "info" message`}),
			},
			want: [][]string{{"deprecated-features-correct", "log-at-or-above-level"}},
		},
		{
			name: "different defects of one exchange stay apart",
			rs: []RuleResult{
				failing(rules.Must, "cache-hints-present", nil, [2]string{"ex-4", "on POST tools/list → 200 application/json result: the tools/list result has neither ttlMs nor cacheScope"}),
				failing(rules.Must, "result-type-present", nil, [2]string{"ex-4", "on POST tools/list → 200 application/json result: the result to tools/list has no resultType"}),
			},
			want: [][]string{{"cache-hints-present"}, {"result-type-present"}},
		},
		{
			name: "an overlap family on different exchanges stays apart",
			rs: []RuleResult{
				failing(rules.MustNot, "retired-codes", nil, [2]string{"ex-66", "on POST tools/call → 200 application/json error -32042: retired"}),
				failing(rules.ShouldNot, "legacy-range-codes", nil, [2]string{"ex-1", "on POST server/discover → 400 application/json error -32000: legacy"}),
			},
			want: [][]string{{"retired-codes"}, {"legacy-range-codes"}},
		},
		{
			name: "links are transitive: a behaviour read by three rules is one finding",
			rs: []RuleResult{
				failing(rules.MustNot, "retired-codes", nil, [2]string{"ex-66", "on POST tools/call → 200 application/json error -32042: retired"}),
				failing(rules.MustNot, "spec-reserved-codes", nil, [2]string{"ex-66", "on POST tools/call → 200 application/json error -32042: reserved"}, [2]string{"ex-10", "on POST tools/call → 200 application/json error -32050: reserved"}),
				failing(rules.Should, "app-codes-outside-reserved", nil, [2]string{"ex-10", "on POST tools/call → 200 application/json error -32050: app"}),
			},
			want: [][]string{{"retired-codes", "spec-reserved-codes", "app-codes-outside-reserved"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Result{Rules: tt.rs}
			got := groupNames(r)
			if !slices.EqualFunc(got, tt.want, slices.Equal[[]string]) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			tl := r.Tally()
			if tl.Findings != len(tt.want) || tl.FailedRules != len(tt.rs) {
				t.Errorf("tally %d findings, %d rules; want %d, %d", tl.Findings, tl.FailedRules, len(tt.want), len(tt.rs))
			}
		})
	}
}

func TestFindingsAreRankedByConsequence(t *testing.T) {
	r := &Result{Rules: []RuleResult{
		failing(rules.Should, "plain-should", nil, [2]string{"a", "x"}),
		failing(rules.Should, "secure-should", []rules.Area{rules.AreaSecurity}, [2]string{"b", "x"}),
		failing(rules.Must, "plain-must", nil, [2]string{"c", "x"}),
		failing(rules.Must, "secure-must", []rules.Area{rules.AreaAuth}, [2]string{"d", "x"}),
		failing(rules.Must, "discover-implemented", []rules.Area{rules.AreaDiscover}, [2]string{"e", "x"}),
	}}
	var got []string
	for _, f := range r.Findings() {
		got = append(got, f.Primary().Rule.Name)
	}
	want := []string{"discover-implemented", "secure-must", "plain-must", "secure-should", "plain-should"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestGroupingTablesNameRealRules: a renamed rule would silently drop out of its family.
func TestGroupingTablesNameRealRules(t *testing.T) {
	known := map[string]bool{}
	for _, r := range rules.All() {
		known[r.Name] = true
	}
	for name := range rootCauses {
		if !known[name] {
			t.Errorf("rootCauses names %q, which is not a rule", name)
		}
	}
	for _, fam := range overlapFamilies {
		for _, name := range fam {
			if !known[name] {
				t.Errorf("overlapFamilies names %q, which is not a rule", name)
			}
		}
	}
}

func TestObservationFingerprintIgnoresWordingAndVolatileData(t *testing.T) {
	id := rules.MakeID(rules.Must, "x")
	same := [][2]string{
		{"sent ping with Origin: x; got POST ping → 200 application/json result; expected HTTP 403",
			"sent ping with Origin: x; got POST ping → 500 text/plain; expected 403 (reworded)"},
		{"on POST tools/call → 200 application/json error -32042: the server emitted retired code -32042 (\"a\")",
			"on POST tools/call → 400 application/json error -32042: different words"},
		{"on POST initialize → 200 application/json result: Mcp-Session-Id \"a457de20782dd7aa\"",
			"on POST initialize → 200 application/json result: Mcp-Session-Id \"ffff00001111\""},
		{"tools/call get_weather: bad (seen 3 time(s), 2026-01-01T00:00:00Z to 2026-01-02T00:00:00Z)",
			"tools/call get_weather: bad (seen 9 time(s), 2026-03-01T00:00:00Z to 2026-03-02T00:00:00Z)"},
	}
	for _, p := range same {
		if a, b := ObservationFingerprint(id, p[0]), ObservationFingerprint(id, p[1]); a != b {
			t.Errorf("fingerprints differ (%s, %s) for the same observation:\n %q\n %q", a, b, p[0], p[1])
		}
	}
	differ := [][2]string{
		{"sent ping with Mcp-Method: tools/list; got POST ping → 200", "sent ping with Mcp-Method: SERVER/DISCOVER; got POST ping → 200"},
		{"on POST tools/call → 200 application/json error -32042: x", "on POST tools/call → 200 application/json error -32002: x"},
		{"on POST tools/list → 200 application/json result: x", "on POST prompts/list → 200 application/json result: x"},
	}
	for _, p := range differ {
		if ObservationFingerprint(id, p[0]) == ObservationFingerprint(id, p[1]) {
			t.Errorf("one fingerprint for two observations:\n %q\n %q", p[0], p[1])
		}
	}
	if ObservationFingerprint(id, same[0][0]) == ObservationFingerprint(rules.MakeID(rules.Must, "y"), same[0][0]) {
		t.Error("two rules share a fingerprint for one observation")
	}
}

func TestComparison(t *testing.T) {
	old := &Result{Rules: []RuleResult{
		failing(rules.Must, "a", nil, [2]string{"1", "on POST tools/list → 200 application/json result: bad"}),
		failing(rules.Must, "b", nil, [2]string{"2", "on POST prompts/list → 200 application/json result: bad"}),
		failing(rules.Should, "c", nil, [2]string{"3", "sent x; got POST y → 200; expected 400"}),
	}}
	known := Entries(old)
	if len(known) != 3 || known[0].Note == "" {
		t.Fatalf("Entries = %+v, want one per failing observation, with its text", known)
	}
	known = append(known, Entry{Rule: "MCP/2026-07-28/MUST/renamed-away", Observation: "00"})
	now := &Result{Rules: []RuleResult{
		failing(rules.Must, "a", nil, [2]string{"9", "on POST tools/list → 200 application/json result: still bad, reworded"}),
		{Rule: testRule(rules.Must, "b"), Status: rules.Pass},
		failing(rules.Should, "c", nil, [2]string{"3", "sent z; got POST y → 200; expected 400"}),
		failing(rules.Must, "d", nil, [2]string{"4", "on POST resources/list → 200 application/json result: new"}),
	}, Comparison: Compare("baseline b.json", known)}
	tl := now.Tally()
	if tl.Verdict != VerdictFailed || tl.GateFindings != 1 || tl.Known != 1 || tl.Fixed != 1 || tl.Stale != 2 {
		t.Errorf("tally %+v: want failed on 1 new finding (d), 1 known (a), 1 fixed (b), 2 stale (c's old observation, renamed-away)", tl)
	}
	if got := GateMust.Failures(now); len(got) != 1 || got[0].Rule.Name != "d" {
		t.Errorf("gate failures %v, want only the new rule d", got)
	}
	now.Rules = now.Rules[:3]
	if v := GateMust.Verdict(now); v != VerdictPassed {
		t.Errorf("with only known failures the verdict is %s, want passed", v)
	}
	if v := GateShould.Verdict(now); v != VerdictFailed {
		t.Errorf("c failing with a new observation under the should gate: verdict %s, want failed", v)
	}
}
