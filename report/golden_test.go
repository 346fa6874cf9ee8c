package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/report/sarifcheck"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenFormats maps each format to the extension of its golden file.
var goldenFormats = []struct {
	format, ext string
	opts        *Options
}{
	{FormatText, ".txt", nil},
	{FormatText, ".w120.txt", &Options{Width: 120}},
	{FormatText, ".all.txt", &Options{Show: ShowAll}},
	{FormatText, ".color.txt", &Options{Color: true}},
	{FormatJSON, ".json", nil},
	{FormatSARIF, ".sarif", nil},
	{FormatSARIF, ".anchored.sarif", &Options{SARIFAnchor: "cmd/server/main.go"}},
	{FormatJUnit, ".junit.xml", nil},
	{FormatMarkdown, ".md", nil},
	{FormatHTML, ".html", nil},
	{FormatBadge, ".badge.svg", nil},
}

// loadCase decodes testdata/<name>.result.json.
func loadCase(t testing.TB, path string) *Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Decode(f)
	if err != nil {
		t.Fatalf("Decode(%s): %v", path, err)
	}
	return r
}

func goldenCases(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.result.json")
	if err != nil || len(paths) < 4 {
		t.Fatalf("want at least 4 golden cases under testdata, got %v (%v)", paths, err)
	}
	return paths
}

// TestGolden renders every case in every format and compares byte for byte; -update rewrites.
// Every output is also checked for what its format promises: SARIF validates against the
// schema, JUnit parses as XML, JSON decodes back to the same result.
func TestGolden(t *testing.T) {
	for _, path := range goldenCases(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".result.json")
		r := loadCase(t, path)
		for _, gf := range goldenFormats {
			t.Run(name+gf.ext, func(t *testing.T) {
				rd, err := New(gf.format, gf.opts)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := rd.Render(&buf, r); err != nil {
					t.Fatalf("Render: %v", err)
				}
				got := buf.Bytes()
				checkFormat(t, gf.format, got, r)
				golden := filepath.Join("testdata", name+gf.ext)
				if *update {
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("reading golden (run go test ./report -run TestGolden -update): %v", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the golden file:\n%s", golden, firstDiff(string(want), string(got)))
				}
			})
		}
	}
}

// TestCaseFilesAreCanonical pins the canonical JSON: rendering a decoded case gives back the
// case file's exact bytes.
func TestCaseFilesAreCanonical(t *testing.T) {
	for _, path := range goldenCases(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := MarshalCanonical(loadCase(t, path))
			if err != nil {
				t.Fatal(err)
			}
			if *update { // the derived summary and findings follow the code
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(got, want) {
				t.Errorf("canonical form differs from %s:\n%s", path, firstDiff(string(want), string(got)))
			}
		})
	}
}

func checkFormat(t *testing.T, format string, out []byte, r *Result) {
	t.Helper()
	switch format {
	case FormatSARIF:
		if err := sarifcheck.Validate(out); err != nil {
			t.Errorf("the SARIF output is invalid: %v", err)
		}
	case FormatJUnit:
		dec := xml.NewDecoder(bytes.NewReader(out))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("the JUnit output is not well-formed XML: %v", err)
			}
		}
	case FormatJSON:
		back, err := Decode(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("Decode(Render(x)): %v", err)
		}
		if !reflect.DeepEqual(back, r) {
			t.Errorf("Decode(Render(x)) != x:\n got %+v\nwant %+v", back, r)
		}
	case FormatText:
		if strings.ContainsRune(stripANSI(string(out)), '\x1b') {
			t.Errorf("the text output carries a raw escape character outside its own colour codes")
		}
	}
}

// firstDiff shows the first differing line of two texts with its line number.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n want: " + w + "\n  got: " + g
		}
	}
	return "(no line differs; trailing bytes differ)"
}

// ansiCode matches the colour codes the text renderer itself writes.
var ansiCode = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func stripANSI(s string) string { return ansiCode.ReplaceAllString(s, "") }
