package sarifcheck

import (
	"strings"
	"testing"
)

const minimal = `{
  "version": "2.1.0",
  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
  "runs": [{
    "tool": {"driver": {"name": "sentinel", "rules": []}},
    "results": [%s]
  }]
}`

func doc(result string) []byte { return []byte(strings.Replace(minimal, "%s", result, 1)) }

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		wantErr string // empty: valid
	}{
		{name: "a log with no results is valid", data: doc(``)},
		{
			name: "an error-level result is valid",
			data: doc(`{"ruleId": "r", "level": "error", "message": {"text": "broken"}}`),
		},
		{
			name: "a pass result with level none is valid",
			data: doc(`{"ruleId": "r", "kind": "pass", "level": "none", "message": {"text": "ok"}}`),
		},
		{
			name:    "a level outside none/note/warning/error is rejected",
			data:    doc(`{"ruleId": "r", "level": "critical", "message": {"text": "x"}}`),
			wantErr: "level",
		},
		{
			name:    "a result without a message is rejected",
			data:    doc(`{"ruleId": "r", "level": "error"}`),
			wantErr: "message",
		},
		{
			name:    "a log without a version is rejected",
			data:    []byte(`{"runs": []}`),
			wantErr: "version",
		},
		{
			name:    "an unknown top-level property is rejected",
			data:    []byte(`{"version": "2.1.0", "runs": [], "extra": 1}`),
			wantErr: "extra",
		},
		{
			name:    "a helpUri that is not a URI is rejected",
			data:    []byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"s","rules":[{"id":"r","helpUri":"not a uri"}]}},"results":[]}]}`),
			wantErr: "helpUri",
		},
		{name: "text that is not JSON is rejected", data: []byte(`{"version":`), wantErr: "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.data)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("Validate() = nil, want an error mentioning %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("Validate() = %v, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}
