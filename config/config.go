// Package config reads sentinel.yaml, the file that keeps a scan's settings next to the code
// it guards, so CI and people run the same scan: the endpoint, headers, the token file, the
// tools the scan may call and their arguments, the gate, areas and rules, the baseline and the
// reports to write.
//
// Decoding is strict: an unknown key is an error naming its line and the keys that exist, so a
// misspelt setting is never silently ignored. Relative paths are resolved against the file's
// own folder. There is no inline token on purpose: a config file is committed, a token is not.
//
// config imports report only (to validate gates and formats).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcp-sentinel/sentinel/internal/lazyre"
	"github.com/mcp-sentinel/sentinel/report"
)

// DefaultName is the file a command looks for in the working directory when --config is not
// given.
const DefaultName = "sentinel.yaml"

// MaxBytes bounds what Read accepts; a config is a few hundred bytes.
const MaxBytes = 1 << 20

// File is sentinel.yaml. Every field is optional; a flag given on the command line overrides it.
type File struct {
	// Endpoint is the MCP endpoint URL (--endpoint).
	Endpoint string `yaml:"endpoint"`
	// Headers are extra request headers (--header), name to value.
	Headers map[string]string `yaml:"headers"`
	// TokenFile holds the bearer token (--token-file).
	TokenFile string `yaml:"token_file"`
	// AllowCall names tools the scan may call besides readOnlyHint ones (--allow-call).
	AllowCall []string `yaml:"allow_call"`
	// ToolArgs are arguments per tool (--tool-args), tool name to a JSON-like object.
	ToolArgs map[string]map[string]any `yaml:"tool_args"`
	// Origin is an Origin the server allows (--origin).
	Origin string `yaml:"origin"`
	// Gate is must, should or none (--gate).
	Gate string `yaml:"gate"`
	// Areas and Rules narrow the scan (--area, --rule).
	Areas []string `yaml:"areas"`
	Rules []string `yaml:"rules"`
	// Timeout is the deadline for the whole scan (--timeout), e.g. 2m.
	Timeout time.Duration `yaml:"timeout"`
	// Baseline is the accepted-failures file (--baseline).
	Baseline string `yaml:"baseline"`
	// Format is the report on standard output (--format); Outputs are further reports, format
	// to path (--output FORMAT=PATH).
	Format  string            `yaml:"format"`
	Outputs map[string]string `yaml:"outputs"`
	// Show and Width tune the text report (--show, --width); SARIFAnchor the SARIF locations.
	Show        string `yaml:"show"`
	Width       int    `yaml:"width"`
	SARIFAnchor string `yaml:"sarif_anchor"`

	// Path is where the file was read from; empty for a File built in code.
	Path string `yaml:"-"`
}

var unknownField = lazyre.New(`line (\d+): field (\S+) not found`)

// Read decodes a config strictly and validates it. Relative paths stay as written; Load
// resolves them.
func Read(rd io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("the config is larger than %d bytes: it is not a sentinel.yaml", MaxBytes)
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		if m := unknownField().FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("line %s: unknown key %s (known keys: %s)", m[1], m[2], strings.Join(Keys(), ", "))
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n")
		return nil, fmt.Errorf("decoding the config: %s", strings.Join(strings.Fields(msg), " "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("the config holds more than one YAML document: keep one")
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Keys lists every key the file accepts, sorted.
func Keys() []string {
	var out []string
	t := reflect.TypeOf(File{})
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func (f *File) validate() error {
	if f.Gate != "" {
		if _, err := report.ParseGate(f.Gate); err != nil {
			return fmt.Errorf("gate: %w", err)
		}
	}
	if f.Format != "" {
		if _, err := report.New(f.Format, nil); err != nil {
			return fmt.Errorf("format: %w", err)
		}
	}
	for format, path := range f.Outputs {
		if _, err := report.New(format, nil); err != nil {
			return fmt.Errorf("outputs: %w", err)
		}
		if path == "" {
			return fmt.Errorf("outputs: %s has no path", format)
		}
	}
	if f.Show != "" {
		if _, err := report.ParseShow(f.Show); err != nil {
			return fmt.Errorf("show: %w", err)
		}
	}
	if f.Timeout < 0 {
		return errors.New("timeout: must be positive, e.g. 2m")
	}
	for name, value := range f.Headers {
		if name == "" || strings.ContainsAny(name, ": \t\r\n") {
			return fmt.Errorf("headers: %q is not a header name", name)
		}
		if strings.EqualFold(name, "Authorization") && value != "" {
			return errors.New("headers: do not put a credential in sentinel.yaml (it is committed): use token_file or SENTINEL_TOKEN")
		}
	}
	return nil
}

// Load reads the config at path and resolves its relative paths (token_file, baseline, outputs)
// against the file's folder.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	defer func() { _ = fh.Close() }()
	f, err := Read(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.Path = path
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || p == "-" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	f.TokenFile, f.Baseline = rel(f.TokenFile), rel(f.Baseline)
	for k, v := range f.Outputs {
		f.Outputs[k] = rel(v)
	}
	return f, nil
}

// Find returns the config a command should use: explicit when --config named one, else
// DefaultName in dir when it exists, else nil.
func Find(explicit, dir string) (*File, error) {
	if explicit != "" {
		return Load(explicit)
	}
	p := filepath.Join(dir, DefaultName)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("looking for %s: %w", p, err)
	}
	return Load(p)
}
