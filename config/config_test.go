package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadGoodConfig(t *testing.T) {
	f, err := Load("testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Endpoint != "http://127.0.0.1:8080/mcp" || f.Headers["X-Tenant"] != "acme" || f.Gate != "should" ||
		f.Timeout != 90*time.Second || len(f.AllowCall) != 2 || f.ToolArgs["get_weather"]["city"] != "Paris" || f.Width != 100 {
		t.Errorf("decoded %+v", f)
	}
	if want := filepath.Join("testdata", "secrets/token"); f.TokenFile != want {
		t.Errorf("token_file %q, want %q (relative to the config's folder)", f.TokenFile, want)
	}
	if want := filepath.Join("testdata", "out/sentinel.sarif"); f.Outputs["sarif"] != want {
		t.Errorf("outputs.sarif %q, want %q", f.Outputs["sarif"], want)
	}
}

// TestLoadBadConfigs: one file per validation rule, each with the error it must give.
func TestLoadBadConfigs(t *testing.T) {
	tests := []struct{ file, want string }{
		{"invalid-unknown-key.yaml", "line 2: unknown key endpiont (known keys: allow_call, areas, baseline, endpoint,"},
		{"invalid-gate.yaml", `gate: unknown gate "strict": use must, should or none`},
		{"invalid-format.yaml", `format: unknown report format "pdf"`},
		{"invalid-output-format.yaml", `outputs: unknown report format "docx"`},
		{"invalid-timeout.yaml", "decoding the config"},
		{"invalid-credential-header.yaml", "do not put a credential in sentinel.yaml"},
		{"invalid-two-documents.yaml", "more than one YAML document"},
		{"invalid-allow-call-not-a-list.yaml", "decoding the config: line 1: cannot unmarshal !!str"},
		{"missing.yaml", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(filepath.Join("testdata", tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load(%s) = %v, want an error containing %q", tt.file, err, tt.want)
			}
			if tt.file != "missing.yaml" && !strings.Contains(err.Error(), tt.file) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestFind(t *testing.T) {
	if f, err := Find("", t.TempDir()); f != nil || err != nil {
		t.Errorf("Find in an empty folder = %v, %v; want nothing", f, err)
	}
	f, err := Find("", "testdata/found")
	if err != nil || f == nil || f.Endpoint != "http://127.0.0.1:9/mcp" {
		t.Errorf("Find(testdata/found) = %+v, %v; want its sentinel.yaml", f, err)
	}
	if _, err := Find("testdata/invalid-gate.yaml", "testdata/found"); err == nil {
		t.Error("an explicit --config is not preferred over the working directory's file")
	}
}

// FuzzRead: any bytes give a config or an error, never a panic, and an accepted config
// validates.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"endpoint: x\n", "gate: must\noutputs: {sarif: a}\n", "headers: {a: b}\n", ": :\n", "- a\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(strings.NewReader(string(data)))
		if err == nil && c.validate() != nil {
			t.Fatalf("Read accepted a config that does not validate: %q", data)
		}
	})
}
