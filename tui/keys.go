package tui

import "charm.land/bubbles/v2/key"

// keyMap is every key the TUI answers to, in one place: the help screen is generated from it,
// so a key cannot work without being listed.
type keyMap struct {
	Up, Down, Top, Bottom, HalfDown, HalfUp key.Binding
	Enter, Back, Tab, BackTab, Jump         key.Binding
	Filter, Follow, Probe, Export, Copy     key.Binding
	Raw, Help, Quit                         key.Binding
}

func defaultKeys() keyMap {
	return keyMap{
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		HalfDown: key.NewBinding(key.WithKeys("ctrl+d", "pgdown"), key.WithHelp("ctrl+d", "half page down")),
		HalfUp:   key.NewBinding(key.WithKeys("ctrl+u", "pgup"), key.WithHelp("ctrl+u", "half page up")),
		Enter:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		Back:     key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back")),
		Tab:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view")),
		BackTab:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous view")),
		Jump:     key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "jump to the exchange that showed a finding (esc: back)")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Follow:   key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow/pause")),
		Probe:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "probe upstream now")),
		Export:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export filter (any report format)")),
		Copy:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy request as curl")),
		Raw:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "raw/pretty body")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line reminder at the bottom of the screen.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Enter, k.Tab, k.Filter, k.Follow, k.Probe, k.Export, k.Copy, k.Help, k.Quit}
}

// FullHelp is the `?` screen: every binding, grouped.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.HalfDown, k.HalfUp},
		{k.Enter, k.Back, k.Tab, k.BackTab, k.Jump, k.Raw},
		{k.Filter, k.Follow, k.Probe, k.Export, k.Copy, k.Help, k.Quit},
	}
}
