package proxy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// InjectionGrader flags instructions aimed at the model inside tool results: text such as
// "ignore all previous instructions" in a tools/call result's content. The spec requires servers
// to "sanitize tool outputs" (tools#security-considerations); a result carrying an injected
// instruction is evidence they did not. The outcome cites the content block and the byte span.
type InjectionGrader struct{}

var _ Grader = InjectionGrader{}

// injectionPatterns are phrasings that address the model rather than the user. Each is matched
// case-insensitively; the first match per content block is reported.
var injectionPatterns = regexp.MustCompile(`(?i)(` + strings.Join([]string{
	`ignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|prompts|rules)`,
	`disregard\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your)\s+(?:instructions|prompts|rules)`,
	`forget\s+(?:all\s+)?(?:your|previous|prior)\s+instructions`,
	`you\s+are\s+now\s+(?:a|an|in)\s+\w+`,
	`(?:reveal|print|output|show)\s+(?:your|the)\s+system\s+prompt`,
	`do\s+not\s+(?:tell|inform|mention\s+(?:this\s+)?to)\s+the\s+user`,
	`</?(?:important|system)>`,
}, "|") + `)`)

// Grade inspects tools/call results only.
func (InjectionGrader) Grade(ex *wire.Exchange, _ *passive.History) []rules.Outcome {
	if ex.Request.Message == nil || ex.Request.Message.Method != "tools/call" || ex.Response == nil {
		return nil
	}
	id := rules.IDOf("validate-tool-inputs")
	var out []rules.Outcome
	for _, m := range ex.Response.Messages {
		if m.Result == nil {
			continue
		}
		var res struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(m.Result, &res) != nil {
			continue
		}
		for i, c := range res.Content {
			if c.Type != "text" {
				continue
			}
			loc := injectionPatterns.FindStringIndex(c.Text)
			if loc == nil {
				continue
			}
			out = append(out, rules.Outcome{RuleID: id, Status: rules.Fail, Exchange: ex.ID,
				Observed: fmt.Sprintf("tool result content[%d].text bytes %d-%d carry an instruction to the model: %q",
					i, loc[0], loc[1], excerpt(c.Text, loc[0], loc[1]))})
		}
	}
	return out
}

// excerpt quotes the match with a little context, bounded so findings stay short.
func excerpt(s string, start, end int) string {
	const ctx, max = 20, 160
	a, b := max0(start-ctx), min(len(s), end+ctx)
	if b-a > max {
		b = a + max
	}
	return s[a:b]
}

func max0(v int) int {
	if v < 0 {
		return 0
	}
	return v
}
