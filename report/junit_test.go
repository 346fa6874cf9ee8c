package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func renderJUnit(t *testing.T, r *Result) junitDoc {
	t.Helper()
	rd, _ := New(FormatJUnit, nil)
	var buf bytes.Buffer
	if err := rd.Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("the JUnit output does not parse: %v\n%s", err, buf.Bytes())
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("got %d testsuites, want 1", len(doc.Suites))
	}
	return doc
}

func TestJUnitCasesAndCounts(t *testing.T) {
	r := testResult(
		rules.Must, rules.Fail, rules.MustNot, rules.Pass, rules.Should, rules.Fail,
		rules.ShouldNot, rules.Indeterminate, rules.Must, rules.NotApplicable, rules.Must, rules.Pass,
	)
	r.Rules[0].Rule.Areas = []rules.Area{rules.AreaHeaders, rules.AreaTransport}
	doc := renderJUnit(t, r)
	s := doc.Suites[0]
	if s.Name != r.Target {
		t.Errorf("testsuite name = %q, want the target %q", s.Name, r.Target)
	}
	// The SHOULD failure is not counted by the must gate: skipped, saying so.
	if s.Tests != 6 || s.Failures != 1 || s.Skipped != 3 || s.Errors != 0 {
		t.Errorf("suite counts tests=%d failures=%d skipped=%d errors=%d, want 6 1 3 0", s.Tests, s.Failures, s.Skipped, s.Errors)
	}

	if doc.Tests != s.Tests || doc.Failures != s.Failures || doc.Skipped != s.Skipped {
		t.Errorf("testsuites counts %d/%d/%d disagree with the suite's", doc.Tests, doc.Failures, doc.Skipped)
	}
	if len(s.Cases) != 6 {
		t.Fatalf("got %d testcases, want one per rule (6)", len(s.Cases))
	}
	byName := map[string]int{}
	for i, c := range s.Cases {
		byName[c.Name] = i
	}
	if sk := s.Cases[byName[r.Rules[2].Rule.ID]].Skipped; sk == nil || !strings.HasPrefix(sk.Message, "fails, not counted by the must gate") {
		t.Errorf("SHOULD failure under the must gate: skipped = %+v", sk)
	}
	r.Gate = GateShould
	if s2 := renderJUnit(t, r).Suites[0]; s2.Failures != 2 {
		t.Errorf("under the should gate: %d failures, want 2", s2.Failures)
	}
	r.Gate = ""
	c := s.Cases[byName[r.Rules[0].Rule.ID]]
	if c.Classname != "headers" || c.Name != r.Rules[0].Rule.ID {
		t.Errorf("testcase = %s/%s, want headers/%s (primary area, rule ID)", c.Classname, c.Name, r.Rules[0].Rule.ID)
	}
	if c.Failure == nil || c.Failure.Type != "MUST" || c.Failure.Message != "observed violation" {
		t.Fatalf("failure = %+v, want type MUST and the observed evidence as message", c.Failure)
	}
	for _, want := range []string{"observed violation", r.Rules[0].Rule.Remediation, r.Rules[0].Rule.SpecURL} {
		if !strings.Contains(c.Failure.Body, want) {
			t.Errorf("failure body lacks %q:\n%s", want, c.Failure.Body)
		}
	}
	if sk := s.Cases[byName[r.Rules[3].Rule.ID]].Skipped; sk == nil || !strings.HasPrefix(sk.Message, "indeterminate: could not see it") {
		t.Errorf("indeterminate case skipped = %+v, want message starting \"indeterminate: could not see it\"", sk)
	}
	if sk := s.Cases[byName[r.Rules[4].Rule.ID]].Skipped; sk == nil || sk.Message != "n/a: feature absent" {
		t.Errorf("n/a case skipped = %+v, want message \"n/a: feature absent\"", sk)
	}
	if p := s.Cases[byName[r.Rules[5].Rule.ID]]; p.Failure != nil || p.Skipped != nil {
		t.Errorf("passing case carries failure %+v or skipped %+v", p.Failure, p.Skipped)
	}
}

// TestJUnitSurvivesCharactersXMLCannotCarry: control characters and a CDATA terminator in
// evidence still give a document parsers accept, with the text around them intact.
func TestJUnitSurvivesCharactersXMLCannotCarry(t *testing.T) {
	r := testResult(rules.Must, rules.Fail)
	r.Rules[0].Evidence[0].Observed = "nul\x00 esc\x1b end]]> <tag> & \xfe done"
	doc := renderJUnit(t, r)
	f := doc.Suites[0].Cases[0].Failure
	if f == nil || !strings.Contains(f.Body, "end]]> <tag> & ") || !strings.Contains(f.Body, "done") {
		t.Errorf("failure body lost text: %+v", f)
	}
}
