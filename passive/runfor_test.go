package passive

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

// TestRunForMatchesRun checks RunFor's promise on every case under testdata/cases: for each
// check's rules, with a History built the same way, RunFor returns exactly the outcomes Run
// returns for those rules, in Run's order. A check that began reading History another check
// writes would break this here, not silently in a scan.
func TestRunForMatchesRun(t *testing.T) {
	saved := detectInjection
	detectInjection = fakeDetector
	t.Cleanup(func() { detectInjection = saved })
	files, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(b)
			history := func() *History {
				h := NewHistory()
				if pre, ok := a.sections["before-request"]; ok {
					Run(buildExchange(t, "before", pre, a.sections["before-response"]), h)
				}
				return h
			}
			ex := buildExchange(t, "ex-1", a.sections["request"], a.sections["response"])
			all := Run(ex, history())
			for _, e := range entries() {
				want := map[string]bool{}
				for _, n := range e.rules {
					want[rules.IDOf(n)] = true
				}
				var expect []rules.Outcome
				for _, o := range all {
					if want[o.RuleID] {
						expect = append(expect, o)
					}
				}
				got := RunFor(ex, history(), e.rules...)
				if !reflect.DeepEqual(got, expect) {
					t.Errorf("RunFor(%v) = %s\nRun gave for those rules: %s", e.rules, dump(got), dump(expect))
				}
			}
		})
	}
}
