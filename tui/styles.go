package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/mcp-sentinel/sentinel/rules"
)

// Styles are every style the TUI draws with. Colour only ever repeats what a word and a symbol
// already say, so Plain (NO_COLOR) loses nothing.
type Styles struct {
	Title, Dim, Selected, Header     lipgloss.Style
	Must, Should, Pass, Warn, ErrMsg lipgloss.Style
}

// NewStyles returns coloured styles, or plain ones when color is false (NO_COLOR, dumb
// terminals, tests). The selected row is shown in reverse video either way: that is not colour.
func NewStyles(color bool) Styles {
	s := Styles{
		Title: lipgloss.NewStyle().Bold(true), Dim: lipgloss.NewStyle(), Selected: lipgloss.NewStyle().Reverse(true),
		Header: lipgloss.NewStyle().Bold(true), Must: lipgloss.NewStyle(), Should: lipgloss.NewStyle(),
		Pass: lipgloss.NewStyle(), Warn: lipgloss.NewStyle(), ErrMsg: lipgloss.NewStyle(),
	}
	if !color {
		return s
	}
	s.Dim = s.Dim.Faint(true)
	s.Must = s.Must.Foreground(lipgloss.Color("9"))
	s.Should = s.Should.Foreground(lipgloss.Color("11"))
	s.Pass = s.Pass.Foreground(lipgloss.Color("10"))
	s.Warn = s.Warn.Foreground(lipgloss.Color("11"))
	s.ErrMsg = s.ErrMsg.Foreground(lipgloss.Color("9")).Bold(true)
	return s
}

// Severity symbols: a word and a symbol for every level, so nothing depends on colour.
const (
	symMust     = "✖"
	symShould   = "▲"
	symPass     = "✓"
	symUngraded = "?"
	symError    = "!"
)

// levelBadge renders a level as symbol and word ("✖ MUST NOT").
func (s Styles) levelBadge(l rules.Level) string {
	switch severity(l) {
	case 2:
		return s.Must.Render(symMust + " " + string(l))
	case 1:
		return s.Should.Render(symShould + " " + string(l))
	}
	return Clean(string(l))
}

// statusBadge renders an outcome status with its symbol.
func (s Styles) statusBadge(st rules.Status) string {
	switch st {
	case rules.Pass:
		return s.Pass.Render(symPass + " pass")
	case rules.Fail:
		return s.Must.Render(symMust + " fail")
	case rules.NotApplicable:
		return s.Dim.Render("– n/a")
	case "":
		return ""
	default:
		return s.Warn.Render(symUngraded + " " + Clean(string(st)))
	}
}

// plainHelpStyles are the key reminder's styles without colour.
func plainHelpStyles() help.Styles {
	p := lipgloss.NewStyle()
	return help.Styles{Ellipsis: p, ShortKey: p, ShortDesc: p, ShortSeparator: p, FullKey: p, FullDesc: p, FullSeparator: p}
}
