package sentinelcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// OutputOptions are the flags that say where a report goes and how it looks. Every command that
// writes a report (probe, findings, diff) registers them with AddOutputFlags, so they mean the
// same everywhere.
type OutputOptions struct {
	Format             string
	Out                string
	Outputs            []string          // --output FORMAT=PATH, repeatable
	outByFormat        map[string]string // --out-json PATH, --out-sarif PATH, ...
	Show               string
	Quiet              bool
	Width              int
	SARIFAnchor        string
	SARIFIndeterminate bool
}

// AddOutputFlags registers the output flags on f, with --format's default and help generated
// from the report registry.
func AddOutputFlags(cmd *cobra.Command, o *OutputOptions, defaultFormat string) {
	f := cmd.Flags()
	f.StringVar(&o.Format, "format", defaultFormat, report.FormatHelp())
	f.StringVar(&o.Out, "out", "", "write the --format report to this file instead of standard output")
	f.StringArrayVar(&o.Outputs, "output", nil, "also write FORMAT=PATH, e.g. sarif=sentinel.sarif (repeatable; PATH - is standard output)")
	o.outByFormat = map[string]string{}
	for _, rf := range report.Registered() {
		name := rf.Name
		o.outByFormat[name] = ""
		f.Var(outPath{o.outByFormat, name}, "out-"+name, "also write the "+name+" report to this file")
	}
	f.StringVar(&o.Show, "show", string(report.ShowFail), "what the text, markdown and html reports list: fail (failures in full, indeterminate as counts) or all")
	f.BoolVar(&o.Quiet, "quiet", false, "print only the verdict line (text format)")
	f.IntVar(&o.Width, "width", 0, "text report width in columns (0: the terminal's width, or 80 when not a terminal)")
	f.StringVar(&o.SARIFAnchor, "sarif-anchor", "", "repository path SARIF results point at (e.g. cmd/server/main.go); see the README")
	f.BoolVar(&o.SARIFIndeterminate, "sarif-indeterminate", false, "also list indeterminate rules as SARIF notes (default: failures only)")
	_ = cmd.RegisterFlagCompletionFunc("format", FixedCompletion(report.Formats()...))
	_ = cmd.RegisterFlagCompletionFunc("show", FixedCompletion(string(report.ShowFail), string(report.ShowAll)))
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, f := range report.Formats() {
			out = append(out, f+"=")
		}
		return out, cobra.ShellCompDirectiveNoSpace
	})
}

// outPath is the pflag.Value behind --out-FORMAT.
type outPath struct {
	m    map[string]string
	name string
}

func (p outPath) String() string     { return p.m[p.name] }
func (p outPath) Set(s string) error { p.m[p.name] = s; return nil }
func (p outPath) Type() string       { return "path" }

var _ pflag.Value = outPath{}

// Output is one report to write: a format and where.
type Output struct {
	format string
	path   string // "" is standard output
	file   *os.File
}

// Plan checks the output flags and returns every report to write, the --format one first.
// Nothing is opened yet.
func (o OutputOptions) Plan() ([]Output, error) {
	if _, err := report.New(o.Format, nil); err != nil {
		return nil, fmt.Errorf("--format: %w", err)
	}
	// --show and --width are checked here too, not only when a report is rendered: by then a
	// scan of minutes has run, and its result would be lost to a typo.
	if _, err := report.ParseShow(o.Show); err != nil {
		return nil, err
	}
	if err := checkWidth(o.Width); err != nil {
		return nil, err
	}
	outs := []Output{{format: o.Format, path: o.Out}}
	for _, spec := range o.Outputs {
		format, path, ok := strings.Cut(spec, "=")
		if !ok || format == "" || path == "" {
			return nil, fmt.Errorf("--output %q: want FORMAT=PATH, e.g. sarif=sentinel.sarif (formats: %s)", spec, strings.Join(report.Formats(), ", "))
		}
		if _, err := report.New(format, nil); err != nil {
			return nil, fmt.Errorf("--output %q: %w", spec, err)
		}
		if path == "-" {
			path = ""
		}
		outs = append(outs, Output{format: format, path: path})
	}
	for _, name := range report.Formats() {
		if p := o.outByFormat[name]; p != "" {
			outs = append(outs, Output{format: name, path: p})
		}
	}
	seen := map[string]bool{}
	stdout := 0
	for _, out := range outs {
		if out.path == "" {
			stdout++
			continue
		}
		if seen[out.path] {
			return nil, fmt.Errorf("%s is named by two outputs: give each report its own file", out.path)
		}
		seen[out.path] = true
	}
	if stdout > 1 {
		return nil, errors.New("two reports would go to standard output: give --out PATH for the --format report, or a file for the other")
	}
	return outs, nil
}

// OpenOutputs creates every output file before the scan, so an unwritable path is found in a second,
// not after a long scan. The files are empty until Write.
func OpenOutputs(outs []Output) error {
	for i := range outs {
		if outs[i].path == "" {
			continue
		}
		f, err := os.OpenFile(outs[i].path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			closeOutputs(outs)
			return fmt.Errorf("cannot write the %s report: %w (choose a writable path)", outs[i].format, err)
		}
		outs[i].file = f
	}
	return nil
}

func closeOutputs(outs []Output) {
	for _, out := range outs {
		if out.file != nil {
			_ = out.file.Close()
		}
	}
}

// checkWidth accepts 0 (the terminal's width) or a width the text report can be laid out in.
func checkWidth(w int) error {
	if w != 0 && w < report.MinWidth {
		return fmt.Errorf("--width %d: use at least %d columns (or 0 for the terminal's width)", w, report.MinWidth)
	}
	return nil
}

