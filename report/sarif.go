package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/mcp-sentinel/sentinel/rules"
)

// sarifRenderer writes one SARIF 2.1.0 log with one run. What it emits (docs/result-schema.md):
//
//   - a reportingDescriptor for every rule in the result, pass and n/a included, so a consumer
//     sees what was examined;
//   - a result for every fail (level error for MUST/MUST NOT, warning for SHOULD/SHOULD NOT)
//     and every indeterminate rule (level note, the message says why it was not settled), so CI
//     shows what was not checked. Indeterminate results carry no kind, so "fail" is implied:
//     SARIF wants level "none" with any other kind, and CI hides level-none results.
//     properties.status tells the two apart;
//   - no result for pass or n/a: code-scanning UIs list every result, and a few hundred "pass"
//     entries would drown the failures. The run's properties carry all four counts instead.
//
// Output is deterministic: the only times in it are the Result's own.
type sarifRenderer struct {
	anchor  string // repository-relative path results point at; "" means the endpoint URL
	infoURI string
}

// sarifSchemaURL is written as the log's "$schema". It equals sarifcheck.SchemaURL (a test
// checks); report does not import sarifcheck so the binary does not carry the schema and its
// validator.
const sarifSchemaURL = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifSrcRoot is the uriBaseId for anchored locations; code-scanning uploads resolve it to
// the repository checkout.
const sarifSrcRoot = "%SRCROOT%"

// sarifLevel maps a rule level to the SARIF level of its failures.
func sarifLevel(l rules.Level) string {
	if l.Mandatory() {
		return "error"
	}
	return "warning"
}

// Render writes r as SARIF. The whole log is built first and written in one call.
func (s *sarifRenderer) Render(w io.Writer, r *Result) error {
	if r == nil {
		return errNilResult
	}
	data, err := s.marshal(r)
	if err != nil {
		return err
	}
	return writeAll(w, "SARIF", data)
}

func (s *sarifRenderer) marshal(r *Result) ([]byte, error) {
	log, err := sarif.New(sarif.Version210, false)
	if err != nil {
		return nil, fmt.Errorf("building the SARIF log: %w", err)
	}
	log.Schema = sarifSchemaURL

	driver := sarif.NewDriver("sentinel").WithInformationURI(s.infoURI)
	if v := toolVersion(r.Tool); v != "" {
		driver.WithVersion(v)
	}
	run := sarif.NewRun(sarif.Tool{Driver: driver})
	run.Properties = runProperties(r)
	if !r.Started.IsZero() {
		start, end := r.Started.UTC(), r.Started.Add(r.Duration).UTC()
		inv := run.AddInvocation(r.CouldNotRun == nil && r.Incomplete == nil)
		inv.StartTimeUTC, inv.EndTimeUTC = &start, &end
	}

	for i, rr := range sortedRules(r) {
		driver.Rules = append(driver.Rules, sarifDescriptor(rr.Rule))
		if res := s.result(r, rr, i); res != nil {
			run.AddResult(res)
		}
	}
	log.AddRun(run)

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return nil, fmt.Errorf("encoding the SARIF log: %w", err)
	}
	return buf.Bytes(), nil
}

// toolVersion takes the version out of Result.Tool ("sentinel 0.1.0" gives "0.1.0").
func toolVersion(tool string) string {
	f := strings.Fields(tool)
	if len(f) < 2 {
		return ""
	}
	return f[len(f)-1]
}

func runProperties(r *Result) sarif.Properties {
	must, should := r.Summary()
	p := sarif.Properties{
		"target":        r.Target,
		"resultSchema":  SchemaVersion,
		"durationNs":    int64(r.Duration),
		"summaryMust":   must,
		"summaryShould": should,
	}
	if r.Era != "" {
		p["era"] = r.Era
	}
	if len(r.Notes) > 0 {
		p["notes"] = r.Notes
	}
	if r.CouldNotRun != nil {
		p["couldNotRun"] = r.CouldNotRun.Reason
	}
	if r.Incomplete != nil {
		p["incomplete"] = r.Incomplete.Reason
	}
	return p
}

func sarifDescriptor(rule rules.Rule) *sarif.ReportingDescriptor {
	d := sarif.NewRule(rule.ID).
		WithName(rule.Name).
		WithShortDescription(sarif.NewMultiformatMessageString(orDash(rule.Requirement))).
		WithDefaultConfiguration(&sarif.ReportingConfiguration{Level: sarifLevel(rule.Level)})
	if rule.SpecURL != "" {
		d.WithHelpURI(rule.SpecURL)
	}
	if rule.Remediation != "" {
		d.WithTextHelp(rule.Remediation)
	}
	areas := make([]string, len(rule.Areas))
	for i, a := range rule.Areas {
		areas[i] = string(a)
	}
	props := sarif.Properties{
		"level": string(rule.Level),
		"check": string(rule.Check),
		"areas": areas,
		// tags are what code-scanning UIs filter on.
		"tags": append([]string{"mcp", string(rule.Level)}, areas...),
	}
	if rule.Requires != "" {
		props["requires"] = string(rule.Requires)
	}
	return d.WithProperties(props)
}

// result builds the SARIF result for one rule, or nil for statuses that are not emitted.
func (s *sarifRenderer) result(r *Result, rr RuleResult, index int) *sarif.Result {
	var level, text string
	switch rr.Status {
	case rules.Fail:
		level = sarifLevel(rr.Rule.Level)
		text = fmt.Sprintf("%s violated: %s Observed: %s", rr.Rule.Level, sentence(orDash(rr.Rule.Requirement)), orDash(rr.Observed()))
	case rules.Indeterminate:
		level = "note"
		text = fmt.Sprintf("Not checked (indeterminate): %s Would settle it: %s", sentence(rr.Why()), rr.WouldSettle())
	case rules.Pass, rules.NotApplicable:
		return nil
	default:
		return nil
	}
	res := sarif.NewRuleResult(rr.Rule.ID).
		WithRuleIndex(index).
		WithLevel(level).
		WithMessage(sarif.NewTextMessage(text)).
		WithLocations([]*sarif.Location{s.location(r)})
	res.Properties = sarif.Properties{"status": string(rr.Status)}
	return res
}

func (s *sarifRenderer) location(r *Result) *sarif.Location {
	if s.anchor == "" {
		return sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
			WithArtifactLocation(sarif.NewSimpleArtifactLocation(r.Target)))
	}
	return sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
		WithArtifactLocation(sarif.NewSimpleArtifactLocation(s.anchor).WithUriBaseId(sarifSrcRoot)).
		// Code-scanning UIs need a line to attach an annotation to; the finding is about the
		// server as a whole, so it sits on the anchor's first line.
		WithRegion(sarif.NewRegion().WithStartLine(1))).
		WithMessage(sarif.NewTextMessage("scanned endpoint: " + r.Target))
}
