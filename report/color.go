package report

import (
	"os"

	"github.com/mattn/go-isatty"
)

// ColorFor reports whether text written to f should be coloured: f is a terminal and the
// NO_COLOR convention (any non-empty value) is not set, and TERM is not "dumb". Commands pass the answer as
// Options.Color; renderers never look at the environment themselves.
func ColorFor(f *os.File) bool {
	if f == nil || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}
