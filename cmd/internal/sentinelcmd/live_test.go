package sentinelcmd

import (
	"strings"
	"testing"
)

// TestLive: what sentinel hands to sentinel-proxy, and what it keeps.
func TestLive(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"proxy", "--upstream", "x"}, true},
		{[]string{"findings", "list"}, true},
		{[]string{"ca"}, true},
		{[]string{"tui", "--help"}, true},
		{[]string{"shim", "--", "node", "server.js"}, true},
		{[]string{"help", "proxy"}, true},
		{[]string{"__complete", "findings", "list", "--"}, true},
		{[]string{"__completeNoDesc", "tui", ""}, true},
		{[]string{"help"}, false},
		{[]string{"help", "probe"}, false},
		{[]string{"__complete", ""}, false},
		{[]string{"probe", "proxy"}, false},
		{[]string{"rules", "explain", "proxy"}, false},
		{[]string{"--help"}, false},
		{[]string{"Proxy"}, false},
	}
	for _, tt := range tests {
		if got := Live(tt.args); got != tt.want {
			t.Errorf("Live(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestFindLiveSaysHowToInstall: with no sentinel-proxy beside the test binary or on PATH, the
// error names the program and how to install it.
func TestFindLiveSaysHowToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FindLive()
	if err == nil || !strings.Contains(err.Error(), LiveProgram) || !strings.Contains(err.Error(), "go install") {
		t.Errorf("FindLive() error %v: want one naming %s and go install", err, LiveProgram)
	}
}
