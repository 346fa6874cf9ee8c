package broker

import (
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/broker/config"
)

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:0", true},
		{"[::1]:8080", true},
		{"localhost:80", true},
		{"0.0.0.0:8080", false},
		{":8080", false},
		{"10.0.0.1:80", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if got := isLoopback(tt.addr); got != tt.want {
			t.Errorf("isLoopback(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestRunHTTPRefusesUnsafeSetups(t *testing.T) {
	tests := []struct {
		name string
		o    RunOptions
		addr string
		want string
	}{
		{"no-auth on every interface", RunOptions{NoAuth: true, Dev: true}, "0.0.0.0:0", "--no-auth listens on loopback only"},
		{"no-auth without a principal", RunOptions{NoAuth: true}, "127.0.0.1:0", "--no-auth needs a principal"},
		{"no auth configured", RunOptions{Config: &config.Config{}}, "127.0.0.1:0", "no authentication configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Scorer = newTestScorer()
			err := RunHTTP(t.Context(), tt.o, tt.addr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RunHTTP() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
