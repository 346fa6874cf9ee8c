package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

// TestMarkdownEscapesTheTarget: a server's words cannot become links, images, HTML or table
// cells in a CI step summary.
func TestMarkdownEscapesTheTarget(t *testing.T) {
	r := testResult(rules.Must, rules.Fail)
	r.Rules[0].Evidence[0].Observed = "![x](https://evil.example/p.png) <script>alert(1)</script> | cell\nnext"
	rd, _ := New(FormatMarkdown, nil)
	var buf bytes.Buffer
	if err := rd.Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"![x](", "<script>", " | cell"} {
		if strings.Contains(out, bad) {
			t.Errorf("Markdown carries %q unescaped:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, `\!\[x\](https://evil.example/p.png) &lt;script&gt;`) {
		t.Errorf("the observed text is not shown escaped:\n%s", out)
	}
	if !strings.HasPrefix(out, "## ❌ FAILED the must gate: 1 finding (1 rule) fail it\n") {
		t.Errorf("Markdown does not lead with the verdict:\n%s", out)
	}
}
