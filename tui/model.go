package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcp-sentinel/sentinel/findings"
)

// Source is where the model reads data from: a Cache filled by Watch, or a fake in tests.
type Source interface {
	Snapshot() Snapshot
	Changed() <-chan struct{}
}

// API is what the model asks of the admin API on demand; *Client implements it.
type API interface {
	Prober
	Exchange(ctx context.Context, r Row) (findings.Exchange, error)
	URL() string
}

// Options configures the model. Source and API are required.
type Options struct {
	Source Source
	API    API
	// Context bounds the model's own requests (detail loads, probes); nil means Background.
	Context context.Context
	// Now is the clock for "retry in" countdowns; nil means time.Now. Tests freeze it.
	Now func() time.Time
	// Location is the zone times are shown in; nil means time.Local.
	Location *time.Location
	// Color turns on colour (off for NO_COLOR); symbols and words carry meaning either way.
	Color bool
	// Tool names the producer in exported reports ("sentinel 0.1.0"); "" means "sentinel tui".
	Tool string
	// Refresh is how often the screen may pick up new data; 0 means DefaultRefresh.
	Refresh time.Duration
}

// DefaultRefresh caps screen refreshes at five a second, however fast traffic arrives.
const DefaultRefresh = 200 * time.Millisecond

type viewID int

const (
	viewExchanges viewID = iota
	viewFindings
	viewProbe
	viewDetail
)

// savedScreen is a view to come back to, with what its detail pane showed.
type savedScreen struct {
	view   viewID
	detail detailState
}

// Messages the model sends itself.
type (
	tickMsg    time.Time
	changedMsg struct{}
)

// Model is the root bubbletea model. Its Update only routes: data to the component that owns
// it, keys to the global actions or to the active component.
type Model struct {
	opts   Options
	ctx    context.Context
	keys   keyMap
	styles Styles

	live   Snapshot // the newest snapshot
	shown  Snapshot // what the lists show: live, or frozen while paused
	dirty  bool
	paused bool

	filterText string
	filter     Filter

	view viewID
	// stack holds the screens enter and x left, newest last: esc returns to them in order.
	stack []savedScreen
	// detailOrigin is the list view the current detail was first opened from (tab returns there).
	detailOrigin viewID
	showHelp     bool
	prompt       *prompt
	status       string

	list    *exchangeList
	finds   *findingList
	detail  *detailPane
	probe   *probePane
	helpBar help.Model

	width, height int
}

// New returns the model. It reads the first snapshot at once, so the first frame is honest.
func New(opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.Tool == "" {
		opts.Tool = "sentinel tui"
	}
	if opts.Refresh <= 0 {
		opts.Refresh = DefaultRefresh
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	k, s := defaultKeys(), NewStyles(opts.Color)
	m := &Model{opts: opts, ctx: ctx, keys: k, styles: s,
		list: newExchangeList(k, s, opts.Location), finds: newFindingList(k, s, opts.Location),
		detail: newDetailPane(k, s, opts.Location), probe: newProbePane(k, s), helpBar: help.New(),
		width: 80, height: 24}
	if !opts.Color {
		m.helpBar.Styles = plainHelpStyles()
	}
	m.live = opts.Source.Snapshot()
	m.shown = m.live
	m.apply()
	m.resize(80, 24)
	return m
}

// Init starts the refresh tick and the wait for cache changes.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.tick(), m.waitChanged(), m.probe.Init())
}

func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.opts.Refresh, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *Model) waitChanged() tea.Cmd {
	ch, done := m.opts.Source.Changed(), m.ctx.Done()
	return func() tea.Msg {
		select {
		case <-ch:
			return changedMsg{}
		case <-done:
			return nil
		}
	}
}

// Update routes one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case changedMsg:
		m.dirty = true
		return m, m.waitChanged()
	case tickMsg:
		m.refresh()
		return m, m.tick()
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case detailMsg:
		return m, m.detail.Update(msg)
	case probeStartedMsg, probeProgressMsg:
		return m, m.probe.Update(msg)
	case probeDoneMsg:
		cmd := m.probe.Update(msg)
		m.setStatus(m.probeStatus(msg))
		return m, cmd
	case exportedMsg:
		m.setStatus(exportStatus(msg))
	case copiedMsg:
		if msg.err != nil {
			m.setStatus(symError + " " + msg.err.Error())
			return m, nil
		}
		m.setStatus("wrote curl command to " + where(msg.path) + " (also offered to the terminal clipboard by OSC 52)")
		return m, tea.SetClipboard(msg.curl)
	}
	return m, nil
}

