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

// Names of the formats the registry holds, as `--format` spells them.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatSARIF    = "sarif"
	FormatJUnit    = "junit"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
)

// Format is one entry of the registry of output formats. Every command that writes a report
// (probe, findings, deprecations, diff, the TUI's export) finds its renderer here, so a new
// format is one file that calls register, and `--format` help is generated from the entries.
type Format struct {
	// Name is how --format spells it.
	Name string
	// Ext is the file extension (".sarif") an export by file name maps to this format.
	Ext string
	// Help says in a few words what the format is for.
	Help string
	// order places the format in Formats and help text.
	order int
	// new builds a renderer from validated options.
	new func(o Options) Renderer
}

var registry = map[string]Format{}

// register adds a format; each format's file calls it from init.
func register(f Format) {
	if _, dup := registry[f.Name]; dup {
		panic("report: format " + f.Name + " registered twice")
	}
	registry[f.Name] = f
}

// Registered returns every format in help order, each a copy.
func Registered() []Format {
	out := make([]Format, 0, len(registry))
	for _, f := range registry {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Format) int { return a.order - b.order })
	return out
}

// Formats lists the name of every registered format, in help order. The slice is a fresh copy.
func Formats() []string {
	var out []string
	for _, f := range Registered() {
		out = append(out, f.Name)
	}
	return out
}

// FormatHelp is the `--format` flag's usage text, generated from the registry.
func FormatHelp() string {
	var parts []string
	for _, f := range Registered() {
		parts = append(parts, f.Name+" ("+f.Help+")")
	}
	return "report format: " + strings.Join(parts, ", ")
}

// FormatForPath picks the format a file name asks for by its extension (".sarif", ".json",
// ".html", ...). The error lists the extensions known.
func FormatForPath(path string) (string, error) {
	lower := strings.ToLower(path)
	var exts []string
	for _, f := range Registered() {
		if strings.HasSuffix(lower, f.Ext) {
			return f.Name, nil
		}
		exts = append(exts, f.Ext)
	}
	return "", fmt.Errorf("%q: the file name says no format; end it with one of %s", path, strings.Join(exts, ", "))
}

// DefaultInformationURI is where SARIF consumers are sent to learn about the tool when
// Options.InformationURI is empty.
const DefaultInformationURI = "https://github.com/mcp-sentinel/sentinel"

// DefaultWidth is the text report's line width when Options.Width is zero: what a terminal
// that says nothing about itself, a file or a pipe gets.
const DefaultWidth = 80

// MinWidth is the narrowest text report New accepts; anything narrower cannot hold a rule ID.
const MinWidth = 40

// Show says how much of a result the text, Markdown and HTML formats list.
type Show string

// The `--show` values.
const (
	// ShowFail lists failures in full and indeterminate rules as a count per area (the default).
	ShowFail Show = "fail"
	// ShowAll lists every rule: failures, then indeterminate rules with why and what would settle
	// them, then n/a and passing rules.
	ShowAll Show = "all"
)

// ParseShow validates a `--show` value.
func ParseShow(s string) (Show, error) {
	switch v := Show(s); v {
	case ShowFail, ShowAll:
		return v, nil
	}
	return "", fmt.Errorf("unknown --show %q: use fail or all", s)
}

// Options tunes the renderers. A nil *Options means all zero values, which suit a file or a
// pipe: no colour, 80 columns, failures in full, SARIF locations on the endpoint URL.
type Options struct {
	// Color turns on ANSI colour in the text format. Zero: plain text. Severity is always written
	// as a label too, so nothing depends on colour. Callers decide with ColorFor (isatty and
	// NO_COLOR); other formats ignore it.
	Color bool
	// Width is the text format's line width in columns. Zero: DefaultWidth. Words longer than a
	// line (URLs) are never broken.
	Width int
	// Show is how much the text, Markdown and HTML formats list. Zero: ShowFail.
	Show Show
	// Quiet makes the text format print the verdict line only.
	Quiet bool
	// SARIFAnchor is a repository-relative path (e.g. "cmd/server/main.go") that SARIF results
	// point at, relative to %SRCROOT%, so code-scanning UIs can attach annotations to the server's
	// source. Zero: the scanned endpoint URL is the artifact.
	SARIFAnchor string
	// SARIFIndeterminate adds a note-level SARIF result for every indeterminate rule. Zero: only
	// failures are results, so code scanning lists what to fix.
	SARIFIndeterminate bool
	// InformationURI is the SARIF tool driver's informationUri. Zero: DefaultInformationURI.
	InformationURI string
}

// New returns the renderer for format (one of Formats). An unknown format or an invalid option
// is an error that says what is accepted.
func New(format string, opts *Options) (Renderer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.InformationURI == "" {
		o.InformationURI = DefaultInformationURI
	}
	switch {
	case o.Width == 0:
		o.Width = DefaultWidth
	case o.Width < MinWidth:
		return nil, fmt.Errorf("width %d is too narrow: use at least %d columns", o.Width, MinWidth)
	}
	if o.Show == "" {
		o.Show = ShowFail
	}
	if _, err := ParseShow(string(o.Show)); err != nil {
		return nil, err
	}
	f, ok := registry[format]
	if !ok {
		return nil, fmt.Errorf("unknown report format %q: use one of %s", format, strings.Join(Formats(), ", "))
	}
	return f.new(o), nil
}

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