// renderOptions turns the flags into renderer options for one output: colour and the terminal's
// width only when that output is a terminal.
func (o OutputOptions) renderOptions(w io.Writer) (*report.Options, error) {
	show, err := report.ParseShow(o.Show)
	if err != nil {
		return nil, err
	}
	opts := &report.Options{Show: show, Quiet: o.Quiet, Width: o.Width,
		SARIFAnchor: o.SARIFAnchor, SARIFIndeterminate: o.SARIFIndeterminate}
	if err := checkWidth(o.Width); err != nil {
		return nil, err
	}
	if f, ok := w.(*os.File); ok {
		opts.Color = report.ColorFor(f)
		if o.Width == 0 && term.IsTerminal(f.Fd()) {
			if cols, _, err := term.GetSize(f.Fd()); err == nil && cols >= report.MinWidth {
				opts.Width = cols
			}
		}
	}
	return opts, nil
}

// Write renders res to every output and closes the files, checking each close (a full disk
// shows up there). Every output is attempted; the errors are joined.
func (o OutputOptions) Write(stdout io.Writer, outs []Output, res *report.Result, secrets []string) error {
	var errs []error
	for _, out := range outs {
		w := stdout
		if out.file != nil {
			w = out.file
		}
		err := o.render(w, out.format, res, secrets)
		if out.file != nil {
			err = errors.Join(err, out.file.Close())
		}
		if err != nil {
			where := "standard output"
			if out.path != "" {
				where = out.path
			}
			errs = append(errs, fmt.Errorf("writing the %s report to %s: %w", out.format, where, err))
		}
	}
	return errors.Join(errs...)
}

func (o OutputOptions) render(w io.Writer, format string, res *report.Result, secrets []string) error {
	opts, err := o.renderOptions(w)
	if err != nil {
		return err
	}
	rd, err := report.New(format, opts)
	if err != nil {
		return err
	}
	return rd.Render(NewRedactingWriter(w, secrets), res)
}

// PrintSummary names every failing rule on stderr, one line each and numbered by finding, and
// counts the indeterminate ones, whatever format and file the report went to: a CI log always
// says what failed. The verdict line itself is the command's last line (VerdictErr). It is
// written in one piece: a line at a time was a system call per failing rule.
func PrintSummary(out io.Writer, res *report.Result) {
	var w bytes.Buffer
	defer func() { _, _ = out.Write(w.Bytes()) }()
	findings := res.Findings()
	for i, f := range findings {
		mark := "FAIL "
		if res.Known(f) {
			mark = "known"
		}
		for _, rr := range f.Rules {
			fmt.Fprintf(&w, "%s %3d  %-10s %s\n", mark, i+1, rr.Rule.Level, rr.Rule.Name)
		}
	}
	if n := res.Tally().Indeterminate; n > 0 {
		fmt.Fprintf(&w, "%d rules indeterminate, never counted as a pass (listed in the report with --show all)\n", n)
	}
}

// VerdictErr is what a command that judged a result returns: nil when it passed (after saying
// so on stderr), else an error whose message is the verdict line and whose exit code
// cmd/internal/cli picks from the verdict.
func VerdictErr(stderr io.Writer, res *report.Result) error {
	v := res.EffectiveGate().Verdict(res)
	line := res.VerdictLine()
	if v == report.VerdictPassed {
		fmt.Fprintf(stderr, "sentinel: %s\n", line)
	}
	return cli.Judge(v, line)
}

// CouldNotRun is the result of a scan that failed before it produced one: every output still
// gets a valid document saying why (a SARIF upload step must find its file).
func CouldNotRun(endpoint, tool string, err error, secrets []string) *report.Result {
	return &report.Result{
		Schema: report.SchemaVersion, Tool: tool, Target: wire.RedactString(endpoint, secrets...),
		Rules:       []report.RuleResult{},
		CouldNotRun: &report.CouldNotRun{Reason: wire.RedactString(err.Error(), secrets...)},
	}
}

// FixedCompletion completes a flag's value from a fixed list.
func FixedCompletion(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// RuleCompletion completes rule IDs and names.
func RuleCompletion(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, r := range rules.All() {
		out = append(out, r.Name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// AreaCompletion completes area names.
func AreaCompletion(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, a := range rules.AllAreas {
		out = append(out, string(a))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// WriteTo sends one document to stdout, or to the file named out, checking the file's close
// (where a full disk shows up).
func WriteTo(stdout io.Writer, out string, render func(io.Writer) error) error {
	if out == "" {
		return render(stdout)
	}
	file, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("creating %s: %w", out, err)
	}
	if err := render(file); err != nil {
		_ = file.Close()
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return nil
}

// RedactingWriter replaces secrets in everything written through it: a last guard so that no
// renderer can print the token, whatever it is handed.
type RedactingWriter struct {
	w       io.Writer
	secrets []string
}

// NewRedactingWriter writes to w with every one of secrets replaced.
func NewRedactingWriter(w io.Writer, secrets []string) *RedactingWriter {
	return &RedactingWriter{w: w, secrets: secrets}
}

// Write writes p to the underlying writer with every secret replaced, and reports all of p
// written: a caller's count is of what it asked to write, not of the redacted text.
func (r *RedactingWriter) Write(p []byte) (int, error) {
	if len(r.secrets) == 0 {
		return r.w.Write(p)
	}
	s := wire.RedactString(string(p), r.secrets...)
	if _, err := io.WriteString(r.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
