package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// loadState is a pane's explicit data state: it never shows stale data as if it were current.
type loadState int

const (
	loading loadState = iota
	failed
	ready
)

// detailMsg carries one exchange fetched for the detail pane.
type detailMsg struct {
	id  string
	ex  findings.Exchange
	err error
}

// detailPane shows one exchange (headers, bodies, SSE events, findings) or one rule group.
type detailPane struct {
	keys   keyMap
	styles Styles
	loc    *time.Location
	row    *Row
	group  *ruleGroup
	rule   *report.RuleResult
	state  loadState
	err    string
	ex     findings.Exchange
	raw    bool
	sc     scroller
}

func newDetailPane(k keyMap, s Styles, loc *time.Location) *detailPane {
	return &detailPane{keys: k, styles: s, loc: loc}
}

func (d *detailPane) Init() tea.Cmd { return nil }

// showExchange starts showing a row; the root issues the fetch.
func (d *detailPane) showExchange(r *Row) {
	d.row, d.group, d.rule, d.state, d.err, d.sc.offset = r, nil, nil, loading, "", 0
	d.render()
}

// showGroup shows a rule group; it needs no fetch.
func (d *detailPane) showGroup(g *ruleGroup) {
	d.row, d.group, d.rule, d.state, d.sc.offset = nil, g, nil, ready, 0
	d.render()
}

// showRule shows one rule of a probe result: the rule and the evidence the probe had.
func (d *detailPane) showRule(rr report.RuleResult) {
	d.row, d.group, d.rule, d.state, d.sc.offset = nil, nil, &rr, ready, 0
	d.render()
}

// detailState is what the pane shows, kept so esc can come back to it.
type detailState struct {
	row    *Row
	group  *ruleGroup
	rule   *report.RuleResult
	state  loadState
	err    string
	ex     findings.Exchange
	offset int
}

// save is what the pane shows now.
func (d *detailPane) save() detailState {
	return detailState{row: d.row, group: d.group, rule: d.rule, state: d.state, err: d.err, ex: d.ex, offset: d.sc.offset}
}

// restore shows a saved state again, scrolled where it was.
func (d *detailPane) restore(s detailState) {
	d.row, d.group, d.rule, d.state, d.err, d.ex = s.row, s.group, s.rule, s.state, s.err, s.ex
	d.render()
	d.sc.offset = min(s.offset, max(len(d.sc.lines)-d.sc.height, 0))
}

// exchange is the fetched exchange when the pane shows one, for `c`.
func (d *detailPane) exchange() (findings.Exchange, bool) {
	return d.ex, d.row != nil && d.state == ready
}

func (d *detailPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case detailMsg:
		if d.row == nil || msg.id != d.row.ID {
			return nil // an answer for a pane the user already left
		}
		if msg.err != nil {
			d.state, d.err = failed, msg.err.Error()
		} else {
			d.state, d.ex = ready, msg.ex
		}
		d.render()
	case tea.KeyPressMsg:
		if key.Matches(msg, d.keys.Raw) {
			d.raw = !d.raw
			d.render()
			return nil
		}
		d.sc.move(d.keys, msg)
	}
	return nil
}

func (d *detailPane) SetSize(w, h int) {
	d.sc.width, d.sc.height = w, h
	d.render()
}

func (d *detailPane) View() string { return d.sc.view() }

func (d *detailPane) ShortHelp() []key.Binding {
	return []key.Binding{d.keys.Back, d.keys.Raw, d.keys.Copy, d.keys.Down, d.keys.Up, d.keys.Help, d.keys.Quit}
}

func (d *detailPane) FullHelp() [][]key.Binding { return d.keys.FullHelp() }

// render rebuilds the pane's lines, wrapped to its width.
func (d *detailPane) render() {
	var b lineBuilder
	switch {
	case d.rule != nil:
		d.ruleLines(&b)
	case d.group != nil:
		d.groupLines(&b)
	case d.row != nil:
		d.exchangeLines(&b)
	}
	w := max(d.sc.width, 20)
	var lines []string
	for _, l := range b.lines {
		lines = append(lines, wrapIndented(l, w)...)
	}
	d.sc.lines = lines
	d.sc.offset = min(d.sc.offset, max(len(lines)-d.sc.height, 0))
}

