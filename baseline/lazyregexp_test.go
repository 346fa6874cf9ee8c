package baseline

import (
	"regexp"
	"testing"
)

// TestLazyRegexpsCompileAndMatch compiles every expression that is compiled on first use (an
// invalid one would otherwise panic only when a command first reaches it) and checks each matches
// what it is for and refuses what it is not.
func TestLazyRegexpsCompileAndMatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		re      func() *regexp.Regexp
		yes, no string
	}{
		{"fingerprint", fingerprint, "0123456789abcdef", "0123"},
	} {
		if !tc.re().MatchString(tc.yes) || tc.re().MatchString(tc.no) {
			t.Errorf("%s: matches %q %v, %q %v", tc.name, tc.yes, tc.re().MatchString(tc.yes), tc.no, tc.re().MatchString(tc.no))
		}
	}
}
