package tui_test

import (
	"fmt"

	"github.com/mcp-sentinel/sentinel/tui"
)

// The filter language: the same key twice means either, different keys mean both.
func ExampleParseFilter() {
	f, err := tui.ParseFilter(`method:tools/call level:must,must-not "bad header"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Methods, f.Levels, f.Text)
	_, err = tui.ParseFilter("level:may")
	fmt.Println(err)
	// Output:
	// [tools/call] [MUST MUST NOT] [bad header]
	// filter level:may: use must, must-not, should or should-not
}

// Clean is applied to every server-supplied string before it is drawn.
func ExampleClean() {
	fmt.Println(tui.Clean("tools/call\x1b[2J\u202eevil"))
	// Output: tools/call\u001b[2J\u202eevil
}
