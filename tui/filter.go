package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

// Filter is a parsed `/` filter. Tokens of the same kind are alternatives (method:a method:b
// keeps either); different kinds and free-text words must all hold. A comma inside a value is
// the same as repeating the token (level:must,should). The zero Filter keeps everything.
type Filter struct {
	Methods  []string      // method:<name>, exact JSON-RPC method ("tools/call")
	Tools    []string      // tool:<name>, the name after the colon of a key ("search")
	Rules    []string      // rule:<id or name or part of a name>
	Levels   []rules.Level // level:must | must-not | should | should-not
	Statuses []string      // status:200 | 4xx | err (no response); exchanges only
	Verdicts []string      // verdict:fail | pass | ungraded | error
	Text     []string      // free words, matched case-insensitively anywhere in the row
}

// Filter keys, as typed before the colon.
const (
	keyMethod  = "method"
	keyTool    = "tool"
	keyRule    = "rule"
	keyLevel   = "level"
	keyStatus  = "status"
	keyVerdict = "verdict"
)

// Verdicts accepted by verdict:.
const (
	VerdictFail     = "fail"
	VerdictPass     = "pass"
	VerdictUngraded = "ungraded"
	VerdictError    = "error"
)

// ParseFilter parses the filter language: whitespace-separated tokens, each `key:value` with a
// known key or a free word; double quotes keep spaces (and colons) in a word or a value. An
// unknown key, an empty value or an invalid level, status or verdict is an error that says
// what is accepted, so a typo never silently shows everything.
func ParseFilter(s string) (Filter, error) {
	var f Filter
	words, err := splitWords(s)
	if err != nil {
		return Filter{}, err
	}
	for _, w := range words {
		if w.text == "" {
			continue
		}
		if w.quoted {
			f.Text = append(f.Text, strings.ToLower(w.text))
			continue
		}
		k, v, ok := strings.Cut(w.text, ":")
		if !ok || !isKeyword(k) {
			f.Text = append(f.Text, strings.ToLower(w.text))
			continue
		}
		if err := f.add(strings.ToLower(k), v); err != nil {
			return Filter{}, err
		}
	}
	return f, nil
}

// isKeyword reports whether s looks like a filter key (letters only), as opposed to free text
// that happens to hold a colon ("tools/call:search").
func isKeyword(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

func (f *Filter) add(k, v string) error {
	vals := strings.Split(strings.Trim(v, `"`), ",")
	for _, val := range vals {
		val = strings.TrimSpace(val)
		if val == "" {
			return fmt.Errorf("filter %s: needs a value, e.g. %s", k+":", example(k))
		}
		switch k {
		case keyMethod:
			f.Methods = append(f.Methods, val)
		case keyTool:
			f.Tools = append(f.Tools, val)
		case keyRule:
			f.Rules = append(f.Rules, val)
		case keyLevel:
			l := rules.Level(strings.ToUpper(strings.NewReplacer("-", " ", "_", " ").Replace(val)))
			if !l.Valid() {
				return fmt.Errorf("filter level:%s: use must, must-not, should or should-not", val)
			}
			f.Levels = append(f.Levels, l)
		case keyStatus:
			s := strings.ToLower(val)
			if !validStatus(s) {
				return fmt.Errorf("filter status:%s: use a code (404), a class (4xx) or err (no response)", val)
			}
			f.Statuses = append(f.Statuses, s)
		case keyVerdict:
			s := strings.ToLower(val)
			switch s {
			case VerdictFail, VerdictPass, VerdictUngraded, VerdictError:
			default:
				return fmt.Errorf("filter verdict:%s: use fail, pass, ungraded or error", val)
			}
			f.Verdicts = append(f.Verdicts, s)
		default:
			return fmt.Errorf("filter %s: unknown key; use method:, tool:, rule:, level:, status:, verdict: or quote the text", k+":")
		}
	}
	return nil
}

func example(k string) string {
	switch k {
	case keyMethod:
		return "method:tools/call"
	case keyTool:
		return "tool:search"
	case keyRule:
		return "rule:no-session-id"
	case keyLevel:
		return "level:must"
	case keyStatus:
		return "status:4xx"
	case keyVerdict:
		return "verdict:fail"
	}
	return k + ":value"
}

func validStatus(s string) bool {
	if s == "err" {
		return true
	}
	if len(s) != 3 || s[0] < '1' || s[0] > '5' {
		return false
	}
	if s[1:] == "xx" {
		return true
	}
	_, err := strconv.Atoi(s)
	return err == nil
}

type word struct {
	text   string
	quoted bool
}

// splitWords splits on spaces, honouring double quotes; an unclosed quote is an error.
func splitWords(s string) ([]word, error) {
	var out []word
	var cur strings.Builder
	inQuote, quoted, has := false, false, false
	flush := func() {
		if has {
			out = append(out, word{text: cur.String(), quoted: quoted})
		}
		cur.Reset()
		quoted, has = false, false
	}
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			has = true
			if cur.Len() == 0 {
				quoted = true
			}
		case !inQuote && (r == ' ' || r == '\t' || r == '\n'):
			flush()
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("filter: a double quote is not closed")
	}
	flush()
	return out, nil
}

