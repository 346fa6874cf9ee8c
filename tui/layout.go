package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// component is what every piece of the screen implements: the root model only routes messages
// to the active one and lays their views out.
type component interface {
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// fit truncates s to w cells (with an ellipsis) and pads it to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// cursor is a selection in a list of n items shown height lines at a time.
type cursor struct {
	pos, offset, n, height int
}

// move applies a movement key; it reports whether the key was a movement.
func (c *cursor) move(k keyMap, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		c.pos--
	case key.Matches(msg, k.Down):
		c.pos++
	case key.Matches(msg, k.Top):
		c.pos = 0
	case key.Matches(msg, k.Bottom):
		c.pos = c.n - 1
	case key.Matches(msg, k.HalfDown):
		c.pos += max(1, c.height/2)
	case key.Matches(msg, k.HalfUp):
		c.pos -= max(1, c.height/2)
	default:
		return false
	}
	c.clamp()
	return true
}

// clamp keeps pos inside the list and the window around pos.
func (c *cursor) clamp() {
	c.pos = min(max(c.pos, 0), max(c.n-1, 0))
	h := max(c.height, 1)
	if c.pos < c.offset {
		c.offset = c.pos
	}
	if c.pos >= c.offset+h {
		c.offset = c.pos - h + 1
	}
	c.offset = min(max(c.offset, 0), max(c.n-h, 0))
}

// window returns the visible range [from, to).
func (c *cursor) window() (int, int) {
	return c.offset, min(c.offset+max(c.height, 1), c.n)
}

// scroller is a read-only text pane scrolled by the movement keys.
type scroller struct {
	lines  []string
	offset int
	height int
	width  int
}

func (s *scroller) move(k keyMap, msg tea.KeyPressMsg) bool {
	c := cursor{pos: s.offset, offset: s.offset, n: max(len(s.lines)-s.height+1, 1), height: 1}
	if key.Matches(msg, k.HalfDown) || key.Matches(msg, k.HalfUp) {
		c.height = s.height
	}
	if !c.move(k, msg) {
		return false
	}
	s.offset = c.pos
	return true
}

func (s *scroller) view() string {
	var b strings.Builder
	end := min(s.offset+s.height, len(s.lines))
	for i := s.offset; i < end; i++ {
		b.WriteString(fit(s.lines[i], s.width))
		if i < end-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
