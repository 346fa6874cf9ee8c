package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/report"
)

// exportedMsg reports where `e` wrote the filtered findings, or why it could not.
type exportedMsg struct {
	path string
	n    int
	err  error
}

// copiedMsg reports where `c` wrote the curl command, or why it could not.
type copiedMsg struct {
	path string
	curl string
	err  error
}

// exportFormat picks the report format from the file name's extension, from the report
// registry: .sarif, .json, .md, .html, .xml (JUnit), .txt, .svg (badge).
func exportFormat(path string) (string, error) {
	f, err := report.FormatForPath(path)
	if err != nil {
		return "", fmt.Errorf("export to %w", err)
	}
	return f, nil
}

// exportCmd writes fs as a report (the same conversion `sentinel findings export` uses) to
// path, in the format its extension names.
func exportCmd(fs []findings.Finding, path, tool string) tea.Cmd {
	return func() tea.Msg {
		abs, err := writeExport(fs, path, tool)
		return exportedMsg{path: abs, n: len(fs), err: err}
	}
}

func writeExport(fs []findings.Finding, path, tool string) (string, error) {
	format, err := exportFormat(path)
	if err != nil {
		return path, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path, fmt.Errorf("export to %q: %w", path, err)
	}
	r, err := report.New(format, nil)
	if err != nil {
		return abs, fmt.Errorf("export: %w", err)
	}
	f, err := os.Create(abs)
	if err != nil {
		return abs, fmt.Errorf("export: creating %s: %w", abs, err)
	}
	if err := r.Render(f, findings.ToResult(fs, tool)); err != nil {
		_ = f.Close()
		return abs, fmt.Errorf("export: writing %s: %w", abs, err)
	}
	if err := f.Close(); err != nil {
		return abs, fmt.Errorf("export: closing %s: %w", abs, err)
	}
	return abs, nil
}

// curlSkip are request headers curl sets itself or that describe the old connection.
var curlSkip = map[string]bool{"Content-Length": true, "Host": true, "Connection": true,
	"Accept-Encoding": true, "Transfer-Encoding": true}

// Curl renders a stored request as a shell command that replays it. Header values the store
// redacted stay redacted ("[redacted]"), and a comment says so: the TUI never has the
// credentials.
func Curl(ex findings.Exchange) string {
	var b strings.Builder
	names := make([]string, 0, len(ex.RequestHeader))
	redacted := false
	for k, vs := range ex.RequestHeader {
		if curlSkip[k] {
			continue
		}
		names = append(names, k)
		for _, v := range vs {
			if strings.Contains(v, findings.Redacted) {
				redacted = true
			}
		}
	}
	sort.Strings(names)
	b.WriteString("#!/bin/sh\n# exchange " + shellComment(ex.ID) + " captured by sentinel proxy\n")
	if redacted {
		b.WriteString("# values shown as " + findings.Redacted + " were removed by the proxy: put the real ones back\n")
	}
	if ex.Truncated {
		b.WriteString("# the stored body is only a prefix of what was sent\n")
	}
	method := ex.HTTPMethod
	if method == "" {
		method = "POST"
	}
	b.WriteString("curl -sS -X " + shellQuote(method) + " " + shellQuote(ex.URL))
	for _, k := range names {
		for _, v := range ex.RequestHeader[k] {
			b.WriteString(" \\\n  -H " + shellQuote(k+": "+v))
		}
	}
	if len(ex.RequestBody) > 0 {
		b.WriteString(" \\\n  --data-binary " + shellQuote(string(ex.RequestBody)))
	}
	b.WriteString("\n")
	return b.String()
}

// shellQuote quotes s for a POSIX shell: single quotes, with embedded ones closed and escaped.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shellComment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// curlCmd fetches nothing: it writes the curl for an exchange already loaded to path.
func curlCmd(ex findings.Exchange, path string) tea.Cmd {
	return func() tea.Msg {
		c := Curl(ex)
		abs, err := filepath.Abs(path)
		if err != nil {
			return copiedMsg{path: path, err: fmt.Errorf("writing the curl command: %w", err)}
		}
		if err := os.WriteFile(abs, []byte(c), 0o600); err != nil {
			return copiedMsg{path: abs, err: fmt.Errorf("writing the curl command to %s: %w", abs, err)}
		}
		return copiedMsg{path: abs, curl: c}
	}
}
