package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/report/sarifcheck"
	"github.com/mcp-sentinel/sentinel/rules"
)

// sarifDoc is the part of a SARIF log these tests read back.
type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name, Version, InformationURI string
				Rules                         []struct {
					ID               string
					HelpURI          string
					ShortDescription struct{ Text string }
					Help             struct{ Text string }
					Properties       map[string]any
				}
			}
		}
		Results []struct {
			RuleID    string
			RuleIndex int
			Level     string
			Kind      string
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI, URIBaseID string }
					Region           *struct{ StartLine int }
				}
			}
		}
	}
}

func renderSARIF(t *testing.T, r *Result, opts *Options) (sarifDoc, []byte) {
	t.Helper()
	rd, err := New(FormatSARIF, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rd.Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(buf.Bytes()); err != nil {
		t.Fatalf("the SARIF output is invalid: %v\n%s", err, buf.Bytes())
	}
	var doc sarifDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("SARIF has %d runs, want exactly 1", len(doc.Runs))
	}
	return doc, buf.Bytes()
}

// TestSARIFLevels pins which statuses become results and at what level.
func TestSARIFLevels(t *testing.T) {
	tests := []struct {
		name      string
		level     rules.Level
		status    rules.Status
		opts      *Options
		wantLevel string // "" means no result is emitted
	}{
		{"a MUST failure is an error", rules.Must, rules.Fail, nil, "error"},
		{"a MUST NOT failure is an error", rules.MustNot, rules.Fail, nil, "error"},
		{"a SHOULD failure is a warning", rules.Should, rules.Fail, nil, "warning"},
		{"a SHOULD NOT failure is a warning", rules.ShouldNot, rules.Fail, nil, "warning"},
		{"an indeterminate rule emits no result by default", rules.Must, rules.Indeterminate, nil, ""},
		{"with --sarif-indeterminate an indeterminate MUST rule is a note", rules.Must, rules.Indeterminate, &Options{SARIFIndeterminate: true}, "note"},
		{"with --sarif-indeterminate an indeterminate SHOULD rule is a note", rules.Should, rules.Indeterminate, &Options{SARIFIndeterminate: true}, "note"},
		{"a pass emits no result", rules.Must, rules.Pass, nil, ""},
		{"an n/a rule emits no result", rules.MustNot, rules.NotApplicable, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, _ := renderSARIF(t, testResult(tt.level, tt.status), tt.opts)
			run := doc.Runs[0]
			if len(run.Tool.Driver.Rules) != 1 {
				t.Fatalf("driver has %d rules, want the 1 rule of the result whatever its status", len(run.Tool.Driver.Rules))
			}
			if tt.wantLevel == "" {
				if len(run.Results) != 0 {
					t.Fatalf("got %d results, want none", len(run.Results))
				}
				return
			}
			if len(run.Results) != 1 {
				t.Fatalf("got %d results, want 1", len(run.Results))
			}
			if got := run.Results[0].Level; got != tt.wantLevel {
				t.Errorf("level = %q, want %q", got, tt.wantLevel)
			}
		})
	}
}

func TestSARIFDriverAndDescriptors(t *testing.T) {
	r := testResult(rules.Must, rules.Fail, rules.Should, rules.Pass)
	r.Tool = "sentinel 1.2.3"
	doc, _ := renderSARIF(t, r, &Options{InformationURI: "https://example.test/sentinel"})
	d := doc.Runs[0].Tool.Driver
	if d.Name != "sentinel" || d.Version != "1.2.3" || d.InformationURI != "https://example.test/sentinel" {
		t.Errorf("driver = %q %q %q, want sentinel 1.2.3 https://example.test/sentinel", d.Name, d.Version, d.InformationURI)
	}
	for i, rd := range d.Rules {
		want := r.Rules[i].Rule
		if rd.ID != want.ID || rd.HelpURI != want.SpecURL || rd.ShortDescription.Text != want.Requirement || rd.Help.Text != want.Remediation {
			t.Errorf("descriptor %d = %+v, want id/helpUri/shortDescription/help from %+v", i, rd, want)
		}
		if rd.Properties["level"] != string(want.Level) || rd.Properties["check"] != string(want.Check) {
			t.Errorf("descriptor %d properties = %v, want level %q and check %q", i, rd.Properties, want.Level, want.Check)
		}
	}
	res := doc.Runs[0].Results[0]
	if res.RuleID != r.Rules[0].Rule.ID || res.RuleIndex != 0 {
		t.Errorf("result cites %q at index %d, want %q at 0", res.RuleID, res.RuleIndex, r.Rules[0].Rule.ID)
	}
	if !strings.Contains(res.Message.Text, "observed violation") {
		t.Errorf("failure message %q does not carry the observed evidence", res.Message.Text)
	}
}

func TestSARIFLocations(t *testing.T) {
	r := testResult(rules.Must, rules.Fail, rules.Should, rules.Indeterminate)
	t.Run("without an anchor the endpoint URL is the artifact", func(t *testing.T) {
		doc, _ := renderSARIF(t, r, nil)
		for _, res := range doc.Runs[0].Results {
			loc := res.Locations[0].PhysicalLocation
			if loc.ArtifactLocation.URI != r.Target || loc.ArtifactLocation.URIBaseID != "" {
				t.Errorf("artifact = %+v, want the target URL %q with no base", loc.ArtifactLocation, r.Target)
			}
		}
	})
	t.Run("an anchor is a repository path under SRCROOT with a line", func(t *testing.T) {
		doc, _ := renderSARIF(t, r, &Options{SARIFAnchor: "cmd/server/main.go"})
		for _, res := range doc.Runs[0].Results {
			loc := res.Locations[0].PhysicalLocation
			if loc.ArtifactLocation.URI != "cmd/server/main.go" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
				t.Errorf("artifact = %+v, want cmd/server/main.go under %%SRCROOT%%", loc.ArtifactLocation)
			}
			if loc.Region == nil || loc.Region.StartLine != 1 {
				t.Errorf("region = %+v, want startLine 1", loc.Region)
			}
		}
	})
}