// String is the filter in canonical form: every value quoted, so that ParseFilter(f.String())
// gives f back. The status line shows what the user typed instead.
func (f Filter) String() string {
	var parts []string
	add := func(k string, vs []string) {
		for _, v := range vs {
			parts = append(parts, k+`:"`+v+`"`)
		}
	}
	add(keyMethod, f.Methods)
	add(keyTool, f.Tools)
	add(keyRule, f.Rules)
	for _, l := range f.Levels {
		parts = append(parts, keyLevel+":"+strings.ToLower(strings.ReplaceAll(string(l), " ", "-")))
	}
	add(keyStatus, f.Statuses)
	add(keyVerdict, f.Verdicts)
	for _, t := range f.Text {
		parts = append(parts, `"`+t+`"`)
	}
	return strings.Join(parts, " ")
}

// Empty reports whether the filter keeps everything.
func (f Filter) Empty() bool {
	return len(f.Methods)+len(f.Tools)+len(f.Rules)+len(f.Levels)+len(f.Statuses)+len(f.Verdicts)+len(f.Text) == 0
}

// MatchRow reports whether an exchange row passes the filter. Rule and level tokens match the
// findings known for the exchange.
func (f Filter) MatchRow(r *Row) bool {
	if len(f.Methods) > 0 && !anyEqual(f.Methods, r.Method) {
		return false
	}
	if len(f.Tools) > 0 && !anyEqual(f.Tools, r.Name()) {
		return false
	}
	if len(f.Statuses) > 0 && !anyStatus(f.Statuses, r.Status) {
		return false
	}
	if len(f.Verdicts) > 0 && !anyEqual(f.Verdicts, r.Verdict()) {
		return false
	}
	if len(f.Rules) > 0 || len(f.Levels) > 0 {
		hit := false
		for _, fd := range r.Findings {
			if f.matchRuleLevel(fd) {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	for _, t := range f.Text {
		if !strings.Contains(r.haystack(), t) {
			return false
		}
	}
	return true
}

// MatchFinding reports whether a finding passes the filter. Status tokens do not apply to
// findings and are ignored; verdict:fail keeps every finding and any other verdict none.
func (f Filter) MatchFinding(fd findings.Finding) bool {
	method, name, _ := strings.Cut(fd.Key, ":")
	if len(f.Methods) > 0 && !anyEqual(f.Methods, method) {
		return false
	}
	if len(f.Tools) > 0 && !anyEqual(f.Tools, name) {
		return false
	}
	if len(f.Verdicts) > 0 && !anyEqual(f.Verdicts, VerdictFail) {
		return false
	}
	if !f.matchRuleLevel(fd) {
		return false
	}
	hay := strings.ToLower(fd.RuleID + " " + fd.Key + " " + fd.Target + " " + fd.Observed + " " + string(fd.Level))
	for _, t := range f.Text {
		if !strings.Contains(hay, t) {
			return false
		}
	}
	return true
}

func (f Filter) matchRuleLevel(fd findings.Finding) bool {
	if len(f.Levels) > 0 && !anyEqual(f.Levels, fd.Level) {
		return false
	}
	if len(f.Rules) == 0 {
		return true
	}
	for _, r := range f.Rules {
		if strings.Contains(strings.ToLower(fd.RuleID), strings.ToLower(r)) {
			return true
		}
	}
	return false
}

func anyEqual[T ~string](want []T, got T) bool {
	for _, w := range want {
		if strings.EqualFold(string(w), string(got)) {
			return true
		}
	}
	return false
}

func anyStatus(want []string, code int) bool {
	for _, w := range want {
		switch {
		case w == "err":
			if code == 0 {
				return true
			}
		case strings.HasSuffix(w, "xx"):
			if code/100 == int(w[0]-'0') {
				return true
			}
		default:
			if strconv.Itoa(code) == w {
				return true
			}
		}
	}
	return false
}
