package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-sentinel/sentinel/rules"
)

func init() {
	register(Format{Name: FormatJUnit, Ext: ".xml", Help: "JUnit XML for CI test reports", order: 3,
		new: func(Options) Renderer { return junitRenderer{} }})
}

var _ Renderer = junitRenderer{}

// junitRenderer writes JUnit XML: one testsuite named after the target, one testcase per rule
// (classname = primary area, name = rule ID). Its counts agree with the gate: a failure that
// fails the gate is a <failure> whose type is the level; a failure the gate does not count (a
// SHOULD failure under the must gate, one the baseline knows) is <skipped> saying so, so the
// failures attribute equals the gate's failing rules and a passing gate shows no red test.
// Indeterminate and n/a are <skipped> with the reason, shown as not run rather than as passes.
// A scan that did not finish adds one testcase with an <error> saying why.
type junitRenderer struct{}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Name    string       `xml:"name,attr"`
	Tests   int          `xml:"tests,attr"`
	Fails   int          `xml:"failures,attr"`
	Errors  int          `xml:"errors,attr"`
	Skipped int          `xml:"skipped,attr"`
	Time    string       `xml:"time,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string          `xml:"name,attr"`
	Tests     int             `xml:"tests,attr"`
	Fails     int             `xml:"failures,attr"`
	Errors    int             `xml:"errors,attr"`
	Skipped   int             `xml:"skipped,attr"`
	Time      string          `xml:"time,attr"`
	Timestamp string          `xml:"timestamp,attr,omitempty"`
	Props     []junitProperty `xml:"properties>property,omitempty"`
	Cases     []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// Render writes r as JUnit XML, built whole and written in one call.
func (junitRenderer) Render(w io.Writer, r *Result) error {
	if r == nil {
		return errNilResult
	}
	data, err := marshalJUnit(r)
	if err != nil {
		return err
	}
	return writeAll(w, "JUnit", data)
}

func marshalJUnit(r *Result) ([]byte, error) {
	secs := fmt.Sprintf("%.3f", r.Duration.Seconds())
	suite := junitSuite{Name: xmlSafe(r.Target), Time: secs}
	if !r.Started.IsZero() {
		suite.Timestamp = r.Started.UTC().Format("2006-01-02T15:04:05")
	}
	for _, p := range [][2]string{{"tool", r.Tool}, {"era", r.Era}, {"schema", SchemaVersion}} {
		if p[1] != "" {
			suite.Props = append(suite.Props, junitProperty{Name: p[0], Value: xmlSafe(p[1])})
		}
	}
	if r.CouldNotRun != nil {
		suite.Props = append(suite.Props, junitProperty{Name: "couldNotRun", Value: xmlSafe(r.CouldNotRun.Reason)})
	}
	if r.Incomplete != nil {
		suite.Props = append(suite.Props, junitProperty{Name: "incomplete", Value: xmlSafe(r.Incomplete.Reason)})
	}
	for _, n := range r.Notes {
		suite.Props = append(suite.Props, junitProperty{Name: "note", Value: xmlSafe(n)})
	}
	tl := r.Tally()
	for _, p := range [][2]string{
		{"verdict", r.VerdictLine()}, {"gate", string(tl.Gate)},
		{"findings", fmt.Sprint(tl.Findings)}, {"failedRules", fmt.Sprint(tl.FailedRules)},
		{"gateFindings", fmt.Sprint(tl.GateFindings)}, {"gateRules", fmt.Sprint(tl.GateRules)},
	} {
		suite.Props = append(suite.Props, junitProperty{Name: p[0], Value: xmlSafe(p[1])})
	}
	gated, known := map[string]bool{}, map[string]bool{}
	for _, rr := range tl.Gate.Failures(r) {
		gated[rr.Rule.ID] = true
	}
	for _, f := range r.Findings() {
		if r.Known(f) {
			for _, id := range f.RuleIDs() {
				known[id] = true
			}
		}
	}
	for _, rr := range sortedRules(r) {
		c := junitCase{Classname: rr.PrimaryArea(), Name: rr.Rule.ID, Time: "0.000"}
		switch rr.Status {
		case rules.Fail:
			body := xmlSafe(fmt.Sprintf("requirement: %s\nobserved: %s\nremediation: %s\nspec: %s\n",
				rr.Rule.Requirement, orDash(rr.Observed()), rr.Rule.Remediation, rr.Rule.SpecURL))
			if gated[rr.Rule.ID] {
				suite.Fails++
				c.Failure = &junitFailure{Message: xmlSafe(orDash(rr.Observed())), Type: string(rr.Rule.Level), Body: body}
				break
			}
			suite.Skipped++
			why := fmt.Sprintf("fails, not counted by the %s gate", tl.Gate)
			if known[rr.Rule.ID] {
				why = "fails, known to " + r.Comparison.Against
			}
			c.Skipped = &junitSkipped{Message: xmlSafe(why + ": " + orDash(rr.Observed()))}
		case rules.Indeterminate:
			suite.Skipped++
			c.Skipped = &junitSkipped{Message: xmlSafe("indeterminate: " + sentence(rr.Why()) + " Would settle it: " + rr.WouldSettle())}
		case rules.NotApplicable:
			suite.Skipped++
			c.Skipped = &junitSkipped{Message: xmlSafe("n/a: " + rr.Why())}
		case rules.Pass:
		}
		suite.Cases = append(suite.Cases, c)
	}
	if why := unfinishedWhy(r); why != "" {
		suite.Errors++
		suite.Cases = append(suite.Cases, junitCase{Classname: "scan", Name: "sentinel/scan", Time: secs,
			Error: &junitFailure{Message: xmlSafe(why), Type: string(tl.Verdict), Body: xmlSafe(why)}})
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{
		Name: "sentinel", Tests: suite.Tests, Fails: suite.Fails, Errors: suite.Errors, Skipped: suite.Skipped,
		Time: secs, Suites: []junitSuite{suite},
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the JUnit report: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// xmlSafe drops what XML 1.0 cannot carry at all (control characters other than tab, newline
// and carriage return, U+FFFE/U+FFFF, invalid UTF-8). encoding/xml escapes the rest, but it
// would write these as U+FFFD inconsistently or produce a document parsers reject.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xfffe, r == 0xffff:
			return '\uFFFD'
		case r >= 0xd800 && r <= 0xdfff:
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// unfinishedWhy is the reason a scan did not finish, or "".
func unfinishedWhy(r *Result) string {
	switch {
	case r.CouldNotRun != nil:
		return "the scan could not run: " + r.CouldNotRun.Reason
	case r.Incomplete != nil:
		return "the scan did not finish: " + r.Incomplete.Reason
	}
	return ""
}