// wrapIndented wraps a line to w cells; continuation lines keep the line's indentation plus two
// spaces, so wrapped prose and JSON stay readable.
func wrapIndented(l string, w int) []string {
	if ansi.StringWidth(l) <= w {
		return []string{l}
	}
	trimmed := strings.TrimLeft(l, " ")
	ind := len(l) - len(trimmed)
	if ind+2 >= w/2 {
		ind = 0
	}
	first := strings.Split(ansi.Wrap(l, w, ""), "\n")
	out := []string{first[0]}
	rest := strings.TrimLeft(strings.Join(first[1:], " "), " ")
	pad := strings.Repeat(" ", ind+2)
	for _, c := range strings.Split(ansi.Wrap(rest, w-len(pad), ""), "\n") {
		out = append(out, pad+c)
	}
	return out
}

type lineBuilder struct{ lines []string }

func (b *lineBuilder) add(format string, args ...any) {
	b.lines = append(b.lines, fmt.Sprintf(format, args...))
}

func (b *lineBuilder) block(s string) {
	b.lines = append(b.lines, strings.Split(strings.TrimRight(s, "\n"), "\n")...)
}

func (d *detailPane) exchangeLines(b *lineBuilder) {
	r := d.row
	b.add("%s", d.styles.Title.Render("exchange "+Clean(r.ID)))
	b.add("%s %s · HTTP %s · %s ms · %s · %s", r.Started.In(d.loc).Format("15:04:05.000"), Clean(orDash(r.Key)),
		statusText(r.Status), latency(r.Duration), Clean(orDash(r.Graded)), Clean(r.Target))
	if r.Err != "" {
		b.add("%s", d.styles.ErrMsg.Render(symError+" transport error: "+Clean(r.Err)))
	}
	switch d.state {
	case loading:
		b.add("loading headers and bodies from the admin API…")
	case failed:
		b.add("%s", d.styles.ErrMsg.Render(symError+" could not load the exchange: "+Clean(d.err)))
	case ready:
		ex := d.ex
		mode := "pretty"
		if d.raw {
			mode = "raw"
		}
		b.add("")
		b.add("%s", d.styles.Header.Render("── request "+Clean(ex.HTTPMethod)+" "+Clean(ex.URL)))
		headerLines(b, ex.RequestHeader)
		b.add("%s", d.styles.Header.Render("── request body ("+mode+")"))
		d.bodyLines(b, ex.RequestHeader.Get("Content-Type"), ex.RequestBody)
		b.add("%s", d.styles.Header.Render(fmt.Sprintf("── response HTTP %s", statusText(ex.Status))))
		headerLines(b, ex.ResponseHeader)
		b.add("%s", d.styles.Header.Render("── response body ("+mode+")"))
		d.bodyLines(b, ex.ResponseHeader.Get("Content-Type"), ex.ResponseBody)
		if ex.Truncated {
			b.add("%s", d.styles.Warn.Render(symUngraded+" the proxy stored only a prefix of a body (size cap)"))
		}
	}
	b.add("")
	b.add("%s", d.styles.Header.Render(fmt.Sprintf("── findings: %d reported, %d known here", r.Count, len(r.Findings))))
	if r.Count > len(r.Findings) {
		b.add("  (the store keeps each finding's latest exchange only; the others are in the findings view)")
	}
	for _, f := range r.Findings {
		d.findingLines(b, f)
	}
}

func headerLines(b *lineBuilder, h http.Header) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		b.add("  (no headers stored)")
	}
	for _, k := range names {
		for _, v := range h[k] {
			b.add("  %s: %s", Clean(k), Clean(v))
		}
	}
}

// bodyLines shows a body: SSE events in order, or pretty JSON, or the raw bytes.
func (d *detailPane) bodyLines(b *lineBuilder, contentType string, body []byte) {
	if len(body) == 0 {
		b.add("  (empty)")
		return
	}
	if d.raw {
		b.block(CleanBlock(string(body)))
		return
	}
	events, _, perrs := wire.ParseBody(contentType, body, wire.Limits{})
	if wire.MediaType(contentType) == wire.ContentTypeSSE {
		for i, ev := range events {
			b.add("  event %d: %s%s", i+1, Clean(orDash(ev.Event)), idSuffix(ev.ID))
			b.block(indent(CleanBlock(pretty([]byte(ev.Data))), "    "))
		}
	} else {
		b.block(indent(CleanBlock(pretty(body)), "  "))
	}
	for _, e := range perrs {
		b.add("  %s", d.styles.Warn.Render(symUngraded+" "+Clean(e)))
	}
}

func idSuffix(id string) string {
	if id == "" {
		return ""
	}
	return " id=" + Clean(id)
}