// refresh picks up the newest snapshot when something changed.
func (m *Model) refresh() {
	if !m.dirty {
		return
	}
	m.dirty = false
	m.live = m.opts.Source.Snapshot()
	if !m.paused {
		m.shown = m.live
		m.apply()
	}
}

// apply pushes the shown snapshot through the filter into the lists.
func (m *Model) apply() {
	m.list.setRows(m.shown.Rows, m.filter)
	m.finds.setFindings(m.shown.Findings, m.shown.FindingsCapped, m.filter)
}

func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 20), max(h, headerHeight+4)
	body := m.height - headerHeight - 2
	for _, c := range []component{m.list, m.finds, m.detail, m.probe} {
		c.SetSize(m.width, body)
	}
	m.helpBar.SetWidth(m.width)
}

func (m *Model) active() component {
	switch m.view {
	case viewFindings:
		return m.finds
	case viewProbe:
		return m.probe
	case viewDetail:
		return m.detail
	default:
		return m.list
	}
}

func (m *Model) setStatus(s string) { m.status = Clean(s) }

// key handles a key press: an open prompt or help screen takes it first, then the global
// actions, then the active component.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if m.prompt != nil {
		done, cancelled := m.prompt.update(k)
		switch {
		case cancelled:
			m.prompt = nil
		case done:
			p := m.prompt
			m.prompt = nil
			return m.promptDone(p.kind, strings.TrimSpace(p.value))
		}
		return nil
	}
	m.status = ""
	if m.showHelp {
		m.showHelp = false
		if key.Matches(k, m.keys.Quit) {
			return tea.Quit
		}
		return nil
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return tea.Quit
	case key.Matches(k, m.keys.Help):
		m.showHelp = true
	case key.Matches(k, m.keys.Tab):
		m.switchView(+1)
	case key.Matches(k, m.keys.BackTab):
		m.switchView(-1)
	case key.Matches(k, m.keys.Back):
		m.goBack()
	case key.Matches(k, m.keys.Jump):
		return m.jump()
	case key.Matches(k, m.keys.Filter):
		m.prompt = &prompt{kind: promptFilter, label: "filter: ", value: m.filterText}
	case key.Matches(k, m.keys.Follow):
		m.toggleFollow()
	case key.Matches(k, m.keys.Probe):
		return m.startProbe()
	case key.Matches(k, m.keys.Export):
		m.prompt = &prompt{kind: promptExport, label: "export filtered findings to (.sarif .json .md .html .xml .txt): ", value: "sentinel-findings.sarif"}
	case key.Matches(k, m.keys.Copy):
		if m.selectedRow() == nil {
			m.setStatus("select an exchange first: c copies its request as a curl command")
			return nil
		}
		m.prompt = &prompt{kind: promptCurl, label: "write curl command to: ", value: "sentinel-request.sh"}
	case key.Matches(k, m.keys.Enter):
		return m.enter()
	default:
		cmd := m.active().Update(k)
		if m.list.movedAway {
			m.list.movedAway = false
			m.pause(true)
		}
		return cmd
	}
	return nil
}

// tabOrder is the order tab walks the views in; shift+tab walks it backwards.
var tabOrder = []viewID{viewExchanges, viewFindings, viewProbe}

// switchView moves to the next (+1) or previous (-1) list view. From a detail it first returns
// to the list the detail was opened from.
func (m *Model) switchView(step int) {
	if m.view == viewDetail {
		m.stack = nil
		m.view = m.detailOrigin
	}
	i := 0
	for j, v := range tabOrder {
		if v == m.view {
			i = j
		}
	}
	m.view = tabOrder[(i+step+len(tabOrder))%len(tabOrder)]
}

// open shows the detail pane, remembering the current screen so esc returns to it.
func (m *Model) open() {
	m.stack = append(m.stack, savedScreen{view: m.view, detail: m.detail.save()})
	if m.view != viewDetail {
		m.detailOrigin = m.view
	}
	m.view = viewDetail
}

// goBack returns to the screen the last enter or x left.
func (m *Model) goBack() {
	n := len(m.stack)
	if m.view != viewDetail || n == 0 {
		return
	}
	prev := m.stack[n-1]
	m.stack = m.stack[:n-1]
	m.view = prev.view
	if prev.view == viewDetail {
		m.detail.restore(prev.detail)
	}
}

func (m *Model) toggleFollow() { m.pause(!m.paused) }

func (m *Model) pause(on bool) {
	m.paused = on
	m.list.follow = !on
	if !on {
		m.shown = m.live
		m.apply()
		m.setStatus("following: newest exchange selected")
		return
	}
	m.setStatus("paused: the lists are frozen (f to follow)")
}

