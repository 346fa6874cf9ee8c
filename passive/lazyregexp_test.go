package passive

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
		{"metaLabel", metaLabel, "io", "-io"},
		{"metaName", metaName, "server.info", "bad name"},
		{"traceparentRE", traceparentRE, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "00-xyz"},
		{"tracestateKey", tracestateKey, "vendor@sys", "UPPER"},
		{"baggageKey", baggageKey, "userId", "a b"},
		{"toolNameRE", toolNameRE, "get_weather", "get weather"},
		{"schemeRE", schemeRE, "https", "1http"},
	} {
		if !tc.re().MatchString(tc.yes) || tc.re().MatchString(tc.no) {
			t.Errorf("%s: matches %q %v, %q %v", tc.name, tc.yes, tc.re().MatchString(tc.yes), tc.no, tc.re().MatchString(tc.no))
		}
	}
}
