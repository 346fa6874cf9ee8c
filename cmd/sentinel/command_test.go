package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"node server.js --flag", []string{"node", "server.js", "--flag"}, ""},
		{"  node\tserver.js  ", []string{"node", "server.js"}, ""},
		{`python -m "my server" 'it''s'`, []string{"python", "-m", "my server", "its"}, ""},
		{`echo "a \"b\" \$HOME \x"`, []string{"echo", `a "b" $HOME \x`}, ""},
		{`a\ b c\'d`, []string{"a b", "c'd"}, ""},
		{`npx -y '@scope/pkg@1.0' ""`, []string{"npx", "-y", "@scope/pkg@1.0", ""}, ""},
		{`sh -c "cat | tee /tmp/x"`, []string{"sh", "-c", "cat | tee /tmp/x"}, ""},
		{"", nil, "empty"},
		{"   ", nil, "empty"},
		{"node 'server.js", nil, "single quote"},
		{`node "server.js`, nil, "double quote"},
		{`node \`, nil, "backslash"},
	}
	for _, tt := range tests {
		got, err := splitCommand(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("splitCommand(%q) error = %v, want one mentioning %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzSplitCommand: a split never panics, and splitting the words re-quoted gives them back.
func FuzzSplitCommand(f *testing.F) {
	f.Add(`node "a b" 'c' d\ e`)
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitCommand(s)
		if err != nil {
			return
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		back, err := splitCommand(strings.Join(quoted, " "))
		if err != nil || !reflect.DeepEqual(back, words) {
			t.Fatalf("re-split of %q = %q, %v", words, back, err)
		}
	})
}
