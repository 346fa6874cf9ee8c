package passive

import (
	"os"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

// TestABrokenPromptBlockIsOneObservation: a prompt image or audio block without a MIME type
// breaks both the ContentBlock schema (content-blocks-valid) and the prompt's own MUST
// (prompt-media-base64). The two outcomes must say the same words on the same exchange, which is
// how a report tells that they are one behaviour and counts it once.
func TestABrokenPromptBlockIsOneObservation(t *testing.T) {
	b, err := os.ReadFile("testdata/cases/prompt-fail.txtar")
	if err != nil {
		t.Fatal(err)
	}
	a := parseArchive(b)
	got := Run(buildExchange(t, "ex-1", a.sections["request"], a.sections["response"]), nil)
	observed := map[string]string{}
	for _, o := range got {
		if o.Status == rules.Fail {
			observed[o.RuleID] = o.Observed
		}
	}
	block, media := observed[rules.IDOf("content-blocks-valid")], observed[rules.IDOf("prompt-media-base64")]
	if block == "" || block != media {
		t.Errorf("content-blocks-valid says %q, prompt-media-base64 %q: want the same failure in the same words", block, media)
	}
}
