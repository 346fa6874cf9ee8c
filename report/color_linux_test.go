//go:build linux

package report

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair so ColorFor can be tested on a real terminal.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return slave
}

func TestColorForTerminal(t *testing.T) {
	tty := openPTY(t)
	tests := []struct {
		name          string
		noColor, term string
		want          bool
	}{
		{name: "a terminal gets colour", term: "xterm-256color", want: true},
		{name: "NO_COLOR turns it off", noColor: "1", term: "xterm-256color"},
		{name: "TERM=dumb turns it off", term: "dumb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", tt.noColor)
			t.Setenv("TERM", tt.term)
			if got := ColorFor(tty); got != tt.want {
				t.Errorf("ColorFor(pty) with NO_COLOR=%q TERM=%q = %v, want %v", tt.noColor, tt.term, got, tt.want)
			}
		})
	}
}
