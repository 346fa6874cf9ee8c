package passive

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

// TestIsPanicMarksOnlyRecoveredPanics proves the exported marker recognises the outcome safe makes
// of a panicking check, and nothing else (an ordinary indeterminate that mentions a panic, or a
// failure whose evidence quotes the prefix).
func TestIsPanicMarksOnlyRecoveredPanics(t *testing.T) {
	boom := entry{name: "boom", rules: []string{"retired-codes"}, fn: func(*view, *History) []rules.Outcome { panic("kaboom") }}
	out := safe(boom, &view{}, NewHistory())
	if len(out) != 1 || !IsPanic(out[0]) {
		t.Fatalf("safe(panicking check) = %+v, want one outcome IsPanic recognises", out)
	}
	tests := []struct {
		name string
		o    rules.Outcome
	}{
		{"indeterminate mentioning a panic", rules.Undecided(rules.IDOf("retired-codes"), "the server panicked: 500")},
		{"failure quoting the prefix", rules.Failed(rules.IDOf("retired-codes"), `passive check "x" panicked: quoted from a body`)},
		{"indeterminate naming no check", rules.Undecided(rules.IDOf("retired-codes"), "passive check panicked somewhere")},
		{"pass", rules.Passed(rules.IDOf("retired-codes"), "code -32602")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if IsPanic(tt.o) {
				t.Errorf("IsPanic(%+v) = true", tt.o)
			}
		})
	}
}
