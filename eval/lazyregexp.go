package eval

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use: a pattern family's expression runs only on a window its
// anchor found, so most are never compiled in a process that scores a few texts, and none in one
// that scores none. It panics, like regexp.MustCompile, on an invalid expression; the pattern
// tests compile every one.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