// selectedRow is the exchange `c` and enter act on.
func (m *Model) selectedRow() *Row {
	if m.view == viewDetail {
		return m.detail.row
	}
	if m.view == viewExchanges {
		return m.list.Selected()
	}
	return nil
}

func (m *Model) enter() tea.Cmd {
	switch m.view {
	case viewExchanges:
		r := m.list.Selected()
		if r == nil {
			return nil
		}
		m.open()
		m.detail.showExchange(r)
		return fetchDetailCmd(m.ctx, m.opts.API, *r)
	case viewFindings:
		g := m.finds.Selected()
		if g == nil {
			return nil
		}
		m.open()
		m.detail.showGroup(g)
	case viewProbe:
		rr := m.probe.Selected()
		if rr == nil {
			return nil
		}
		m.open()
		m.detail.showRule(*rr)
	default: // the detail view has nothing to open
	}
	return nil
}

// jump opens the exchange that showed a finding: the selected rule's most recent one, in the
// findings view or a rule's detail. esc comes back.
func (m *Model) jump() tea.Cmd {
	var g *ruleGroup
	switch m.view {
	case viewFindings:
		g = m.finds.Selected()
	case viewDetail:
		g = m.detail.group
	case viewExchanges, viewProbe:
	}
	if g == nil || len(g.Findings) == 0 || g.Findings[0].ExchangeID == "" {
		m.setStatus("x jumps from a finding to its exchange: select a rule in the findings view first")
		return nil
	}
	r := m.rowFor(g.Findings[0])
	m.open()
	m.detail.showExchange(r)
	return fetchDetailCmd(m.ctx, m.opts.API, *r)
}

// rowFor is the exchange row a finding was last seen on: the list's own row when the ring still
// holds it, else one built from the finding (the admin API is asked for it by ID).
func (m *Model) rowFor(f findings.Finding) *Row {
	for i := range m.live.Rows {
		if m.live.Rows[i].ID == f.ExchangeID {
			r := m.live.Rows[i]
			return &r
		}
	}
	return &Row{ID: f.ExchangeID, Target: f.Target, Key: f.Key, Started: f.LastSeen.Add(-time.Minute),
		Count: 1, Findings: []findings.Finding{f}}
}

func fetchDetailCmd(ctx context.Context, api API, r Row) tea.Cmd {
	return func() tea.Msg {
		ex, err := api.Exchange(ctx, r)
		return detailMsg{id: r.ID, ex: ex, err: err}
	}
}

func (m *Model) startProbe() tea.Cmd {
	m.view = viewProbe
	if m.probe.runningNow() {
		m.setStatus("a probe is already running")
		return nil
	}
	m.setStatus("probing the upstream through the proxy…")
	return probeCmd(m.ctx, m.opts.API)
}

func (m *Model) probeStatus(msg probeDoneMsg) string {
	if msg.err != nil {
		return symError + " probe: " + msg.err.Error()
	}
	must, should := msg.res.Summary()
	return fmt.Sprintf("probe finished: %d MUST-level and %d SHOULD-level rule(s) failed", must.Fail, should.Fail)
}

func (m *Model) promptDone(kind promptKind, value string) tea.Cmd {
	switch kind {
	case promptFilter:
		f, err := ParseFilter(value)
		if err != nil {
			m.setStatus(symError + " " + err.Error())
			return nil
		}
		m.filter, m.filterText = f, value
		m.apply()
		m.status = ""
	case promptExport:
		if value == "" {
			return nil
		}
		var fs []findings.Finding
		for _, f := range m.shown.Findings {
			if m.filter.Empty() || m.filter.MatchFinding(f) {
				fs = append(fs, f)
			}
		}
		m.setStatus("exporting…")
		return exportCmd(fs, value, m.opts.Tool)
	case promptCurl:
		r := m.selectedRow()
		if r == nil || value == "" {
			return nil
		}
		if ex, ok := m.detail.exchange(); ok && m.detail.row.ID == r.ID {
			return curlCmd(ex, value)
		}
		api, ctx, row := m.opts.API, m.ctx, *r
		return func() tea.Msg {
			ex, err := api.Exchange(ctx, row)
			if err != nil {
				return copiedMsg{err: fmt.Errorf("loading the request to copy: %w", err)}
			}
			return curlCmd(ex, value)()
		}
	}
	return nil
}

func exportStatus(msg exportedMsg) string {
	if msg.err != nil {
		return symError + " " + msg.err.Error()
	}
	return fmt.Sprintf("exported %d finding(s) to %s", msg.n, where(msg.path))
}

// where names a written file with its base name first, so a narrow status line still shows it.
func where(path string) string {
	return filepath.Base(path) + " in " + filepath.Dir(path)
}
