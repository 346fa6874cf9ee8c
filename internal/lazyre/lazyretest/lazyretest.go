// Package lazyretest checks a package's lazily compiled expressions in its tests: an invalid
// expression would otherwise panic only when a command first reached it.
package lazyretest

import (
	"regexp"
	"testing"
)

// Case is one expression with a string it is for and one it must refuse, so a test proves both
// that the expression compiles and that it still means what its name says.
type Case struct {
	Name    string
	Re      func() *regexp.Regexp
	Yes, No string
}

// Check compiles every case's expression and fails t for each that does not match Yes or matches No.
func Check(t testing.TB, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		re := tc.Re()
		if !re.MatchString(tc.Yes) || re.MatchString(tc.No) {
			t.Errorf("%s: matches %q %v, %q %v", tc.Name, tc.Yes, re.MatchString(tc.Yes), tc.No, re.MatchString(tc.No))
		}
	}
}
