package report

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestGateCheck(t *testing.T) {
	tests := []struct {
		name         string
		gate         Gate
		result       *Result
		wantFailures int // 0: the gate passes
	}{
		{name: "must gate passes an empty result", gate: GateMust, result: testResult()},
		{
			name:         "must gate fails on a MUST failure",
			gate:         GateMust,
			result:       testResult(rules.Must, rules.Fail, rules.Must, rules.Pass),
			wantFailures: 1,
		},
		{
			name:         "must gate fails on a MUST NOT failure",
			gate:         GateMust,
			result:       testResult(rules.MustNot, rules.Fail),
			wantFailures: 1,
		},
		{
			name:   "must gate ignores SHOULD and SHOULD NOT failures",
			gate:   GateMust,
			result: testResult(rules.Should, rules.Fail, rules.ShouldNot, rules.Fail, rules.Must, rules.Pass),
		},
		{
			name:   "indeterminate MUST rules never fail the must gate",
			gate:   GateMust,
			result: testResult(rules.Must, rules.Indeterminate, rules.MustNot, rules.Indeterminate),
		},
		{
			name:   "n/a MUST rules never fail the must gate",
			gate:   GateMust,
			result: testResult(rules.Must, rules.NotApplicable),
		},
		{
			name:         "should gate counts failures at every level",
			gate:         GateShould,
			result:       testResult(rules.Must, rules.Fail, rules.MustNot, rules.Fail, rules.Should, rules.Fail, rules.ShouldNot, rules.Fail),
			wantFailures: 4,
		},
		{
			name:   "should gate ignores indeterminate and n/a",
			gate:   GateShould,
			result: testResult(rules.Should, rules.Indeterminate, rules.ShouldNot, rules.NotApplicable, rules.Must, rules.Pass),
		},
		{
			name:   "none gate passes even MUST failures",
			gate:   GateNone,
			result: testResult(rules.Must, rules.Fail, rules.Should, rules.Fail),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.gate.Check(tt.result)
			if tt.wantFailures == 0 {
				if err != nil {
					t.Fatalf("%s.Check() = %v, want nil", tt.gate, err)
				}
				return
			}
			var ge *GateError
			if !errors.As(err, &ge) {
				t.Fatalf("%s.Check() = %v, want a *GateError", tt.gate, err)
			}
			if ge.Rules != tt.wantFailures || ge.Findings != tt.wantFailures || ge.Gate != tt.gate {
				t.Errorf("%s.Check() = %+v, want %d failures on gate %s", tt.gate, ge, tt.wantFailures, tt.gate)
			}
			if got := len(tt.gate.Failures(tt.result)); got != tt.wantFailures {
				t.Errorf("len(Failures()) = %d, want %d", got, tt.wantFailures)
			}
		})
	}
}

// TestVerdictPredicates pins what cmd/internal/cli reads to pick the exit code: only a
// finished scan is Finished, only a failed one Failed, and the label every format leads with.
func TestVerdictPredicates(t *testing.T) {
	tests := []struct {
		v                Verdict
		finished, failed bool
		label            string
	}{
		{VerdictPassed, true, false, "PASSED"},
		{VerdictFailed, true, true, "FAILED"},
		{VerdictIncomplete, false, false, "INCOMPLETE"},
		{VerdictCouldNotRun, false, false, "COULD NOT RUN"},
	}
	for _, tt := range tests {
		if tt.v.Finished() != tt.finished || tt.v.Failed() != tt.failed || tt.v.Label() != tt.label {
			t.Errorf("%s: Finished %v Failed %v Label %q, want %v %v %q", tt.v, tt.v.Finished(), tt.v.Failed(), tt.v.Label(), tt.finished, tt.failed, tt.label)
		}
	}
}

// TestGateErrorCarriesNoExitCode: only cmd/internal/cli decides exit codes.
func TestGateErrorCarriesNoExitCode(t *testing.T) {
	err := fmt.Errorf("probing: %w", GateMust.Check(testResult(rules.Must, rules.Fail)))
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		t.Fatalf("%v carries exit code %d: report must not decide exit codes", err, coded.ExitCode())
	}
	if !strings.Contains(err.Error(), "1 finding (1 rule)") {
		t.Errorf("GateError says %q, want the finding and rule counts", err)
	}
}

func TestParseGate(t *testing.T) {
	tests := []struct {
		in      string
		want    Gate
		wantErr bool
	}{
		{in: "must", want: GateMust},
		{in: "should", want: GateShould},
		{in: "none", want: GateNone},
		{in: "MUST", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseGate(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseGate(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestVerdictNeverPassesAnUnfinishedScan(t *testing.T) {
	failing := &Result{Rules: []RuleResult{{Rule: rules.Rule{Level: rules.Must}, Status: rules.Fail}}}
	clean := &Result{Rules: []RuleResult{{Rule: rules.Rule{Level: rules.Must}, Status: rules.Pass}}}
	cases := []struct {
		name string
		r    *Result
		want Verdict
	}{
		{"a finished clean scan passes", clean, VerdictPassed},
		{"a finished scan with a MUST failure fails", failing, VerdictFailed},
		{"an unfinished clean scan is incomplete", &Result{Rules: clean.Rules, Incomplete: &Incomplete{Unfinished: 1, Total: 2}}, VerdictIncomplete},
		{"an unfinished scan with a failure is still incomplete", &Result{Rules: failing.Rules, Incomplete: &Incomplete{Unfinished: 1, Total: 2}}, VerdictIncomplete},
		{"a scan that could not run says so", &Result{CouldNotRun: &CouldNotRun{Reason: "not an MCP endpoint"}}, VerdictCouldNotRun},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := GateMust.Verdict(c.r); got != c.want {
				t.Fatalf("verdict %q, want %q", got, c.want)
			}
		})
	}
}
