package eval

import "sync"
import "strings"

// phraseList finds cue phrases in a statement by its words: a phrase matches where its words
// follow each other ("used to be", "couldn't find"); a CJK phrase matches as a substring of a
// Han or kana run. Built once per list, so a statement costs one map lookup per word and list.
type phraseList struct {
	first map[string][][]string
	cjk   []string
}

func newPhraseList(lists ...[]string) *phraseList {
	p := &phraseList{first: map[string][][]string{}}
	for _, list := range lists {
		for _, ph := range list {
			var ws []string
			for _, w := range scanWords(ph) {
				ws = append(ws, w.s)
			}
			switch {
			case len(ws) == 0:
			case isCJKString(ph):
				p.cjk = append(p.cjk, ph)
			default:
				p.first[ws[0]] = append(p.first[ws[0]], ws)
			}
		}
	}
	return p
}

// each calls fn with the byte span of every occurrence, in order of position.
func (p *phraseList) each(ws []word, fn func(start, end int)) {
	for i, w := range ws {
		if w.kind == 'c' {
			for _, c := range p.cjk {
				for from := 0; ; {
					k := strings.Index(w.s[from:], c)
					if k < 0 {
						break
					}
					fn(w.start+from+k, w.start+from+k+len(c))
					from += k + len(c)
				}
			}
			continue
		}
		for _, ph := range p.first[w.s] {
			if i+len(ph) > len(ws) {
				continue
			}
			ok := true
			for k := 1; k < len(ph); k++ {
				if ws[i+k].s != ph[k] {
					ok = false
					break
				}
			}
			if ok {
				fn(w.start, ws[i+len(ph)-1].end)
			}
		}
	}
}

// any reports whether a phrase occurs.
func (p *phraseList) any(ws []word) bool {
	found := false
	p.each(ws, func(int, int) { found = true })
	return found
}

// ends lists where the occurrences end.
func (p *phraseList) ends(ws []word) []int {
	var out []int
	p.each(ws, func(_, e int) { out = append(out, e) })
	return out
}

// starts lists where the occurrences start.
func (p *phraseList) starts(ws []word) []int {
	var out []int
	p.each(ws, func(s, _ int) { out = append(out, s) })
	return out
}

// The cue lists, compiled.
var (
	refutationPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(refutationCues, refutationCuesCJK)
	})
	historyPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(historyCues)
	})
	pastPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList([]string{"used to", "previously", "formerly", "originally", "früher", "auparavant", "anteriormente", "ранее"})
	})
	changePhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(changeVerbs, changeVerbsCJK)
	})
	oldPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(oldCues, oldCuesCJK)
	})
	newPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(newCues, newCuesCJK)
	})
	nowPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(nowCues, nowCuesCJK)
	})
	endPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(endCues)
	})
	abstainPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(abstentionCues, abstentionCuesCJK, suggestions)
	})
	pleasantPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(pleasantries, pleasantriesCJK)
	})
	sourcePhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(sourceWords)
	})
	metaVerbPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList([]string{"mention", "mentions", "say", "says", "cover", "covers", "state", "states"})
	})
	fromPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList([]string{"from"})
	})
	toPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList([]string{"to"})
	})
)
