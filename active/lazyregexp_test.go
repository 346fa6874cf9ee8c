package active

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/internal/lazyre/lazyretest"
)

// TestLazyRegexpsCompileAndMatch compiles every expression this package compiles on first use (an
// invalid one would otherwise panic only when a command first reaches it) and checks each matches
// what it is for and refuses what it is not.
func TestLazyRegexpsCompileAndMatch(t *testing.T) {
	lazyretest.Check(t, []lazyretest.Case{
		{Name: "extLabel", Re: extLabel, Yes: "io", No: "-io"},
		{Name: "extName", Re: extName, Yes: "tasks", No: "tasks-"},
		{Name: "urlRE", Re: urlRE, Yes: "see https://example.com/x", No: "no link here"},
	})
}
