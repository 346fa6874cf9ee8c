package config

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/internal/lazyre/lazyretest"
)

// TestLazyRegexpsCompileAndMatch compiles every expression this package compiles on first use (an
// invalid one would otherwise panic only when a command first reaches it) and checks each matches
// what it is for and refuses what it is not.
func TestLazyRegexpsCompileAndMatch(t *testing.T) {
	lazyretest.Check(t, []lazyretest.Case{
		{Name: "unknownField", Re: unknownField, Yes: "line 3: field tiemout not found in type config.File", No: "line 3: bad indent"},
	})
}
