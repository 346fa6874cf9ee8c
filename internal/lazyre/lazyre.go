// Package lazyre compiles regular expressions on first use instead of at package initialisation.
//
// Every sentinel command links the rule, probe and check packages; a command that never matches an
// expression should not pay for compiling it at start-up (issue 17's start-up budget is a few
// milliseconds). One helper serves every package so the idiom is written once.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called and hands back the same
// *regexp.Regexp ever after, safely from any goroutine. Like regexp.MustCompile it panics on an
// invalid expression; lazyretest.Check lets each package's tests compile every one, so the panic
// is met in a test, never first in a command.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
