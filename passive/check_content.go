package passive

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/mcp-sentinel/sentinel/internal/lazyre"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// contentProblem says why one content block breaks the ContentBlock schema, or "".
func contentProblem(b map[string]json.RawMessage) string {
	ty, _ := stringOf(b["type"])
	switch ty {
	case "text":
		if _, ok := stringOf(b["text"]); !ok {
			return "a text block without a text string"
		}
	case "image", "audio":
		return mediaProblem(ty, b)
	case "resource_link":
		if _, ok := stringOf(b["uri"]); !ok {
			return "a resource_link without a uri"
		}
		if _, ok := stringOf(b["name"]); !ok {
			return "a resource_link without a name"
		}
	case "resource":
		return embeddedProblem(decodeObject(b["resource"]), false)
	default:
		return fmt.Sprintf("a block of unknown type %q", clip(ty))
	}
	return ""
}

// mediaProblem checks an image or audio block: base64 data and a MIME type.
func mediaProblem(ty string, b map[string]json.RawMessage) string {
	data, ok := stringOf(b["data"])
	if !ok || !isBase64(data) {
		return fmt.Sprintf("an %s block whose data is not base64", ty)
	}
	mt, _ := stringOf(b["mimeType"])
	if !wire.IsMediaType(mt) {
		return fmt.Sprintf("an %s block with MIME type %q", ty, clip(mt))
	}
	return ""
}

// embeddedProblem checks an embedded resource: a URI, text or a base64 blob, and (when
// needMIME) a MIME type.
func embeddedProblem(r map[string]json.RawMessage, needMIME bool) string {
	if r == nil {
		return "an embedded resource that is not an object"
	}
	u, _ := stringOf(r["uri"])
	if uriProblem(u) != "" {
		return fmt.Sprintf("an embedded resource with URI %q", clip(u))
	}
	if needMIME {
		if mt, _ := stringOf(r["mimeType"]); mt == "" {
			return fmt.Sprintf("embedded resource %q has no mimeType", clip(u))
		}
	}
	_, hasText := stringOf(r["text"])
	blob, hasBlob := stringOf(r["blob"])
	switch {
	case !hasText && !hasBlob:
		return fmt.Sprintf("embedded resource %q has neither text nor blob", clip(u))
	case hasBlob && !isBase64(blob):
		return fmt.Sprintf("embedded resource %q has a blob that is not base64", clip(u))
	}
	return ""
}

// isBase64 reports whether s is standard base64 (padding required, as the schema's byte format).
func isBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

var schemeRE = lazyre.New(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// uriProblem says why s is not an RFC 3986 URI with a scheme, or "".
func uriProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return "empty"
	case err != nil:
		return err.Error()
	case u.Scheme == "" || !schemeRE().MatchString(u.Scheme):
		return "no scheme"
	}
	return ""
}

// checkToolResult enforces a complete tools/call result's content blocks.
//
//	Content blocks match the ContentBlock schema: image and audio data "MUST be base64-encoded"
//	with a MIME type. "Servers that use embedded resources SHOULD implement the resources
//	capability."
func checkToolResult(v *view, h *History) []rules.Outcome {
	if v.method() != "tools/call" || !v.complete() {
		return nil
	}
	content, blocks := v.content()
	if content == nil {
		return []rules.Outcome{fail("content-blocks-valid", "the tools/call result has no content array")}
	}
	var out []rules.Outcome
	embedded := false
	for i, b := range blocks {
		if p := contentProblem(b); p != "" {
			return append(out, fail("content-blocks-valid", "content[%d] is %s", i, p))
		}
		if ty, _ := stringOf(b["type"]); ty == "resource" {
			embedded = true
		}
	}
	out = append(out, pass("content-blocks-valid", fmt.Sprintf("%d content block(s), all valid", len(content))))
	if embedded {
		if declared, known := h.capability("resources"); known {
			if declared {
				out = append(out, pass("embedded-resources-capability", "embedded resources with the resources capability declared"))
			} else {
				out = append(out, fail("embedded-resources-capability", "the tool result embeds a resource but the server declares no resources capability"))
			}
		}
	}
	return out
}