// pretty indents JSON for reading and shows the characters a server escaped as \uXXXX (Go's
// encoder writes <, > and & that way) as themselves; control characters stay escaped.
func pretty(raw []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, bytes.TrimSpace(raw), "", "  ") != nil {
		return string(raw)
	}
	return unescapeJSON(out.String())
}

// unescapeJSON replaces \uXXXX escapes inside JSON strings with the character they stand for,
// except those that must stay escaped to keep the text JSON (a quote, a backslash) or that are
// not printable; an escaped backslash is left alone. Surrogate pairs become one character.
func unescapeJSON(s string) string {
	if !strings.Contains(s, `\u`) {
		return s
	}
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(s):
			if r, n := decodeEscape(s[i:]); n > 0 {
				b.WriteRune(r)
				i += n - 1
				continue
			}
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// decodeEscape reads a \uXXXX escape (or a surrogate pair) at the start of s and returns the
// character and the bytes it took, or 0 bytes when it should stay escaped.
func decodeEscape(s string) (rune, int) {
	hex := func(h string) (rune, bool) {
		v, err := strconv.ParseUint(h, 16, 32)
		return rune(v), err == nil
	}
	if len(s) < 6 || s[1] != 'u' {
		return 0, 0
	}
	r, ok := hex(s[2:6])
	if !ok {
		return 0, 0
	}
	n := 6
	if utf16.IsSurrogate(r) {
		if len(s) < 12 || s[6] != '\\' || s[7] != 'u' {
			return 0, 0
		}
		r2, ok := hex(s[8:12])
		if !ok {
			return 0, 0
		}
		r, n = utf16.DecodeRune(r, r2), 12
	}
	if r == '"' || r == '\\' || !unicode.IsPrint(r) {
		return 0, 0
	}
	return r, n
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func (d *detailPane) findingLines(b *lineBuilder, f findings.Finding) {
	b.add("%s  %s", d.styles.levelBadge(f.Level), Clean(f.RuleID))
	if f.Key != "" {
		b.add("    on: %s", Clean(f.Key))
	}
	b.add("    observed: %s", Clean(f.Observed))
	if f.Remediation != "" {
		b.add("    fix: %s", Clean(f.Remediation))
	}
	if f.SpecURL != "" {
		b.add("    spec: %s", Clean(f.SpecURL))
	}
}

// ruleLines shows one rule of a probe result in full.
func (d *detailPane) ruleLines(b *lineBuilder) {
	rr := *d.rule
	b.add("%s", d.styles.Title.Render("rule "+Clean(rr.Rule.ID)))
	b.add("%s · %s · checked %s", d.styles.statusBadge(rr.Status), d.styles.levelBadge(rr.Rule.Level), Clean(string(rr.Rule.Check)))
	b.add("requirement: %s", Clean(rr.Rule.Requirement))
	for _, o := range rr.Evidence {
		switch {
		case o.Observed != "":
			b.add("  %s %s", fit(d.styles.statusBadge(o.Status), 17), Clean(o.Observed))
		case o.Why != "":
			b.add("  %s %s", fit(d.styles.statusBadge(o.Status), 17), Clean(o.Why))
		}
	}
	if s := rr.WouldSettle(); s != "" {
		b.add("would settle: %s", Clean(s))
	}
	b.add("fix: %s", Clean(rr.Rule.Remediation))
	b.add("spec: %s", Clean(rr.Rule.SpecURL))
}

func (d *detailPane) groupLines(b *lineBuilder) {
	g := d.group
	b.add("%s", d.styles.Title.Render("rule "+Clean(g.RuleID)))
	if len(g.Findings) > 0 && g.Findings[0].ExchangeID != "" {
		b.add("%s", d.styles.Dim.Render("x: open exchange "+Clean(g.Findings[0].ExchangeID)+", the latest that showed it · esc: back"))
	}
	b.add("%s · %d occurrence(s) on %d method/tool key(s) · first %s · last %s", d.styles.levelBadge(g.Level),
		g.Count, g.Keys, g.First.In(d.loc).Format("2006-01-02 15:04:05"), g.Last.In(d.loc).Format("15:04:05"))
	if r, ok := rules.ByID(g.RuleID); ok {
		b.add("requirement: %s", Clean(r.Requirement))
	}
	for _, f := range g.Findings {
		b.add("")
		b.add("%s", d.styles.Header.Render(fmt.Sprintf("── %s · %d time(s) · last exchange %s", Clean(orDash(f.Key)), f.Count, Clean(orDash(f.ExchangeID)))))
		d.findingLines(b, f)
	}
}
