package report_test

import (
	"fmt"
	"os"
	"time"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// Example shows the end of a scan: merge outcomes into a result, render it, then let the gate
// (not the renderer) give the verdict that cmd/internal/cli turns into the exit code.
func Example() {
	rule := rules.Rule{
		ID: rules.MakeID(rules.Must, "result-type-present"), Name: "result-type-present", Level: rules.Must,
		Requirement: "Every result carries resultType.", SpecURL: rules.SpecBase + "basic#result-responses",
		Remediation: "Add resultType to every result.", Check: rules.CheckPassive, Areas: []rules.Area{rules.AreaJSONRPC},
	}
	res := &report.Result{
		Tool: "sentinel 0.1.0", Target: "http://127.0.0.1:8080/mcp",
		Started: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC), Duration: 1500 * time.Millisecond,
		Rules: report.Merge([]rules.Rule{rule}, []rules.Outcome{
			rules.Failed(rule.ID, "tools/list returned a result without resultType."),
		}),
	}
	rd, err := report.New(report.FormatText, &report.Options{Width: 80})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := rd.Render(os.Stdout, res); err != nil {
		fmt.Println(err)
	}
	fmt.Println("exit on:", report.GateMust.Verdict(res))
	// Output:
	// FAILED the must gate: 1 finding (1 rule) fail it
	//
	//   target:   http://127.0.0.1:8080/mcp
	//   tool:     sentinel 0.1.0
	//   started:  2026-07-28T12:00:00Z, took 1.5s
	//   gate:     must: MUST and MUST NOT failures fail the scan
	//
	//   MUST: 0 pass, 1 fail, 0 indeterminate, 0 n/a
	//   SHOULD: 0 pass, 0 fail, 0 indeterminate, 0 n/a
	//   evaluated: 1 of 1 rules (pass or fail); 1 finding breaks 1 rule
	//
	// Top failures (root causes, then security, then MUST, then SHOULD)
	//   1  MUST      result-type-present: Every result carries resultType.
	//
	// Failures: 1 finding (1 rule)
	//
	//  1. FAIL [MUST] MCP/2026-07-28/MUST/result-type-present
	//     requirement:  Every result carries resultType.
	//     observed:     tools/list returned a result without resultType.
	//     remediation:  Add resultType to every result.
	//     spec:         https://modelcontextprotocol.io/specification/2026-07-28/basic#result-responses
	//
	// Indeterminate: 0 rules not settled by this scan, never counted as a pass
	//   none
	// exit on: failed
}
