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
func (p *phraseList) each(ws []word, fn func(start, end int)) { p.eachMasked(ws, nil, 0, fn) }

// eachMasked is each, skipping the words whose mask lacks bit: mask, when not nil, says for each
// word which lists have a phrase starting with it (stmtCues), so a statement's words are looked
// up once for all of analyze's lists instead of once per list.
func (p *phraseList) eachMasked(ws []word, mask []uint16, bit uint16, fn func(start, end int)) {
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
		if mask != nil && mask[i]&bit == 0 {
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

// The cue lists, compiled.
var (
	refutationPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(refutationCues, refutationCuesCJK)
	})
	verdictPhrases = sync.OnceValue(func() *phraseList {
		return newPhraseList(falsityVerdicts, falsityVerdictsCJK)
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

// The phrase lists analyze asks of every statement, by their bit in a stmtCues mask.
const (
	cueRefutation = iota
	cueHistory
	cuePast
	cueChange
	cueNow
	cueOld
	cueNew
	cueFrom
	cueTo
	cueEnd
	cueVerdict
	cueInstead
	numCues
)

// stmtCueIndex maps a word to the analyze lists that have a phrase starting with it.
type stmtCueIndex struct {
	lists [numCues]*phraseList
	first map[string]uint16
}

var analyzeCues = sync.OnceValue(func() *stmtCueIndex {
	cx := &stmtCueIndex{first: map[string]uint16{}}
	cx.lists = [numCues]*phraseList{
		cueRefutation: refutationPhrases(), cueHistory: historyPhrases(), cuePast: pastPhrases(),
		cueChange: changePhrases(), cueNow: nowPhrases(), cueOld: oldPhrases(), cueNew: newPhrases(),
		cueFrom: fromPhrases(), cueTo: toPhrases(), cueEnd: endPhrases(), cueVerdict: verdictPhrases(),
		// built here rather than in a list of its own: only analyze asks for it
		cueInstead: newPhraseList(insteadCues, insteadCuesCJK),
	}
	for k, p := range cx.lists {
		for w := range p.first {
			cx.first[w] |= 1 << k
		}
	}
	return cx
})

// stmtCues is one statement's words with, for each, the analyze lists that have a phrase
// starting with it (one map lookup a word), and whether any word is a CJK run (which each list
// searches by substring).
type stmtCues struct {
	ws   []word
	mask []uint16 // nil on the reference path: every list looks up every word
	any  uint16
	cjk  bool
}

// scanCues looks up ws's words, with buf (of capacity len(ws), to stay on the caller's stack
// for a short statement) for the masks.
func scanCues(ws []word, buf []uint16) stmtCues {
	c := stmtCues{ws: ws}
	if groundednessReference {
		c.any, c.cjk = 1<<numCues-1, true
		return c
	}
	first := analyzeCues().first
	if cap(buf) >= len(ws) {
		c.mask = buf[:len(ws)]
	} else {
		c.mask = make([]uint16, len(ws))
	}
	for i, w := range ws {
		switch w.kind {
		case 'c':
			c.cjk = true
		case 'w', 'n', 's':
			c.mask[i] = first[w.s]
			c.any |= c.mask[i]
		}
	}
	return c
}

// each calls fn with the span of every occurrence of list k's phrases.
func (c *stmtCues) each(k int, fn func(start, end int)) {
	if c.any&(1<<k) == 0 && !c.cjk {
		return // no word starts one of its phrases, and no CJK run may hold one
	}
	analyzeCues().lists[k].eachMasked(c.ws, c.mask, 1<<k, fn)
}

func (c *stmtCues) has(k int) bool {
	found := false
	c.each(k, func(int, int) { found = true })
	return found
}

func (c *stmtCues) ends(k int) []int {
	var out []int
	c.each(k, func(_, e int) { out = append(out, e) })
	return out
}

func (c *stmtCues) starts(k int) []int {
	var out []int
	c.each(k, func(s, _ int) { out = append(out, s) })
	return out
}
