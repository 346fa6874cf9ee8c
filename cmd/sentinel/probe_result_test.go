package main

import (
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/active"
)

// TestUncalledToolsAreNamedOnce: the tools a scan may not call are listed in one note, with
// why and what to do, instead of a hint repeated by every rule that needed a call.
func TestUncalledToolsAreNamedOnce(t *testing.T) {
	tgt := &active.Target{Tools: []active.Tool{{Name: "write_file"}, {Name: "read_file", ReadOnly: true}, {Name: "delete_all"}},
		Callable: []string{"read_file"}}
	note := uncalledToolsNote(tgt)
	if !strings.HasPrefix(note, "Tools not called: delete_all, write_file.") || !strings.Contains(note, "--allow-call") || strings.Contains(note, "read_file") {
		t.Errorf("note %q: want the two uncallable tools, sorted, and how to allow them", note)
	}
	tgt.Callable = []string{"read_file", "write_file", "delete_all"}
	if note := uncalledToolsNote(tgt); note != "" {
		t.Errorf("every tool callable, yet the note says %q", note)
	}
}
