package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/mcp-sentinel/sentinel/rules"
)

// encoding/json matches object keys to struct fields case-insensitively, so "SCHEMA" would fill
// Schema and DisallowUnknownFields would not object. A result file is a contract, so Decode
// first checks that every key is spelled exactly as some field of the model spells it.

var (
	knownKeysOnce sync.Once
	knownKeys     map[string]bool
)

// modelKeys collects the JSON names of every field of the result model's types.
func modelKeys() map[string]bool {
	knownKeysOnce.Do(func() {
		knownKeys = map[string]bool{}
		for _, v := range []any{Result{}, RuleResult{}, rules.Rule{}, rules.Indeterminacy{}, rules.Outcome{},
			Incomplete{}, CouldNotRun{}, ProbeRun{}, Comparison{}, Entry{}, Inventory{}, DebtItem{}, DebtEvidence{},
			document{}, findingJSON{}, Tally{}, Counts{}} {
			t := reflect.TypeOf(v)
			for i := range t.NumField() {
				name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
				if name != "" && name != "-" {
					knownKeys[name] = true
				}
			}
		}
	})
	return knownKeys
}

// checkKeyCase walks data's tokens and rejects any object key that is not exactly a model
// field name. Structure (which key belongs where) is left to DisallowUnknownFields.
func checkKeyCase(data []byte) error {
	known := modelKeys()
	type frame struct{ object, wantKey bool }
	var stack []frame
	afterValue := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				afterValue()
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if key, _ := tok.(string); !known[key] {
				return fmt.Errorf("unknown field %q (field names are case-sensitive)", key)
			}
			stack[n-1].wantKey = false
			continue
		}
		afterValue()
	}
}
