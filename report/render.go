package report

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Renderer writes one scan result in one format. Renderers never decide the exit code: the gate
// is evaluated from the model (Gate.Check), so every format exits the same way.
type Renderer interface {
	Render(w io.Writer, r *Result) error
}

// The formats New accepts, as `--format` spells them.
const (
	FormatText  = "text"
	FormatJSON  = "json"
	FormatSARIF = "sarif"
	FormatJUnit = "junit"
)

// Formats lists every format New accepts, in the order help text shows them. The slice is a
// fresh copy each call.
func Formats() []string { return []string{FormatText, FormatJSON, FormatSARIF, FormatJUnit} }

// DefaultInformationURI is where SARIF consumers are sent to learn about the tool when
// Options.InformationURI is empty.
const DefaultInformationURI = "https://github.com/mcp-sentinel/sentinel"

// Options tunes the renderers. A nil *Options means all zero values, which suit a file or a
// pipe: no colour, SARIF locations on the endpoint URL.
type Options struct {
	// Color turns on ANSI colour in the text format. Zero: plain text. Severity is always written
	// as a label too, so nothing depends on colour. Callers decide with ColorFor (isatty and
	// NO_COLOR); other formats ignore it.
	Color bool
	// SARIFAnchor is a repository-relative path (e.g. "cmd/server/main.go") that SARIF results
	// point at, relative to %SRCROOT%, so code-scanning UIs can attach annotations to the server's
	// source. Zero: the scanned endpoint URL is the artifact.
	SARIFAnchor string
	// InformationURI is the SARIF tool driver's informationUri. Zero: DefaultInformationURI.
	InformationURI string
}

// New returns the renderer for format (one of Formats). An unknown format is an error that
// lists the valid ones.
func New(format string, opts *Options) (Renderer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.InformationURI == "" {
		o.InformationURI = DefaultInformationURI
	}
	switch format {
	case FormatText:
		return &textRenderer{color: o.Color}, nil
	case FormatJSON:
		return jsonRenderer{}, nil
	case FormatSARIF:
		return &sarifRenderer{anchor: o.SARIFAnchor, infoURI: o.InformationURI}, nil
	case FormatJUnit:
		return junitRenderer{}, nil
	}
	return nil, fmt.Errorf("unknown report format %q: use one of %s", format, strings.Join(Formats(), ", "))
}

// Compile-time checks that every format implements Renderer.
var (
	_ Renderer = (*textRenderer)(nil)
	_ Renderer = jsonRenderer{}
	_ Renderer = (*sarifRenderer)(nil)
	_ Renderer = junitRenderer{}
)

// errNilResult is what every renderer returns for a nil *Result instead of panicking.
var errNilResult = errors.New("rendering a report: the result is nil")

// errWriter keeps the first write error and drops every later write, so a renderer can write
// line after line and check once at the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, _ = fmt.Fprintf(e, format, args...)
	}
}

// writeAll writes a buffered document in one call and wraps the error with what was written.
func writeAll(w io.Writer, what string, data []byte) error {
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("writing the %s report: %w", what, err)
	}
	return nil
}

// sortedRules returns r.Rules in rule-ID order without touching r: a result decoded from a file
// someone edited still renders in the canonical order.
func sortedRules(r *Result) []RuleResult {
	if slices.IsSortedFunc(r.Rules, byRuleID) {
		return r.Rules
	}
	out := slices.Clone(r.Rules)
	slices.SortStableFunc(out, byRuleID)
	return out
}

func byRuleID(a, b RuleResult) int { return strings.Compare(a.Rule.ID, b.Rule.ID) }
