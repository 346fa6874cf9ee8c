package main

import (
	"reflect"
	"testing"
)

func TestParseToolArgs(t *testing.T) {
	tests := []struct {
		name    string
		flags   []string
		want    map[string]map[string]any
		wantErr bool
	}{
		{"none", nil, nil, false},
		{"one tool", []string{`get_weather={"city":"Paris"}`}, map[string]map[string]any{"get_weather": {"city": "Paris"}}, false},
		{"JSON with an equals sign", []string{`q={"expr":"a=b"}`}, map[string]map[string]any{"q": {"expr": "a=b"}}, false},
		{"no equals sign", []string{"get_weather"}, nil, true},
		{"empty name", []string{`={"a":1}`}, nil, true},
		{"not JSON", []string{"t={city:Paris}"}, nil, true},
		{"an array", []string{`t=[1]`}, nil, true},
		{"null", []string{`t=null`}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseToolArgs(tt.flags)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