// checkPromptResult enforces a complete prompts/get result's content blocks, media and
// embedded resources.
//
//	Each PromptMessage's content is a ContentBlock (schema.ts), so it matches the ContentBlock
//	schema. Prompt image and audio content "MUST be base64-encoded and include a valid MIME
//	type". Embedded resources "MUST include a valid resource URI, the appropriate MIME type, and
//	either text content or base64-encoded blob data".
//
// A block that breaks both the ContentBlock schema and a prompt rule is reported by both in the
// same words, so a report counts it as one behaviour.
func checkPromptResult(v *view, _ *History) []rules.Outcome {
	if v.method() != "prompts/get" || !v.complete() {
		return nil
	}
	var out []rules.Outcome
	messages := decodeArray(v.result()["messages"])
	media, embedded, blocks := 0, 0, 0
	for i, raw := range messages {
		c := decodeObject(decodeObject(raw)["content"])
		if c == nil {
			if !hasRule(out, "content-blocks-valid") {
				out = append(out, fail("content-blocks-valid", "messages[%d] has no content block", i))
			}
			continue
		}
		blocks++
		if p := contentProblem(c); p != "" && !hasRule(out, "content-blocks-valid") {
			format := "messages[%d] is %s"
			if ty, _ := stringOf(c["type"]); ty == "resource" {
				format = "messages[%d]: %s"
			}
			out = append(out, fail("content-blocks-valid", format, i, p))
		}
		switch ty, _ := stringOf(c["type"]); ty {
		case "image", "audio":
			media++
			if p := mediaProblem(ty, c); p != "" {
				out = append(out, fail("prompt-media-base64", "messages[%d] is %s", i, p))
			}
		case "resource":
			embedded++
			if p := embeddedProblem(decodeObject(c["resource"]), true); p != "" {
				out = append(out, fail("prompt-embedded-resource-fields", "messages[%d]: %s", i, p))
			}
		}
	}
	if blocks > 0 && !hasRule(out, "content-blocks-valid") {
		out = append(out, pass("content-blocks-valid", fmt.Sprintf("%d prompt message content block(s), all valid", blocks)))
	}
	if media > 0 && !hasRule(out, "prompt-media-base64") {
		out = append(out, pass("prompt-media-base64", fmt.Sprintf("%d media block(s), base64 with a MIME type", media)))
	}
	if embedded > 0 && !hasRule(out, "prompt-embedded-resource-fields") {
		out = append(out, pass("prompt-embedded-resource-fields", fmt.Sprintf("%d embedded resource(s), complete", embedded)))
	}
	return out
}

// hasRule reports whether out already holds an outcome for the named rule.
func hasRule(out []rules.Outcome, name string) bool {
	id := rules.IDOf(name)
	for _, o := range out {
		if o.RuleID == id {
			return true
		}
	}
	return false
}

// checkResourceContents enforces the encoding and URIs of resources/read contents and of the
// URIs resources/list publishes.
//
//	Servers "MUST properly encode binary data"; custom URI schemes "MUST be in accordance with
//	RFC 3986".
func checkResourceContents(v *view, _ *History) []rules.Outcome {
	var items []json.RawMessage
	switch v.method() {
	case "resources/read":
		items = decodeArray(v.result()["contents"])
	case "resources/list":
		items = decodeArray(v.result()["resources"])
	default:
		return nil
	}
	if !v.complete() || len(items) == 0 {
		return nil
	}
	var out []rules.Outcome
	blobs := 0
	for i, raw := range items {
		it := decodeObject(raw)
		u, _ := stringOf(it["uri"])
		if p := uriProblem(u); p != "" && !hasRule(out, "custom-uri-rfc3986") {
			out = append(out, fail("custom-uri-rfc3986", "item %d has URI %q (%s)", i, clip(u), p))
		}
		if b, ok := stringOf(it["blob"]); ok {
			blobs++
			if !isBase64(b) && !hasRule(out, "binary-properly-encoded") {
				out = append(out, fail("binary-properly-encoded", "the blob of %q is not base64", clip(u)))
			}
		}
	}
	if !hasRule(out, "custom-uri-rfc3986") {
		out = append(out, pass("custom-uri-rfc3986", fmt.Sprintf("%d URI(s), all RFC 3986 with a scheme", len(items))))
	}
	if blobs > 0 && !hasRule(out, "binary-properly-encoded") {
		out = append(out, pass("binary-properly-encoded", fmt.Sprintf("%d blob(s), all base64", blobs)))
	}
	return out
}

// checkCompletion enforces the size of a completion result.
//
//	completion.values: "Array of completion values. Must not exceed 100 items."
func checkCompletion(v *view, _ *History) []rules.Outcome {
	if v.method() != "completion/complete" || !v.complete() {
		return nil
	}
	vals := decodeArray(decodeObject(v.result()["completion"])["values"])
	if vals == nil {
		return nil
	}
	if len(vals) > 100 {
		return []rules.Outcome{fail("completion-max-100", "completion.values has %d items, more than 100", len(vals))}
	}
	return []rules.Outcome{pass("completion-max-100", fmt.Sprintf("%d completion value(s)", len(vals)))}
}