func TestSARIFIndeterminateSaysWhy(t *testing.T) {
	doc, _ := renderSARIF(t, testResult(rules.Must, rules.Indeterminate), &Options{SARIFIndeterminate: true})
	if msg := doc.Runs[0].Results[0].Message.Text; !strings.Contains(msg, "could not see it") || !strings.Contains(msg, "Would settle it:") {
		t.Errorf("indeterminate message %q does not say why and what would settle it", msg)
	}
}

// TestSARIFValidationCatchesBadLevels proves the validator used on every SARIF output can fail:
// the same document with a level outside the four is rejected.
func TestSARIFValidationCatchesBadLevels(t *testing.T) {
	_, data := renderSARIF(t, testResult(rules.Must, rules.Fail), nil)
	bad := bytes.Replace(data, []byte(`"level": "error"`), []byte(`"level": "critical"`), 1)
	if bytes.Equal(bad, data) {
		t.Fatal("the test document has no error-level result to corrupt")
	}
	if err := sarifcheck.Validate(bad); err == nil {
		t.Errorf("sarifcheck.Validate accepted a result with level \"critical\"")
	}
}

func TestSARIFSchemaURLMatchesTheValidator(t *testing.T) {
	if sarifSchemaURL != sarifcheck.SchemaURL {
		t.Errorf("the SARIF writer names schema %q, the validator %q", sarifSchemaURL, sarifcheck.SchemaURL)
	}
}

// TestSARIFSaysWhyAScanDidNotFinish: an incomplete scan and one that could not run still give a
// valid log, whose invocation failed with a toolExecutionNotification saying why.
func TestSARIFSaysWhyAScanDidNotFinish(t *testing.T) {
	incomplete := testResult(rules.Must, rules.Fail)
	incomplete.Incomplete = &Incomplete{Unfinished: 2, Total: 9, Reason: "2 of 9 probes did not finish before --timeout 1s; raise --timeout"}
	for name, r := range map[string]*Result{
		"could not run": {CouldNotRun: &CouldNotRun{Reason: "not an MCP endpoint: POST / → 501 text/html"}},
		"incomplete":    incomplete,
		"finished":      testResult(rules.Must, rules.Pass),
	} {
		t.Run(name, func(t *testing.T) {
			_, data := renderSARIF(t, r, nil)
			var doc struct {
				Runs []struct {
					Invocations []struct {
						ExecutionSuccessful        bool
						ToolExecutionNotifications []struct {
							Level   string
							Message struct{ Text string }
						}
					}
				}
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			inv := doc.Runs[0].Invocations
			if len(inv) != 1 {
				t.Fatalf("%d invocations, want 1", len(inv))
			}
			finished := r.CouldNotRun == nil && r.Incomplete == nil
			if inv[0].ExecutionSuccessful != finished || (len(inv[0].ToolExecutionNotifications) == 1) == finished {
				t.Fatalf("invocation %+v: want executionSuccessful %v and a notification only when the scan did not finish", inv[0], finished)
			}
			if !finished && !strings.Contains(inv[0].ToolExecutionNotifications[0].Message.Text, "did not finish") &&
				!strings.Contains(inv[0].ToolExecutionNotifications[0].Message.Text, "not an MCP endpoint") {
				t.Errorf("notification %q does not say why", inv[0].ToolExecutionNotifications[0].Message.Text)
			}
		})
	}
}

// TestSARIFFingerprintsSurviveARescan: the same failure seen again, in other words and on
// another exchange, keeps its partialFingerprints; a comparison marks results new or unchanged.
func TestSARIFFingerprintsSurviveARescan(t *testing.T) {
	scan := func(obs string) *Result {
		r := testResult(rules.Must, rules.Fail)
		r.Rules[0].Evidence = []rules.Outcome{{RuleID: r.Rules[0].Rule.ID, Status: rules.Fail, Exchange: "ex-9", Observed: obs}}
		return r
	}
	first := scan("on POST tools/list → 200 application/json result: no resultType")
	second := scan("on POST tools/list → 200 application/json result: the result has no resultType at all")
	second.Comparison = Compare("baseline b.json", Entries(first))
	type doc struct {
		Runs []struct {
			Results []struct {
				PartialFingerprints map[string]string
				BaselineState       string
			}
		}
	}
	var a, b doc
	_, da := renderSARIF(t, first, nil)
	_, db := renderSARIF(t, second, nil)
	if err := json.Unmarshal(da, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(db, &b); err != nil {
		t.Fatal(err)
	}
	fa, fb := a.Runs[0].Results[0].PartialFingerprints[SARIFFingerprintKey], b.Runs[0].Results[0].PartialFingerprints[SARIFFingerprintKey]
	if fa == "" || fa != fb {
		t.Errorf("partialFingerprints %q then %q, want one stable value", fa, fb)
	}
	if s := b.Runs[0].Results[0].BaselineState; s != "unchanged" {
		t.Errorf("baselineState %q, want unchanged for a failure the baseline knows", s)
	}
}
