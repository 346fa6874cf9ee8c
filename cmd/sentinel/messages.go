package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Error messages a user acts on: each says what was wrong and what to type instead, and none
// echoes a value that might be a secret.

// endpointHint explains an --endpoint that is not an absolute http(s) URL, or returns nil.
func endpointHint(endpoint string) error {
	if endpoint == "" || strings.Contains(endpoint, "://") {
		return nil
	}
	return fmt.Errorf("--endpoint %q has no scheme: add http:// or https://, e.g. http://%s", endpoint, strings.TrimPrefix(endpoint, "//"))
}

// headerShape explains the i-th --header when it is not "Name: value". The value is never shown:
// a header given by hand is often a credential.
func headerShape(i int, hasColon bool, name string) error {
	switch {
	case !hasColon:
		return fmt.Errorf("--header number %d has no colon: want \"Name: value\", e.g. --header 'X-Tenant: acme' (its text is not shown: it may be a secret)", i+1)
	case name == "":
		return fmt.Errorf("--header number %d has no name before the colon: want \"Name: value\"", i+1)
	case strings.ContainsAny(name, " \t"):
		return fmt.Errorf("--header number %d: a header name has no spaces: want \"Name: value\"", i+1)
	}
	return nil
}

// toolArgsObject decodes one --tool-args value, which must be a JSON object.
func toolArgsObject(raw string) (map[string]any, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(raw))
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("not valid JSON at byte %d (%w): quote the whole flag, e.g. 'get_weather={\"city\":\"Paris\"}'", syn.Offset, syn)
		}
		return nil, fmt.Errorf("not valid JSON (%w): give a JSON object such as {\"city\":\"Paris\"}", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value: give one object such as {\"city\":\"Paris\"}")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the arguments must be a JSON object such as {\"city\":\"Paris\"}, not %s", jsonKind(v))
	}
	return obj, nil
}

// jsonKind names a decoded JSON value's kind in words.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return "that"
}
