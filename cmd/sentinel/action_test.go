package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcp-sentinel/sentinel/report/sarifcheck"
)

// TestActionYAML checks the composite action's shape: every input the script reads is declared
// and passed, the scan runs the repository's script, the SARIF upload runs even when the scan
// failed, and the last step exits with the scan's code.
func TestActionYAML(t *testing.T) {
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Value string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID   string            `yaml:"id"`
				If   string            `yaml:"if"`
				Run  string            `yaml:"run"`
				Uses string            `yaml:"uses"`
				Env  map[string]string `yaml:"env"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(false)
	if err := dec.Decode(&action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 3 {
		t.Fatalf("action.yml: runs.using %q with %d steps, want a composite of 3", action.Runs.Using, len(action.Runs.Steps))
	}
	scan, upload, exit := action.Runs.Steps[0], action.Runs.Steps[1], action.Runs.Steps[2]
	if !strings.Contains(scan.Run, "scripts/action.sh") || scan.ID != "scan" {
		t.Errorf("the scan step runs %q, want scripts/action.sh", scan.Run)
	}
	script, err := os.ReadFile("../../scripts/action.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name := range action.Inputs {
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if name == "token" {
			env = "SENTINEL_TOKEN"
		}
		if name == "upload-sarif" {
			continue
		}
		if scan.Env[env] != "${{ inputs."+name+" }}" {
			t.Errorf("input %s is not passed as %s", name, env)
		}
		if env != "SENTINEL_TOKEN" && !bytes.Contains(script, []byte(env)) {
			t.Errorf("scripts/action.sh never reads %s", env)
		}
	}
	if !strings.HasPrefix(upload.Uses, "github/codeql-action/upload-sarif@") || !strings.Contains(upload.If, "always()") {
		t.Errorf("the upload step is %q if %q: want upload-sarif even when the scan failed", upload.Uses, upload.If)
	}
	if !strings.Contains(exit.Run, "steps.scan.outputs.exit-code") || !strings.Contains(exit.If, "always()") {
		t.Errorf("the last step %q does not exit with the scan's code", exit.Run)
	}
	for _, o := range []string{"verdict", "exit-code", "sarif-file"} {
		if !strings.Contains(action.Outputs[o].Value, "steps.scan.outputs."+o) {
			t.Errorf("output %s is not the scan step's", o)
		}
	}
}

// runAction runs scripts/action.sh as the action does, with the built binary instead of go
// install, and returns its exit code, the step outputs and the step summary.
func runAction(t *testing.T, env ...string) (int, map[string]string, string, string) {
	t.Helper()
	dir := t.TempDir()
	summary, outputs := filepath.Join(dir, "summary.md"), filepath.Join(dir, "outputs")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	script, err := filepath.Abs("../../scripts/action.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"SENTINEL_BIN=" + sentinelBin(t), "GITHUB_STEP_SUMMARY=" + summary,
		"GITHUB_OUTPUT=" + outputs, "RUNNER_TEMP=" + dir, "NO_COLOR=1", "SENTINEL_TOKEN="}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if data, err := os.ReadFile(outputs); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				got[k] = v
			}
		}
	}
	md, _ := os.ReadFile(summary)
	if p := got["sarif-file"]; p != "" && !filepath.IsAbs(p) {
		got["sarif-file"] = filepath.Join(dir, p)
	}
	return code, got, string(md), stderr.String()
}

// TestActionScriptAgainstTheFixtures runs the action's script against the unmigrated fixture
// (fails the gate), the conformant one (passes) and nothing at all (could not run): the script
// itself exits 0 each time so the upload step runs, and its outputs, SARIF file and step summary
// say what happened.
func TestActionScriptAgainstTheFixtures(t *testing.T) {
	unmigrated, conformant := startFixture(t, "unmigrated"), startFixture(t, "conformant")
	tests := []struct {
		name, endpoint, args  string
		wantExit, wantVerdict string
		wantSummary           string
	}{
		{"the unmigrated fixture fails the gate", unmigrated, strings.Join(fixtureGrants, "\n"), "1", "failed", "## ❌ FAILED the must gate"},
		{"the conformant fixture passes", conformant, "--allow-call\ntest_trigger_tool_change\n--allow-call\ntest_trigger_prompt_change", "0", "passed", "## ✅ PASSED the must gate"},
		{"nothing listening could not run", "http://127.0.0.1:1/mcp", "--timeout\n5s", "2", "did-not-finish", "## ⛔ COULD NOT RUN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, summary, stderr := runAction(t, "INPUT_ENDPOINT="+tt.endpoint, "INPUT_ARGS="+tt.args, "INPUT_GATE=must")
			if code != 0 {
				t.Fatalf("the script exited %d; it must exit 0 once the scan ran, so the upload step follows\n%s", code, stderr)
			}
			if out["exit-code"] != tt.wantExit || out["verdict"] != tt.wantVerdict {
				t.Errorf("outputs %v, want exit-code %s and verdict %s\n%s", out, tt.wantExit, tt.wantVerdict, stderr)
			}
			if !strings.HasPrefix(summary, tt.wantSummary) {
				t.Errorf("the step summary starts %.120q, want %q", summary, tt.wantSummary)
			}
			data, err := os.ReadFile(out["sarif-file"])
			if err != nil {
				t.Fatalf("no SARIF file to upload: %v", err)
			}
			if err := sarifcheck.Validate(data); err != nil {
				t.Errorf("the SARIF file is invalid: %v", err)
			}
		})
	}
	t.Run("a bad flag fails the step itself", func(t *testing.T) {
		code, out, _, stderr := runAction(t, "INPUT_ENDPOINT="+unmigrated, "INPUT_ARGS=--no-such-flag")
		if code != 2 || out["exit-code"] != "2" {
			t.Errorf("exit %d, outputs %v; want the step to fail with 2\n%s", code, out, stderr)
		}
	})
}
