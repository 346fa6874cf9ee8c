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

func init() {
	register(Format{Name: FormatSARIF, Ext: ".sarif", Help: "SARIF 2.1.0 for code scanning", order: 2,
		new: func(o Options) Renderer {
			return &sarifRenderer{anchor: o.SARIFAnchor, infoURI: o.InformationURI, indeterminate: o.SARIFIndeterminate}
		}})
}

var _ Renderer = (*sarifRenderer)(nil)

// sarifRenderer writes one SARIF 2.1.0 log with one run. What it emits (docs/result-schema.md):
//
//   - a reportingDescriptor for every rule in the result, pass and n/a included, so a consumer
//     sees what was examined;
//   - a result for every failing rule (level error for MUST/MUST NOT, warning for SHOULD/SHOULD
//     NOT), with partialFingerprints stable across scans (the rule and its first observation
//     fingerprint, never message text), the finding it belongs to and the other rules that
//     finding breaks, and, with a comparison, baselineState new or unchanged;
//   - with --sarif-indeterminate only, a note-level result per indeterminate rule. They carry no
//     kind, so "fail" is implied: SARIF wants level "none" with any other kind, and CI hides
//     level-none results. properties.status tells the two apart;
//   - no result for pass or n/a: code-scanning UIs list every result, and a few hundred "pass"
//     entries would drown the failures. The run's properties carry every count (the Tally);
//   - one invocation whose executionSuccessful is false, with a toolExecutionNotification saying
//     why, when the scan was incomplete or could not run, so an upload step always finds a valid
//     log that says what happened.
//
// Output is deterministic: the only times in it are the Result's own.
type sarifRenderer struct {
	anchor  string // repository-relative path results point at; "" means the endpoint URL
	infoURI string
	// indeterminate adds a note-level result per indeterminate rule (--sarif-indeterminate).
	indeterminate bool
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
	inv := run.AddInvocation(r.EffectiveGate().Verdict(r).Finished())
	if !r.Started.IsZero() {
		start, end := r.Started.UTC(), r.Started.Add(r.Duration).UTC()
		inv.StartTimeUTC, inv.EndTimeUTC = &start, &end
	}
	if n := executionNotification(r); n != nil {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}

	inFinding := map[string]int{}
	findings := r.Findings()
	for i, f := range findings {
		for _, id := range f.RuleIDs() {
			inFinding[id] = i
		}
	}
	for i, rr := range sortedRules(r) {
		driver.Rules = append(driver.Rules, sarifDescriptor(rr.Rule))
		var f *Finding
		if fi, ok := inFinding[rr.Rule.ID]; ok {
			f = &findings[fi]
		}
		if res := s.result(r, rr, i, f); res != nil {
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
	p := sarif.Properties{
		"target":       r.Target,
		"resultSchema": SchemaVersion,
		"durationNs":   int64(r.Duration),
		// Every count the text report prints, from the same Tally.
		"tally":   r.Tally(),
		"verdict": r.VerdictLine(),
	}
	if r.Era != "" {
		p["era"] = r.Era
	}
	if len(r.Notes) > 0 {
		p["notes"] = r.Notes
	}
	if r.Comparison != nil {
		p["comparedWith"] = r.Comparison.Against
	}
	if r.CouldNotRun != nil {
		p["couldNotRun"] = r.CouldNotRun.Reason
	}
	if r.Incomplete != nil {
		p["incomplete"] = r.Incomplete.Reason
	}
	return p
}

// executionNotification says why a scan did not finish, or nil when it did.
func executionNotification(r *Result) *sarif.Notification {
	var text string
	switch {
	case r.CouldNotRun != nil:
		text = "The scan could not run: " + r.CouldNotRun.Reason
	case r.Incomplete != nil:
		text = "The scan did not finish: " + r.Incomplete.Reason
	default:
		return nil
	}
	n := sarif.NewNotification()
	n.Level = "error"
	n.Message = sarif.NewTextMessage(text)
	return n
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

// SARIFFingerprintKey names Sentinel's entry in a result's partialFingerprints.
const SARIFFingerprintKey = "sentinelObservation/v1"

// result builds the SARIF result for one rule, or nil for statuses that are not emitted. f is
// the finding a failing rule belongs to.
func (s *sarifRenderer) result(r *Result, rr RuleResult, index int, f *Finding) *sarif.Result {
	var level, text string
	switch rr.Status {
	case rules.Fail:
		level = sarifLevel(rr.Rule.Level)
		text = fmt.Sprintf("%s violated: %s Observed: %s", rr.Rule.Level, sentence(orDash(rr.Rule.Requirement)), orDash(rr.Observed()))
	case rules.Indeterminate:
		if !s.indeterminate {
			return nil
		}
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
	if f != nil {
		keys := rr.ObservationKeys()
		if len(keys) > 0 {
			res.PartialFingerprints = map[string]interface{}{SARIFFingerprintKey: keys[0]}
		}
		res.Properties["finding"] = f.Fingerprint()
		res.Properties["findingRules"] = f.RuleIDs()
		res.Properties["gated"] = f.Gated(r.EffectiveGate())
		if r.Comparison != nil {
			state := "new"
			if r.Known(*f) {
				state = "unchanged"
			}
			res.BaselineState = &state
		}
	}
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
