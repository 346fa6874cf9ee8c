package wire

import (
	"strings"
	"testing"
)

func TestJSONDepth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`{}`, 1},
		{`{"a":[{"b":{}}]}`, 4},
		{`{"s":"{{{[[["}`, 1},
		{`{"s":"\"{"}`, 1},
		{`"plain"`, 0},
	}
	for _, tt := range tests {
		if got := JSONDepth([]byte(tt.in)); got != tt.want {
			t.Errorf("JSONDepth(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSchemaTooLarge(t *testing.T) {
	deep := strings.Repeat(`{"a":`, MaxSchemaDepth+1) + `1` + strings.Repeat(`}`, MaxSchemaDepth+1)
	tests := []struct {
		name   string
		schema string
		want   bool
	}{
		{"small and shallow", `{"type":"object"}`, false},
		{"too deep", deep, true},
		{"too big", `{"description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, true},
	}
	for _, tt := range tests {
		if got := SchemaTooLarge([]byte(tt.schema)); got != tt.want {
			t.Errorf("%s: SchemaTooLarge = %v, want %v", tt.name, got, tt.want)
		}
	}
}
