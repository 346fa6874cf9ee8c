package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// View draws the whole screen in the alternate buffer.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "sentinel tui"
	return v
}

// Render is the screen as text, exactly m.height lines of at most m.width cells; tests compare
// it with ANSI stripped.
func (m *Model) Render() string {
	var b strings.Builder
	b.WriteString(headerView(m.styles, m.shown, m.finds.groups, !m.filter.Empty(), m.probe.era(), m.opts.Now(), m.opts.API.URL(), m.width))
	b.WriteByte('\n')
	body := m.height - headerHeight - 2
	content := m.active().View()
	if m.showHelp {
		content = m.helpView()
	}
	lines := strings.Split(content, "\n")
	for i := range body {
		if i < len(lines) {
			b.WriteString(fit(lines[i], m.width))
		} else {
			b.WriteString(strings.Repeat(" ", m.width))
		}
		b.WriteByte('\n')
	}
	b.WriteString(m.statusLine())
	b.WriteByte('\n')
	switch {
	case m.prompt != nil:
		b.WriteString(m.prompt.view(m.width))
	case m.status != "":
		b.WriteString(fit(m.status, m.width))
	default:
		b.WriteString(fit(m.helpBar.ShortHelpView(m.active().ShortHelp()), m.width))
	}
	return b.String()
}

// statusLine says which view is shown, how much the filter keeps, whether the list follows
// and what fell out of the ring. The last action's result replaces the key reminder below it
// until the next key.
func (m *Model) statusLine() string {
	var parts []string
	switch m.view {
	case viewExchanges:
		parts = append(parts, fmt.Sprintf("exchanges %d/%d", len(m.list.rows), len(m.shown.Rows)))
	case viewFindings:
		parts = append(parts, fmt.Sprintf("findings: %d rule(s)", len(m.finds.groups)))
	case viewProbe:
		parts = append(parts, "probe")
	case viewDetail:
		parts = append(parts, "detail")
	}
	if m.paused {
		n := len(m.live.Rows) + m.live.Dropped - len(m.shown.Rows) - m.shown.Dropped
		parts = append(parts, fmt.Sprintf("PAUSED (%d new)", n))
	} else {
		parts = append(parts, "following")
	}
	if m.filterText != "" {
		parts = append(parts, "filter: "+Clean(m.filterText))
	}
	if m.shown.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d older not shown", m.shown.Dropped))
	}
	if m.shown.OlderNotLoaded {
		parts = append(parts, "older history not loaded")
	}
	if m.shown.GapNotLoaded {
		parts = append(parts, "some exchanges missed while disconnected")
	}
	return fit(m.styles.Dim.Render(strings.Join(parts, " · ")), m.width)
}

// helpView lists every key (from the one keyMap) and the filter language.
func (m *Model) helpView() string {
	var b strings.Builder
	b.WriteString(m.styles.Title.Render("keys (any key closes this help)") + "\n")
	var all []string
	for _, group := range m.keys.FullHelp() {
		for _, k := range group {
			h := k.Help()
			all = append(all, fmt.Sprintf("%-8s %s", h.Key, h.Desc))
		}
	}
	half := (len(all) + 1) / 2
	colW := max(m.width/2, 20)
	for i := range half {
		line := fit("  "+all[i], colW)
		if i+half < len(all) {
			line += "  " + all[i+half]
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + m.styles.Title.Render("filter tokens (same key: any of; different keys: all of)") + "\n")
	b.WriteString("  method:tools/call  tool:search  rule:session  level:must,should\n")
	b.WriteString("  status:200 status:4xx status:err  verdict:fail|pass|ungraded|error\n")
	b.WriteString("  other words match anywhere; \"quote words\" with spaces or colons\n")
	b.WriteString("  status: applies to exchanges only")
	return b.String()
}
