package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// exchangeList is the live list of exchanges, oldest at the top, newest at the bottom.
type exchangeList struct {
	keys   keyMap
	styles Styles
	loc    *time.Location
	rows   []*Row // the snapshot's rows that pass the filter
	cur    cursor
	width  int
	follow bool
	// movedAway is set when the user moved while following: the root pauses.
	movedAway bool
}

func newExchangeList(k keyMap, s Styles, loc *time.Location) *exchangeList {
	return &exchangeList{keys: k, styles: s, loc: loc, follow: true}
}

func (l *exchangeList) Init() tea.Cmd { return nil }

// setRows replaces the rows from a snapshot and the filter, keeping the selection on the same
// exchange when it is still shown, or on the newest when following.
func (l *exchangeList) setRows(all []Row, f Filter) {
	var selected string
	if r := l.Selected(); r != nil {
		selected = r.ID
	}
	rows := make([]*Row, 0, len(all))
	for i := range all {
		if f.Empty() || f.MatchRow(&all[i]) {
			rows = append(rows, &all[i])
		}
	}
	l.rows = rows
	l.cur.n = len(rows)
	switch {
	case l.follow:
		l.cur.pos = len(rows) - 1
	case selected != "":
		for i, r := range rows {
			if r.ID == selected {
				l.cur.pos = i
				break
			}
		}
	}
	l.cur.clamp()
}

// Selected is the row under the cursor, or nil.
func (l *exchangeList) Selected() *Row {
	if l.cur.pos < 0 || l.cur.pos >= len(l.rows) {
		return nil
	}
	return l.rows[l.cur.pos]
}

func (l *exchangeList) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		before := l.cur.pos
		if l.cur.move(l.keys, k) && l.follow && l.cur.pos < before {
			l.movedAway = true
		}
	}
	return nil
}

func (l *exchangeList) SetSize(w, h int) {
	l.width, l.cur.height = w, h-1 // one line of column titles
	l.cur.clamp()
}

// Column widths; the method column is as wide as the longest method shown (within bounds) and
// the name column takes what is left.
const (
	colTime      = 8
	colMethodMin = 6 // "METHOD"
	colMethodMax = 28
	colStatus    = 4
	colLatency   = 6
	colVerdict   = 17
)

// methodWidth is the width of the widest method among the rows, bounded.
func (l *exchangeList) methodWidth() int {
	w := colMethodMin
	for _, r := range l.rows {
		w = max(w, ansi.StringWidth(Clean(orDash(r.Method))))
	}
	return min(w, colMethodMax)
}

func (l *exchangeList) View() string {
	var b strings.Builder
	colMethod := l.methodWidth()
	nameW := max(l.width-colTime-colMethod-colStatus-colLatency-colVerdict-7, 6)
	b.WriteString(l.styles.Header.Render(fit(fmt.Sprintf("  %-*s %-*s %-*s %*s %*s %s", colTime, "TIME", colMethod, "METHOD",
		nameW, "NAME", colStatus, "HTTP", colLatency, "MS", "VERDICT"), l.width)))
	if len(l.rows) == 0 {
		b.WriteString("\n" + fit("  no exchanges match yet", l.width))
		return b.String()
	}
	from, to := l.cur.window()
	for i := from; i < to; i++ {
		r := l.rows[i]
		mark := "  "
		if i == l.cur.pos {
			mark = "▶ "
		}
		line := mark + fit(r.Started.In(l.loc).Format("15:04:05"), colTime) + " " +
			fit(Clean(orDash(r.Method)), colMethod) + " " + fit(Clean(orDash(r.Name())), nameW) + " " +
			fmt.Sprintf("%*s", colStatus, statusText(r.Status)) + " " + fmt.Sprintf("%*s", colLatency, latency(r.Duration)) + " "
		line = fit(line, l.width-colVerdict) + l.verdict(r)
		if i == l.cur.pos {
			line = l.styles.Selected.Render(fit(line, l.width))
		}
		b.WriteString("\n" + fit(line, l.width))
	}
	return b.String()
}

// verdict is the badge column: symbol and words, colour only as a repeat.
func (l *exchangeList) verdict(r *Row) string {
	switch r.Verdict() {
	case VerdictFail:
		lvl := r.Worst()
		if lvl == "" {
			return l.styles.Must.Render(fmt.Sprintf("%s %d fail", symMust, r.Count))
		}
		sym := symShould
		st := l.styles.Should
		if severity(lvl) == 2 {
			sym, st = symMust, l.styles.Must
		}
		return st.Render(fmt.Sprintf("%s %d %s", sym, r.Count, lvl))
	case VerdictError:
		return l.styles.ErrMsg.Render(symError + " no response")
	case VerdictUngraded:
		return l.styles.Warn.Render(symUngraded + " ungraded")
	}
	return l.styles.Pass.Render(symPass + " ok")
}

func (l *exchangeList) ShortHelp() []key.Binding { return l.keys.ShortHelp() }

func (l *exchangeList) FullHelp() [][]key.Binding { return l.keys.FullHelp() }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func statusText(code int) string {
	if code == 0 {
		return "---"
	}
	return strconv.Itoa(code)
}

func latency(d time.Duration) string {
	ms := d.Milliseconds()
	if ms >= 100000 {
		return fmt.Sprintf("%ds", ms/1000)
	}
	return strconv.FormatInt(ms, 10)
}
