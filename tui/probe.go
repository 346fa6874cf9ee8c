package tui

import (
	"context"
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
)

// Probe messages: the run's steps arrive one by one on a channel the root keeps reading.
type (
	probeStartedMsg  struct{ ch <-chan tea.Msg }
	probeProgressMsg struct{ p ProbeProgress }
	probeDoneMsg     struct {
		res *report.Result
		err error
	}
)

// maxProbeSteps bounds the progress lines kept from one run.
const maxProbeSteps = 500

// Prober runs the active prober through the proxy; *Client implements it.
type Prober interface {
	Probe(ctx context.Context, path string, progress func(ProbeProgress)) (*report.Result, error)
}

// probeCmd starts a run and returns a channel of its messages, ending with probeDoneMsg.
func probeCmd(ctx context.Context, p Prober) tea.Cmd {
	return func() tea.Msg {
		ch := make(chan tea.Msg, 64)
		go func() {
			res, err := p.Probe(ctx, "", func(pp ProbeProgress) {
				select {
				case ch <- probeProgressMsg{pp}:
				case <-ctx.Done():
				}
			})
			ch <- probeDoneMsg{res: res, err: err}
			close(ch)
		}()
		return probeStartedMsg{ch: ch}
	}
}

// nextProbeMsg waits for the run's next message.
func nextProbeMsg(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		m, ok := <-ch
		if !ok {
			return nil
		}
		return m
	}
}

// probePane shows a probe run: its progress as it arrives, then its result.
type probePane struct {
	keys    keyMap
	styles  Styles
	running bool
	started bool
	steps   []ProbeProgress
	res     *report.Result
	err     string
	ch      <-chan tea.Msg
	sc      scroller
	// rows are the result's rules as listed (n/a left out); cur selects one for enter, and
	// firstRow is the line the list starts on.
	rows     []report.RuleResult
	cur      cursor
	firstRow int
}

// Selected is the rule under the cursor in a finished run's list, or nil.
func (p *probePane) Selected() *report.RuleResult {
	if p.cur.pos < 0 || p.cur.pos >= len(p.rows) {
		return nil
	}
	return &p.rows[p.cur.pos]
}

// runningNow reports whether a run is in flight, so `p` does not start a second one.
func (p *probePane) runningNow() bool { return p.running }

// era is the finished run's protocol verdict, for the header.
func (p *probePane) era() string {
	if p.res == nil {
		return ""
	}
	return p.res.Era
}

func newProbePane(k keyMap, s Styles) *probePane { return &probePane{keys: k, styles: s} }

func (p *probePane) Init() tea.Cmd { return nil }

func (p *probePane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case probeStartedMsg:
		p.running, p.started, p.steps, p.res, p.err, p.ch = true, true, nil, nil, "", msg.ch
		p.render()
		return nextProbeMsg(msg.ch)
	case probeProgressMsg:
		if len(p.steps) < maxProbeSteps {
			p.steps = append(p.steps, msg.p)
		}
		p.render()
		return nextProbeMsg(p.ch)
	case probeDoneMsg:
		p.running, p.ch = false, nil
		if msg.err != nil {
			p.err = msg.err.Error()
		}
		p.res = msg.res
		p.render()
	case tea.KeyPressMsg:
		if len(p.rows) > 0 && p.cur.move(p.keys, msg) {
			p.render()
			line := p.firstRow + p.cur.pos
			switch {
			case line < p.sc.offset:
				p.sc.offset = line
			case line >= p.sc.offset+p.sc.height:
				p.sc.offset = line - p.sc.height + 1
			}
			return nil
		}
		p.sc.move(p.keys, msg)
	}
	return nil
}

func (p *probePane) SetSize(w, h int) {
	p.sc.width, p.sc.height = w, h
	p.render()
}

func (p *probePane) View() string { return p.sc.view() }

func (p *probePane) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Enter, p.keys.Tab, p.keys.Probe, p.keys.Down, p.keys.Up, p.keys.Help, p.keys.Quit}
}

func (p *probePane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }

func (p *probePane) render() {
	var b lineBuilder
	switch {
	case !p.started:
		b.add("no probe run yet: press p to run the active prober against the upstream through the proxy")
	case p.running:
		now := ""
		if n := len(p.steps); n > 0 {
			now = ": " + Clean(p.steps[n-1].Message)
		}
		b.add("%s", p.styles.Title.Render(fmt.Sprintf("probe running… %d step(s) so far%s", len(p.steps), now)))
	case p.err != "":
		b.add("%s", p.styles.ErrMsg.Render(symError+" "+Clean(p.err)))
	case p.res != nil:
		must, should := p.res.Summary()
		b.add("%s", p.styles.Title.Render(fmt.Sprintf("probe of %s · era %s", Clean(p.res.Target), Clean(orDash(p.res.Era)))))
		for _, c := range []struct {
			name string
			n    report.Counts
		}{{"MUST-level  ", must}, {"SHOULD-level", should}} {
			b.add("%s  %s %d  %s %d  %s %d  – n/a %d", c.name, symPass+" pass", c.n.Pass, symMust+" fail", c.n.Fail,
				symUngraded+" indeterminate", c.n.Indeterminate, c.n.NotApplicable)
		}
	}
	p.rows = nil
	if p.res != nil {
		rr := append([]report.RuleResult(nil), p.res.Rules...)
		sort.SliceStable(rr, func(i, j int) bool { return statusRank(rr[i].Status) < statusRank(rr[j].Status) })
		for _, r := range rr {
			if r.Status != rules.NotApplicable {
				p.rows = append(p.rows, r)
			}
		}
		p.cur.n, p.cur.height = len(p.rows), max(p.sc.height, 1)
		p.cur.clamp()
		if len(p.rows) > 0 {
			b.add("%s", p.styles.Dim.Render("enter: the rule in full, with the probe's evidence"))
		}
		p.firstRow = len(b.lines)
		for i, r := range p.rows {
			mark := "  "
			if i == p.cur.pos {
				mark = "▶ "
			}
			line := mark + fit(p.styles.statusBadge(r.Status), 17) + "  " + fit(p.styles.levelBadge(r.Rule.Level), 12) + "  " + Clean(r.Rule.Name)
			if i == p.cur.pos {
				line = p.styles.Selected.Render(line)
			}
			b.add("%s", line)
		}
	}
	if len(p.steps) > 0 {
		b.add("")
		b.add("%s", p.styles.Header.Render("── progress"))
		for i := len(p.steps) - 1; i >= 0; i-- { // newest first: what is happening now is on top
			st := p.steps[i]
			b.add("%s %s %s", fit(p.styles.statusBadge(st.Status), 17), Clean(st.Message), Clean(ruleName(st.RuleID)))
		}
	}
	p.sc.lines = b.lines
	p.sc.offset = min(p.sc.offset, max(len(b.lines)-p.sc.height, 0))
}

func statusRank(s rules.Status) int {
	switch s {
	case rules.Fail:
		return 0
	case rules.Indeterminate:
		return 1
	case rules.Pass:
		return 2
	default:
		return 3
	}
}
