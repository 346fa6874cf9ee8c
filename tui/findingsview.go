package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

// ruleGroup is every stored finding of one rule (across methods, tools and targets).
type ruleGroup struct {
	RuleID      string
	Level       rules.Level
	Count       int64 // occurrences, summed
	Keys        int   // distinct method/tool keys
	First, Last time.Time
	Findings    []findings.Finding // most recently seen first
}

// groupFindings groups findings by rule: most severe first, then most recently seen.
func groupFindings(fs []findings.Finding) []ruleGroup {
	idx := map[string]int{}
	var out []ruleGroup
	for _, f := range fs {
		i, ok := idx[f.RuleID]
		if !ok {
			i = len(out)
			idx[f.RuleID] = i
			out = append(out, ruleGroup{RuleID: f.RuleID, Level: f.Level, First: f.FirstSeen, Last: f.LastSeen})
		}
		g := &out[i]
		g.Count += f.Count
		g.Keys++
		g.Findings = append(g.Findings, f)
		if f.FirstSeen.Before(g.First) {
			g.First = f.FirstSeen
		}
		if f.LastSeen.After(g.Last) {
			g.Last = f.LastSeen
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := severity(out[i].Level), severity(out[j].Level); a != b {
			return a > b
		}
		if !out[i].Last.Equal(out[j].Last) {
			return out[i].Last.After(out[j].Last)
		}
		return out[i].RuleID < out[j].RuleID
	})
	return out
}

// findingList is the findings view: one line per rule with counts and first/last seen.
type findingList struct {
	keys   keyMap
	styles Styles
	loc    *time.Location
	groups []ruleGroup
	capped bool
	cur    cursor
	width  int
}

func newFindingList(k keyMap, s Styles, loc *time.Location) *findingList {
	return &findingList{keys: k, styles: s, loc: loc}
}

func (l *findingList) Init() tea.Cmd { return nil }

func (l *findingList) setFindings(fs []findings.Finding, capped bool, f Filter) {
	kept := make([]findings.Finding, 0, len(fs))
	for _, fd := range fs {
		if f.Empty() || f.MatchFinding(fd) {
			kept = append(kept, fd)
		}
	}
	l.groups, l.capped = groupFindings(kept), capped
	l.cur.n = len(l.groups)
	l.cur.clamp()
}

// Selected is the rule group under the cursor, or nil.
func (l *findingList) Selected() *ruleGroup {
	if l.cur.pos < 0 || l.cur.pos >= len(l.groups) {
		return nil
	}
	return &l.groups[l.cur.pos]
}

func (l *findingList) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		l.cur.move(l.keys, k)
	}
	return nil
}

func (l *findingList) SetSize(w, h int) {
	l.width, l.cur.height = w, h-1
	l.cur.clamp()
}

func (l *findingList) View() string {
	var b strings.Builder
	const lvlW, cntW, keysW, seenW = 12, 6, 4, 8
	ruleW := max(l.width-lvlW-cntW-keysW-2*seenW-7, 10)
	b.WriteString(l.styles.Header.Render(fit(fmt.Sprintf("  %-*s %-*s %*s %*s %-*s %-*s", lvlW, "LEVEL", ruleW, "RULE",
		cntW, "COUNT", keysW, "KEYS", seenW, "FIRST", seenW, "LAST"), l.width)))
	if len(l.groups) == 0 {
		b.WriteString("\n" + fit("  no findings match", l.width))
		return b.String()
	}
	from, to := l.cur.window()
	for i := from; i < to; i++ {
		g := l.groups[i]
		mark := "  "
		if i == l.cur.pos {
			mark = "▶ "
		}
		line := mark + fit(l.styles.levelBadge(g.Level), lvlW) + " " + fit(Clean(ruleName(g.RuleID)), ruleW) + " " +
			fmt.Sprintf("%*d %*d ", cntW, g.Count, keysW, g.Keys) +
			g.First.In(l.loc).Format("15:04:05") + " " + g.Last.In(l.loc).Format("15:04:05")
		if i == l.cur.pos {
			line = l.styles.Selected.Render(fit(line, l.width))
		}
		b.WriteString("\n" + fit(line, l.width))
	}
	return b.String()
}

func (l *findingList) ShortHelp() []key.Binding { return l.keys.ShortHelp() }

func (l *findingList) FullHelp() [][]key.Binding { return l.keys.FullHelp() }

// ruleName is the kebab-case name at the end of a rule ID.
func ruleName(id string) string { return id[strings.LastIndex(id, "/")+1:] }
