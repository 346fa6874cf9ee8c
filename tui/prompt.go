package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// promptKind says what a finished prompt is for.
type promptKind int

const (
	promptFilter promptKind = iota
	promptExport
	promptCurl
)

// prompt is a one-line editor at the bottom of the screen: printable keys type, backspace
// deletes, ctrl+u clears, enter accepts and esc cancels.
type prompt struct {
	kind  promptKind
	label string
	value string
}

// update edits the prompt; it returns done or cancelled when the prompt closes.
func (p *prompt) update(k tea.KeyPressMsg) (done, cancelled bool) {
	switch k.String() {
	case "enter":
		return true, false
	case "esc", "ctrl+c":
		return false, true
	case "backspace":
		if r := []rune(p.value); len(r) > 0 {
			p.value = string(r[:len(r)-1])
		}
	case "ctrl+u":
		p.value = ""
	case "space":
		p.value += " "
	default:
		if k.Text != "" && !strings.ContainsFunc(k.Text, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			p.value += k.Text
		}
	}
	return false, false
}

func (p *prompt) view(width int) string {
	return fit(p.label+p.value+"█", width)
}
