package passive

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-sentinel/sentinel/eval"
	"github.com/mcp-sentinel/sentinel/rules"
)

// injectionThreshold is the detector score at or above which a text is reported as carrying a
// prompt injection. It sits high on purpose: a passive check runs on every tool result and a
// false report of a MUST is worse than a missed weak signal.
const injectionThreshold = 0.7

// detectInjection is the scoring core's deterministic injection detector. It returns the score in
// [0,1] and the evidence spans. Tests replace it; it is nil only if the scoring core offers none,
// and the check then says nothing.
var detectInjection = func(text string) (float64, []eval.Span) {
	s := injectionMemo.get(text, func(text string) injectionScore {
		s := eval.DetectInjection(text)
		return injectionScore{s.Score, s.Evidence}
	})
	return s.score, s.spans
}

// injectionScore is what the detector said about one text.
type injectionScore struct {
	score float64
	spans []eval.Span
}

// injectionMemo remembers the detector's verdicts: a scan sees the same tool descriptions on
// every tools/list it sends, and the deterministic detector gives a text the same score each
// time. Callers never modify the spans.
var injectionMemo = newMemo[injectionScore](8192, 16<<20)

// maxInjectionTexts bounds how many texts of one exchange are scanned.
const maxInjectionTexts = 256

// checkInjection scans what a server puts in front of a model, tool results and tool
// descriptions, for prompt injection, with the scoring core's deterministic detector, and
// reports the evidence span.
//
//	Servers MUST "sanitize tool outputs". A tool description that carries instructions to the
//	model is the same failure one step earlier (tool poisoning), reported under the same rule
//	until the registry has one of its own. A miss proves nothing; a hit names the span.
//
// Any result is scanned, whatever its resultType or none (a 2025-style tool result carries no
// resultType): an injection reaches the model in either era, so the hazard does not wait for a
// server to migrate.
func checkInjection(v *view, _ *History) []rules.Outcome {
	if detectInjection == nil || v.result() == nil {
		return nil
	}
	var texts []scanText
	switch v.method() {
	case "tools/call":
		_, blocks := v.content()
		for i, b := range blocks {
			if s, ok := stringOf(b["text"]); ok {
				texts = append(texts, scanText{fmt.Sprintf("tools/call result content[%d]", i), s})
			}
		}
		if sc := v.result()["structuredContent"]; len(sc) > 0 {
			texts = append(texts, scanText{"tools/call structuredContent", string(sc)})
		}
	case "tools/list":
		_, objs := v.tools()
		for _, t := range objs {
			name, _ := stringOf(t["name"])
			if d, ok := stringOf(t["description"]); ok {
				texts = append(texts, scanText{fmt.Sprintf("the description of tool %q", clip(name)), d})
			}
			texts = append(texts, schemaTexts(name, t["inputSchema"])...)
		}
	default:
		return nil
	}
	if len(texts) > maxInjectionTexts {
		texts = texts[:maxInjectionTexts]
	}
	for _, t := range texts {
		score, spans := detectInjection(t.s)
		if score >= injectionThreshold && len(spans) > 0 {
			sp := spans[0]
			fam := ""
			if sp.Family != "" {
				fam = " (" + sp.Family + ")"
			}
			return []rules.Outcome{fail("tool-outputs-sanitized", "%s carries a prompt injection%s at bytes %d-%d: %q (score %.2f)", t.where, fam, sp.Start, sp.End, clip(sp.Text), score)}
		}
	}
	// A miss proves nothing (the detector knows patterns, not intent), so a clean text yields no
	// outcome rather than a pass.
	return nil
}

// scanText is one text the injection check scans and where it came from.
type scanText struct{ where, s string }

// schemaTexts returns the property descriptions of an inputSchema (one level deep), where tool
// poisoning also hides.
func schemaTexts(tool string, schema json.RawMessage) []scanText {
	var out []scanText
	props := decodeObject(decodeObject(schema)["properties"])
	for _, k := range sortedKeys(props) {
		if d, ok := stringOf(decodeObject(props[k])["description"]); ok {
			out = append(out, scanText{fmt.Sprintf("the description of argument %q of tool %q", clip(k), clip(tool)), d})
		}
	}
	return out
}
