package config

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use instead of at package initialisation: every command
// links this package, and a command that never matches the expression should not pay for
// compiling it at start-up. It panics, like regexp.MustCompile, on an invalid expression; the
// package's tests exercise every one.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
