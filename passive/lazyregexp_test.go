package passive

import (
	"testing"

	"github.com/mcp-sentinel/sentinel/internal/lazyre/lazyretest"
)

// TestLazyRegexpsCompileAndMatch compiles every expression this package compiles on first use (an
// invalid one would otherwise panic only when a command first reaches it) and checks each matches
// what it is for and refuses what it is not.
func TestLazyRegexpsCompileAndMatch(t *testing.T) {
	lazyretest.Check(t, []lazyretest.Case{
		{Name: "metaLabel", Re: metaLabel, Yes: "io", No: "-io"},
		{Name: "metaName", Re: metaName, Yes: "server.info", No: "bad name"},
		{Name: "traceparentRE", Re: traceparentRE, Yes: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", No: "00-xyz"},
		{Name: "tracestateKey", Re: tracestateKey, Yes: "vendor@sys", No: "UPPER"},
		{Name: "baggageKey", Re: baggageKey, Yes: "userId", No: "a b"},
		{Name: "toolNameRE", Re: toolNameRE, Yes: "get_weather", No: "get weather"},
		{Name: "schemeRE", Re: schemeRE, Yes: "https", No: "1http"},
	})
}
