package eval

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ClaimState is the outcome of checking one claim against the context.
type ClaimState string

// The states. Only supported counts as grounded; weak is the ambiguous middle.
const (
	ClaimSupported    ClaimState = "supported"    // a context statement says the same, same polarity, same figures
	ClaimWeak         ClaimState = "weak"         // a context statement shares much of it, but not all
	ClaimUnsupported  ClaimState = "unsupported"  // no context statement says it
	ClaimContradicted ClaimState = "contradicted" // the aligned statement says the opposite or another figure
	ClaimSuperseded   ClaimState = "superseded"   // the aligned value is one the context marks as replaced
	ClaimOtherEntity  ClaimState = "other_entity" // the context says it of another entity
	ClaimOtherItem    ClaimState = "other_item"   // supported only by an item the claim does not cite
)

// claimWeight: how strongly one claim in each state indicates an ungrounded response.
// HEURISTIC: hand-set; a contradiction is the strongest sign, a partial match the weakest.
func claimWeight(s ClaimState) float64 {
	switch s {
	case ClaimContradicted:
		return 0.9
	case ClaimSuperseded:
		return 0.85
	case ClaimOtherEntity:
		return 0.85
	case ClaimUnsupported:
		return 0.8
	case ClaimOtherItem:
		return 0.75
	case ClaimWeak:
		return 0.3
	case ClaimSupported:
		return 0
	}
	return 0
}

// Alignment thresholds. HEURISTIC: known coverage is the share of the claim's words and figures
// that the context uses anywhere and that the aligned statement holds; total coverage counts
// words the context never uses too (a paraphrase has some, an invention many).
const (
	supportKnown = 0.999
	supportTotal = 0.6
	weakKnown    = 0.75
	weakTotal    = 0.45
	reverseKnown = 0.5
	reverseTotal = 0.6
)

// ClaimStatus is the result of checking one claim.
type ClaimStatus struct {
	Start     int        `json:"start"` // byte span of the claim in the response
	End       int        `json:"end"`
	Text      string     `json:"text"`
	State     ClaimState `json:"state"`
	ContextID string     `json:"contextId,omitempty"` // the item of the aligned statement
	// Aligned is the context statement the claim was compared with, when there is one.
	Aligned string `json:"aligned,omitempty"`
	Reason  string `json:"reason"`
	// Score is the model's probability that the claim is not supported (check_groundedness/7);
	// the response scores its worst claim's
	Score float64 `json:"score"`
	// features describe how the claim meets the context, for the model (check_groundedness/7)
	features gndFeatures
	// viaJoin: the claim was aligned with statements joined together (joinedAlignment), not with
	// one statement
	viaJoin bool
}

// ctxStatement is one context statement prepared for alignment.
type ctxStatement struct {
	item   int
	st     statement
	keys   stmtKeys
	pieces []int // for a clause: its finer pieces (indexes into the index's statements)
	level  int   // 0 a clause, 1 a piece of a clause, 2 a clause joined to the one before (its pronoun's referent)
	// offset: for a piece, where its text starts in its clause's (inheritMarks)
	offset int
	// dup: an earlier statement of the same item and level has the same text and no figures, so
	// every claim aligns with it exactly as with this one (repeated boilerplate is aligned once)
	dup bool
	// grams: the statement's character n-grams (charGramsRaw: unsorted, repeats kept; sorted
	// charGrams on the reference path), computed when a claim first needs them, and their
	// signature (gramSignature)
	grams   []uint32
	gramSig gramSig
	// own and ownSalient count its own words and the salient ones among them (ownKeys), counted
	// when a claim is first aligned with it, after the index is complete
	own, ownSalient int
	counted         bool
}

// keyUse says how a statement uses a word: in its own text or through its referent, and whether
// every occurrence is marked as superseded.
type keyUse struct {
	own, inherited, oldOnly, salient bool
	// denied: a word the statement before a correction denied ("nicht mehr dienstags, sondern
	// donnerstags" denies Tuesdays to the second statement's subject)
	denied bool
}

// keyEntry is one word of a statement and how the statement uses it.
type keyEntry struct {
	key string
	use keyUse
}

// stmtKeys are the words a statement uses, each once. A statement has a few words, and every
// claim asks every statement about each of its own: a short list compared in order costs less to
// build and to ask than a map (and the lists of a whole index share one arena), while a long
// statement (keyIndexMin words or more) gets a map beside its list, so that asking stays cheap.
type stmtKeys struct {
	list  []keyEntry
	index map[string]int32 // position in list of each key, for a long list only
}

// keyIndexMin is the number of words from which a statement's keys are indexed by a map.
const keyIndexMin = 24

func (k *stmtKeys) find(key string) int {
	if k.index != nil {
		if i, ok := k.index[key]; ok {
			return int(i)
		}
		return -1
	}
	for i := range k.list {
		if k.list[i].key == key {
			return i
		}
	}
	return -1
}

// get is how the statement uses key, and whether it does.
func (k *stmtKeys) get(key string) (keyUse, bool) {
	if i := k.find(key); i >= 0 {
		return k.list[i].use, true
	}
	return keyUse{}, false
}

// has reports whether the statement uses key.
func (k *stmtKeys) has(key string) bool { return k.find(key) >= 0 }

// put records key's use, adding the key when it is new (only while the statement is built).
func (k *stmtKeys) put(key string, u keyUse) {
	if i := k.find(key); i >= 0 {
		k.list[i].use = u
		return
	}
	k.list = append(k.list, keyEntry{key, u})
	switch {
	case k.index != nil:
		k.index[key] = int32(len(k.list) - 1)
	case len(k.list) >= keyIndexMin:
		k.index = make(map[string]int32, 2*len(k.list))
		for i, e := range k.list {
			k.index[e.key] = int32(i)
		}
	}
}

// contextIndex is the context prepared once per check.
type contextIndex struct {
	items []ContextItem
	stmts []ctxStatement
	// words says of every word of the context (wordKnown) whether it is written as a name
	// somewhere (wordSalient), in lower case somewhere (wordLower) and capitalised at the start
	// of a statement (wordInitial): one map, so adding a statement's word costs one lookup, not four
	words map[string]uint8
	// topics are the references an item's first statement names ("RFC 9110 defines HTTP
	// semantics"): every statement of the item is about them, so a claim may name them too.
	topicFigs map[int][]figure
	topicKeys map[int]map[string]bool
	// itemGram: each item's character n-grams (itemGrams), computed when a claim first needs them
	itemGram [][]uint32
	// gramArena holds every statement's grams (grams), one after another
	gramArena []uint32
	// keyArena holds every statement's keys (stmtKeys.list), one after another
	keyArena []keyEntry
	// what indexContext builds the index with, kept for the next index (indexPool): the memo of
	// statement texts, the slab its entries live in, the pieces of each clause text, the clauses
	// of each item and the duplicate check's set
	memo     map[string]*stmtMemo
	memoSlab []stmtMemo
	pieceOf  map[string][][2]int
	clauses  [][][2]int
	seenText map[dupKey]bool
}

// dupKey is what marks a statement as a duplicate: an earlier one of the same item and level
// with the same text.
type dupKey struct {
	item, level int
	text        string
}

// indexPool keeps contextIndexes for reuse: a check on an 8 KiB context made a few hundred KB of
// tables and slices (the statements, the word set, the gram arena, the memo) only to drop them
// when it returned, and the collector's work for them showed in the tail latency. An index is
// returned to the pool by release once its check is done; nothing of it outlives the check (a
// claim's status keeps strings only).
var indexPool = sync.Pool{New: func() any { return new(contextIndex) }}

// Bounds on what a pooled index keeps, so one huge context does not pin its tables for good.
const (
	maxPooledStmts     = 2 * maxContextStatements
	maxPooledWords     = 1 << 15
	maxPooledGramArena = 1 << 18
	maxPooledKeyArena  = 1 << 15
)

// release returns ix to indexPool, cleared: its tables keep their capacity, not their contents
// (which would pin the context's strings).
func (ix *contextIndex) release() {
	if groundednessReference {
		return
	}
	clear(ix.stmts)
	clear(ix.keyArena[:cap(ix.keyArena)]) // a list left outside the arena may have begun in it
	clear(ix.memoSlab)
	clear(ix.clauses)
	clear(ix.words)
	clear(ix.topicFigs)
	clear(ix.topicKeys)
	clear(ix.memo)
	clear(ix.pieceOf)
	clear(ix.seenText)
	ix.items, ix.itemGram = nil, nil
	ix.stmts, ix.memoSlab, ix.clauses, ix.gramArena = ix.stmts[:0], ix.memoSlab[:0], ix.clauses[:0], ix.gramArena[:0]
	ix.keyArena = ix.keyArena[:0]
	if cap(ix.keyArena) > maxPooledKeyArena {
		ix.keyArena = nil
	}
	if cap(ix.stmts) > maxPooledStmts {
		ix.stmts = nil
	}
	if cap(ix.memoSlab) > maxPooledStmts {
		ix.memoSlab = nil
	}
	if cap(ix.clauses) > maxPooledStmts {
		ix.clauses = nil
	}
	if cap(ix.gramArena) > maxPooledGramArena {
		ix.gramArena = nil
	}
	indexPool.Put(ix)
}

// maxContextStatements bounds the work on large contexts: statements beyond it are not aligned.
const maxContextStatements = 4096

func indexContext(items []ContextItem) *contextIndex {
	// the word sets sized once for about one distinct word in ten bytes of context, instead of
	// grown (and rehashed) word by word
	size := 0
	for _, it := range items {
		size += len(it.Content)
	}
	words := min(size, 1<<20) / 10
	var ix *contextIndex
	if groundednessReference {
		ix = new(contextIndex)
	} else {
		ix = indexPool.Get().(*contextIndex)
	}
	ix.items = items
	if ix.words == nil || len(ix.words) > maxPooledWords {
		ix.words = make(map[string]uint8, words)
	}
	if ix.topicFigs == nil {
		ix.topicFigs, ix.topicKeys = map[int][]figure{}, map[int]map[string]bool{}
	}
	if ix.memo == nil {
		ix.memo, ix.pieceOf = map[string]*stmtMemo{}, map[string][][2]int{}
	}
	// repeated boilerplate is analysed, split and keyed once: a repeat's analysis is the first's
	// (with its own copy of the figures, which retirePrevious marks), and its words are the
	// first's, already added to the index's word sets
	seen := ix.memo
	repeats := 0
	analyze := func(s string) (statement, *stmtMemo) {
		if m, ok := seen[s]; ok {
			repeats++
			st := m.st
			st.figs = slices.Clone(st.figs)
			if groundednessReference {
				return st, &stmtMemo{st: st} // split and keyed again
			}
			return st, m
		}
		var m *stmtMemo
		if len(ix.memoSlab) < cap(ix.memoSlab) { // the slab is made large enough below, never grown: its entries stay put
			ix.memoSlab = append(ix.memoSlab, stmtMemo{st: analyze(s)})
			m = &ix.memoSlab[len(ix.memoSlab)-1]
		} else {
			m = &stmtMemo{st: analyze(s)}
		}
		seen[s] = m
		return m.st, m
	}
	// the clauses of every item and the pieces of every clause text, first: they say how many
	// statements the index holds, so its slice is made once rather than grown by copying
	if cap(ix.clauses) < len(items) {
		ix.clauses = make([][][2]int, len(items))
	}
	clauses := ix.clauses[:len(items)]
	pieces := ix.pieceOf
	want := 0
	for i, it := range items {
		clauses[i] = splitStatements(it.Content, splitClauses)
		for _, sp := range clauses[i] {
			if want >= maxContextStatements {
				break
			}
			c := it.Content[sp[0]:sp[1]]
			ps, ok := pieces[c]
			if !ok {
				ps = splitStatements(c, splitFine)
				pieces[c] = ps
			}
			want++
			if len(ps) > 1 {
				want += len(ps)
			}
		}
	}
	if cap(ix.stmts) < want+1 {
		ix.stmts = make([]ctxStatement, 0, want+1)
	}
	if cap(ix.memoSlab) < want {
		ix.memoSlab = make([]stmtMemo, 0, want)
	}
	// about one word in six bytes of the statements' text (a clause's pieces say its words again)
	if need := min(size, 1<<20)/3 + 16; cap(ix.keyArena) < need {
		ix.keyArena = make([]keyEntry, 0, need)
	}
	for i, it := range items {
		text := it.Content
		prev := -1
		for n, sp := range clauses[i] {
			if len(ix.stmts) >= maxContextStatements {
				return ix
			}
			st, m := analyze(text[sp[0]:sp[1]])
			if n == 0 {
				ix.noteTopic(i, st)
			}
			if prev >= 0 && (st.change || st.current) && len(st.figs) > 0 {
				ix.retire(prev, st, retirePrevious)
			} else if prev >= 0 && len(st.figs) > 0 && !st.history && boundedPast(ix.stmts[prev].st) {
				// "The monthly fee was £7 until June. From July it is £9."
				ix.retire(prev, st, retireBounded)
			}
			ci := ix.addMemo(i, st, 0, m)
			ps := pieces[text[sp[0]:sp[1]]]
			if groundednessReference {
				ps = splitStatements(text[sp[0]:sp[1]], splitFine)
			}
			if len(ps) > 1 {
				ix.stmts[ci].pieces = make([]int, 0, len(ps))
				for _, p := range ps {
					pst, pm := analyze(text[sp[0]+p[0] : sp[0]+p[1]])
					pi := ix.addMemo(i, pst, 1, pm)
					ix.stmts[pi].offset = p[0]
					ix.stmts[ci].pieces = append(ix.stmts[ci].pieces, pi)
				}
				ix.inheritMarks(ci)
				ix.spreadRefutation(ix.stmts[ci].pieces)
				if !st.verdict {
					ix.applyVerdict(ix.stmts[ci].pieces)
				}
				// an exception clause's rule is outside it (below), unless the exception leads
				// into it ("除周一外，博物馆每天开放", or an item's first clause)
				if !isException(st.text) || exceptionLeads(st.text) || prev < 0 {
					ix.mergeExceptions(ix.stmts[ci].pieces)
				}
			}
			switch {
			case prev >= 0 && isException(st.text) && !exceptionLeads(st.text) && !isException(ix.stmts[prev].st.text):
				ix.mergeClauseException(ci, prev) // "The shop is open every day", "except Sunday."
			case n == 1 && isException(ix.stmts[prev].st.text) && len(ix.stmts[prev].pieces) < 2 && !isException(st.text):
				ix.mergeClauseException(prev, ci) // "Außer montags", "ist das Museum täglich geöffnet."
			}
			if prev >= 0 && !st.verdict && ix.correctsReport(prev, ci) {
				// the report a correction retracts is denied, pieces and joined statements too
				for j := prev; j < ci; j++ {
					ix.stmts[j].st.neg = true
				}
			}
			if prev >= 0 && (st.verdict || ix.opensWithVerdict(ix.stmts[ci].pieces)) {
				// "… said the library would close in June. That was wrong.": what the statement
				// before reports (with its pieces and what was joined to it) is denied
				for j := prev; j < ci; j++ {
					ix.stmts[j].st.neg = !ix.stmts[j].st.neg
				}
			}
			if prev >= 0 && (st.anaphoric || continuesChange(ix.stmts[prev].st, st) || corrects(ix.stmts[prev].st, st)) {
				merged := ix.stmts[ci]
				merged.level, merged.pieces, merged.keys = 2, nil, ix.copyKeys(merged.keys)
				// a correction inherits what the statement before it said, except the words its
				// value replaces: the last words after the negation cue, as many as the correction
				// has ("does not deliver parcels on Saturdays, but on Sundays" denies Saturdays)
				cut := -1
				if !st.anaphoric && corrects(ix.stmts[prev].st, st) {
					cut = negationAt(ix.stmts[prev].st.text)
					toks := ix.stmts[prev].st.tokens
					after := 0
					for _, tk := range toks {
						if tk.pos >= cut {
							after++
						}
					}
					if n := min(max(len(st.tokens), 1), after); n > 0 {
						cut = toks[len(toks)-n].pos
					} else {
						cut = len(ix.stmts[prev].st.text)
					}
				}
				for _, tk := range ix.stmts[prev].st.tokens {
					if cut >= 0 && tk.pos >= cut {
						if !merged.keys.has(tk.key) {
							merged.keys.put(tk.key, keyUse{inherited: true, denied: true})
						}
						continue
					}
					if !merged.keys.has(tk.key) {
						pu, _ := ix.stmts[prev].keys.get(tk.key)
						merged.keys.put(tk.key, keyUse{inherited: true, oldOnly: pu.oldOnly})
					}
				}
				if cut < 0 {
					for _, e := range ix.stmts[prev].keys.list {
						if !merged.keys.has(e.key) {
							merged.keys.put(e.key, keyUse{inherited: true, oldOnly: e.use.oldOnly})
						}
					}
				}
				ix.stmts = append(ix.stmts, merged)
			}
			prev = ci
		}
	}
	var seenText map[dupKey]bool
	if repeats > 0 {
		if ix.seenText == nil {
			ix.seenText = map[dupKey]bool{}
		}
		seenText = ix.seenText
	}
	for i := 0; repeats > 0 && i < len(ix.stmts); i++ {
		cs := &ix.stmts[i]
		if cs.level == 2 || len(cs.st.figs) > 0 {
			continue
		}
		k := dupKey{cs.item, cs.level, cs.st.text}
		cs.dup = seenText[k]
		seenText[k] = true
	}
	for k, f := range ix.words {
		if f&wordInitial != 0 && f&wordLower == 0 { // capitalised wherever it occurs: a name, not a sentence start
			ix.words[k] = f | wordSalient
		}
	}
	return ix
}

// The flags of contextIndex.words.
const (
	wordKnown = 1 << iota
	wordSalient
	wordLower
	wordInitial
)

func (ix *contextIndex) isKnown(k string) bool       { return ix.words[k]&wordKnown != 0 }
func (ix *contextIndex) isSalientWord(k string) bool { return ix.words[k]&wordSalient != 0 }
func (ix *contextIndex) isLowerWord(k string) bool   { return ix.words[k]&wordLower != 0 }

// isSalient reports whether a claim word names something: written as a name in the claim or in
// the context, or capitalised at the start of the claim and never written in lower case.
func (ix *contextIndex) isSalient(tk token) bool {
	return tk.salient || ix.isSalientWord(tk.key) || tk.initialCap && !ix.isLowerWord(tk.key) && !tk.cjk
}

// noteTopic records the references an item's first statement names.
func (ix *contextIndex) noteTopic(item int, st statement) {
	for _, f := range st.figs {
		if f.ident == "" || !strings.HasPrefix(f.cat, "ref:") {
			continue
		}
		ix.topicFigs[item] = append(ix.topicFigs[item], f)
		if ix.topicKeys[item] == nil {
			ix.topicKeys[item] = map[string]bool{}
		}
		ix.topicKeys[item][stem(strings.TrimPrefix(f.cat, "ref:"))] = true
	}
}

// spreadRefutation extends a refutation cue over the pieces of its clause that report the
// refuted proposition: backwards and forwards until a piece that opens with "and" (a new
// predicate: "denied the reports and said it will hire 40 people").
func (ix *contextIndex) spreadRefutation(pieces []int) {
	for k, p := range pieces {
		if !ix.stmts[p].st.refutes {
			continue
		}
		// a refuting piece with no object of its own ("…, and found to be false") refutes what
		// the pieces before it report, across its own "and" (check_groundedness/6)
		bare := len(ix.stmts[p].st.tokens) <= 1 && len(ix.stmts[p].st.figs) == 0
		// the refuting piece is negated by its cue; the pieces it reaches report the refuted
		// proposition, whose own polarity it reverses ("the rumour that the pool is closed, …,
		// was debunked": the pool is open)
		for j := k; j >= 0; j-- {
			if j != k && !ix.stmts[pieces[j]].st.refutes {
				ix.stmts[pieces[j]].st.neg = !ix.stmts[pieces[j]].st.neg
			}
			if ix.stmts[pieces[j]].st.conjStart && (j != k || !bare) {
				break
			}
		}
		for j := k + 1; j < len(pieces) && !ix.stmts[pieces[j]].st.conjStart; j++ {
			if !ix.stmts[pieces[j]].st.refutes {
				ix.stmts[pieces[j]].st.neg = !ix.stmts[pieces[j]].st.neg
			}
		}
	}
}

// applyVerdict reverses the pieces of a clause before a piece that pronounces them false
// ("…と報じましたが、誤りでした", "it was reported that the line would close, which is false"):
// the verdict is on what the clause reported before it (check_groundedness/9).
func (ix *contextIndex) applyVerdict(pieces []int) {
	for k := 1; k < len(pieces); k++ {
		if !ix.stmts[pieces[k]].st.verdict || ix.stmts[pieces[k]].st.refutes {
			continue // a refuting piece has reached what it refutes already (spreadRefutation)
		}
		for j := range k {
			ix.stmts[pieces[j]].st.neg = !ix.stmts[pieces[j]].st.neg
		}
		return
	}
}

// correctsReport reports whether statement ci retracts the report before it, prev, in a
// correction notice ("Correction: an earlier version of this article said the mayor would attend
// the summit. She will not attend."): prev carries a correction frame and affirms, ci negates, and
// ci says something prev said (its predicate, "attend").
func (ix *contextIndex) correctsReport(prev, ci int) bool {
	p, c := &ix.stmts[prev], &ix.stmts[ci]
	if p.st.neg || !c.st.neg || !correctionFramed(p.st.text) {
		return false
	}
	for _, q := range p.pieces {
		if ix.stmts[q].st.verdict {
			return false // "…とお伝えしましたが、誤りでした": judged within its own clause already
		}
	}
	for _, tk := range c.st.tokens {
		if p.keys.has(tk.key) {
			return true
		}
	}
	return false
}

// correctionFrames open a correction notice's report of what was wrongly said.
var correctionFrames = []string{"correction:", "earlier version", "previous version", "incorrectly stated",
	"incorrectly reported", "wrongly stated", "wrongly reported", "erroneously", "erratum", "fe de erratas",
	"se afirmó", "se informó erróneamente", "rectificatif", "version précédente", "berichtigung",
	"früheren fassung", "исправление", "更正", "勘误", "訂正"}

// correctionFramed reports whether a statement reports what a correction notice retracts.
func correctionFramed(text string) bool {
	lower := strings.ToLower(text)
	for _, f := range correctionFrames {
		if strings.Contains(lower, f) {
			return true
		}
	}
	return false
}

// opensWithVerdict reports whether a clause's pieces open with a bare verdict, after nothing
// but its frame ("经核实，此消息不实，地铁票价维持不变"; "That was wrong; no date has been set"):
// the verdict is then on the statement before the clause, whatever the clause goes on to say.
func (ix *contextIndex) opensWithVerdict(pieces []int) bool {
	for _, p := range pieces {
		st := &ix.stmts[p].st
		if st.verdict {
			return true
		}
		if len(st.figs) > 0 || !onlyVerdictWords(st.tokens) {
			return false
		}
	}
	return false
}

// mergeExceptions gives each exception piece of a clause ("except Sunday", "sauf pour les
// billets Prem's", "кроме воскресенья", "除周一外") the rule it qualifies: the piece before it, or
// after it when the exception comes first (mergeException).
func (ix *contextIndex) mergeExceptions(pieces []int) {
	for k, p := range pieces {
		if !isException(ix.stmts[p].st.text) {
			continue
		}
		r := k - 1
		if k == 0 {
			r = 1
		}
		if r < len(pieces) && !isException(ix.stmts[pieces[r]].st.text) {
			ix.mergeException(p, pieces[r])
		}
	}
}

// mergeClauseException merges the rule clause into exception clause ex and into the piece that
// opens it ("salvo el IB3170 a Oporto", of "salvo el IB3170 a Oporto, que ha sido cancelado").
func (ix *contextIndex) mergeClauseException(ex, rule int) {
	ix.mergeException(ex, rule)
	if ps := ix.stmts[ex].pieces; len(ps) > 0 {
		ix.mergeException(ps[0], rule)
	}
}

// mergeException gives exception statement ex the words of the rule it qualifies and the rule's
// opposite polarity: "open every day except Sunday" denies that it is open on Sunday, which the
// exception's own words do not say (check_groundedness/9).
func (ix *contextIndex) mergeException(ex, rule int) {
	e, r := &ix.stmts[ex], &ix.stmts[rule]
	e.keys = ix.copyKeys(e.keys)
	for _, en := range r.keys.list {
		if !e.keys.has(en.key) {
			e.keys.put(en.key, keyUse{inherited: true, oldOnly: en.use.oldOnly})
		}
	}
	e.st.neg = !r.st.neg
}

// exceptionOpeners open a piece that exempts something from the rule beside it.
var exceptionOpeners = []string{"except", "excepting", "sauf", "excepté", "exceptée", "hormis", "à l'exception",
	"excepto", "salvo", "a excepción", "con excepción", "exceto", "eccetto", "tranne", "außer", "ausser",
	"ausgenommen", "mit ausnahme", "bis auf", "кроме", "за исключением"}

// exceptionLeads reports whether an exception is one that leads into its rule within its own
// sentence ("除周一外，博物馆每天开放"), rather than following the rule it qualifies.
func exceptionLeads(text string) bool {
	return strings.HasPrefix(strings.TrimLeft(text, " \t,;:()–—-"), "除")
}

// isException reports whether a piece opens with an exception ("except Sunday", "除周一外").
func isException(text string) bool {
	t := strings.TrimLeft(strings.ToLower(text), " \t,;:()–—-")
	for _, o := range exceptionOpeners {
		if rest, ok := strings.CutPrefix(t, o); ok {
			if o == "bis auf" && strings.HasPrefix(rest, " weiteres") {
				return false // "bis auf Weiteres": until further notice
			}
			r, _ := utf8.DecodeRuneInString(rest)
			if rest == "" || !unicode.IsLetter(r) {
				return true
			}
		}
	}
	if rest, ok := strings.CutPrefix(t, "除"); ok {
		return strings.HasPrefix(rest, "了") || strings.Contains(rest, "外")
	}
	return false
}

// polarity is the polarity of statement s for a claim: for a clause made of pieces, the
// polarity of the piece that holds most of the claim ("denied the reports ..., and said it will
// hire 40 people" affirms the hiring). When pieces of both polarities hold as much, the negated
// one decides: "open from Tuesday to Sunday and closed on Monday" holds "open" and "Monday" in
// different pieces, and a claim that it is open on Monday is what the second piece denies.
func (ix *contextIndex) polarity(c *claim, s int) bool {
	cs := &ix.stmts[s]
	if len(cs.pieces) < 2 {
		return cs.st.neg
	}
	best, bestN := -1, -1
	for _, p := range cs.pieces {
		n := 0
		for _, tk := range c.st.tokens {
			if ix.stmts[p].keys.has(tk.key) {
				n++
			}
		}
		for _, f := range c.st.figs {
			if slices.ContainsFunc(ix.stmts[p].st.figs, func(g figure) bool { return sameValue(f, g) }) {
				n++
			}
		}
		if n > bestN || n == bestN && n > 0 && ix.stmts[p].st.neg && !ix.stmts[best].st.neg {
			best, bestN = p, n
		}
	}
	return ix.stmts[best].st.neg
}

// inheritMarks gives the pieces of clause ci that follow a piece with no content of its own (a
// fronted cue: "Previously, staff could carry over up to ten days", "Früher, …") the superseded
// marks of the clause's figures at the same places: alone, the piece after the comma holds the
// old value and says nothing of its being old (check_groundedness/17). Only then: the clause's
// other marks come from rules that read the whole clause ("founded in 1902 … and moved … in
// 1955" retires 1902 in the clause), which its pieces, each read alone, are there to escape. A
// piece's figures are copied before they are marked, as the analysis of a text is shared with
// its repeats.
func (ix *contextIndex) inheritMarks(ci int) {
	cs := &ix.stmts[ci]
	fronted := false
	for _, pi := range cs.pieces {
		ps := &ix.stmts[pi]
		if len(ps.st.figs) == 0 && (len(ps.st.tokens) == 0 || ps.st.history && len(ps.st.tokens) == 1) {
			fronted = true // nothing but a cue ("Previously", "Formerly", "Auparavant")
			continue
		}
		if !fronted {
			continue
		}
		cloned := false
		for k, g := range ps.st.figs {
			for _, f := range cs.st.figs {
				if f.start != ps.offset+g.start || f.end != ps.offset+g.end || !f.old || g.old || g.new {
					continue
				}
				if !cloned {
					ps.st.figs, cloned = slices.Clone(ps.st.figs), true
				}
				ps.st.figs[k].old = true
			}
		}
	}
}

// boundedPast reports whether a statement tells a value in the past up to a bound: a past
// ("was", "were", "previously") and "until" ("The monthly fee was £7 until June", "bis Juni",
// "jusqu'en juin", "hasta junio", "até junho", "fino a giugno"). The statement after it, with a
// value of the same kind, gives what came after the bound (check_groundedness/17).
func boundedPast(st statement) bool {
	if !st.history || len(st.figs) == 0 {
		return false
	}
	for _, w := range scanWords(lowerSameLength(st.text)) {
		switch w.s {
		case "until", "till", "bis", "jusqu", "jusqu'à", "jusqu'en", "jusqu'au", "hasta", "até", "fino":
			return true
		}
	}
	return false
}

// retireBounded marks as superseded the figures of a bounded past (boundedPast) that a figure of
// the statement after it replaces: of the same kind and another value. The bound itself (a
// date, a year, a time of day) is when the value changed, not a value, and stays as it is.
func retireBounded(prev *statement, next statement) {
	for i, f := range prev.figs {
		switch f.cat {
		case "date", "year", "clock":
			continue
		}
		for _, g := range next.figs {
			if !g.old && comparableFigures(f, g) && !sameValue(f, g) && !f.new {
				prev.figs[i].old = true
			}
		}
	}
}

// retire applies a retiring rule (retirePrevious, retireBounded) to clause prev and to its
// pieces: a claim is aligned with the finest statement that holds it, and a piece of the retired
// clause ("The fee was €30", of "The fee was €30, payable monthly. It has been raised to €40.")
// kept the old value current (check_groundedness/17). A piece's figures are copied first, as
// the analysis of a text is shared with its repeats.
func (ix *contextIndex) retire(prev int, change statement, rule func(*statement, statement)) {
	rule(&ix.stmts[prev].st, change)
	for _, pi := range ix.stmts[prev].pieces {
		if ps := &ix.stmts[pi]; len(ps.st.figs) > 0 {
			ps.st.figs = slices.Clone(ps.st.figs)
			rule(&ps.st, change)
		}
	}
}

// retirePrevious marks as superseded the figures of the statement before a change ("the 2023
// guideline recommended 8 hours; the 2025 revision reduced this to 6 hours"). Only the change's
// current figures retire anything: a change that retires its own ("The earlier advice of 2
// tablets every 4 hours has been replaced") leaves the statement before it current
// (check_groundedness/12).
func retirePrevious(prev *statement, change statement) {
	for i := range prev.figs {
		for _, g := range change.figs {
			if !g.old && comparableFigures(prev.figs[i], g) && !sameValue(prev.figs[i], g) && !prev.figs[i].new {
				prev.figs[i].old = true
			}
		}
	}
}

// continuesChange reports whether st gives the current value of what the statement before it
// retired ("The helpline number 0800 111 222 is no longer in use. Please call 0800 333 444
// instead."): st then speaks of the earlier statement's subject, as an anaphor does.
func continuesChange(prev, st statement) bool {
	for _, g := range st.figs {
		if g.old {
			continue
		}
		for _, f := range prev.figs {
			if f.old && comparableFigures(f, g) && !sameValue(f, g) {
				return true
			}
		}
	}
	return false
}

// corrects reports whether st corrects the negated statement before it ("Die Sprechstunde ist
// nicht mehr dienstags, sondern donnerstags", "not on Tuesdays but on Thursdays", "no en efectivo
// sino con tarjeta"): st then speaks of the earlier statement's subject, as an anaphor does, with
// its own polarity (check_groundedness/6).
func corrects(prev, st statement) bool {
	if !prev.neg || st.neg {
		return false
	}
	switch leadingWord(st.text) {
	case "sondern", "but", "sino", "mais", "а", "ma", "maar", "ale", "lecz", "mas", "instead", "rather":
		return true
	}
	return strings.HasPrefix(strings.TrimSpace(st.text), "而是") || strings.HasPrefix(strings.TrimSpace(st.text), "而")
}

// figureBetween reports whether the statement has a figure the claim does not use between its
// tokens lo and hi (exclusive; -1 and len(toks) are its ends): words beside a figure state a fact
// of their own ("within 14 days"), which other words ("by bank card") do not paraphrase.
func figureBetween(st statement, c *claim, toks []token, lo, hi int) bool {
	from, to := 0, len(st.text)+1
	if lo >= 0 && lo < len(toks) {
		from = toks[lo].pos
	}
	if hi >= 0 && hi < len(toks) {
		to = toks[hi].pos
	}
	for _, g := range st.figs {
		if g.start < from || g.start >= to {
			continue
		}
		if !slices.ContainsFunc(c.st.figs, func(f figure) bool { return sameValue(f, g) }) {
			return true
		}
	}
	return false
}

// negatesShared reports whether a negated claim's negation reaches a word it shares with the
// aligned statement (check_groundedness/6): the words after its cue, or before it when none
// follow ("… costs nothing"). "The lentil soup contains no animal products" negates words the
// statement "the lentil soup is vegan" does not hold, so its "no" is part of a paraphrase, not a
// reversal; "Pets are not allowed" against "pets are allowed" reverses the shared claim. A
// negation found inside a word (Han, kana, Hangul, Turkish) reaches the whole claim.
func (ix *contextIndex) negatesShared(c *claim, a alignment) bool {
	cs := &ix.stmts[a.stmt]
	cut := negationAt(c.st.text)
	if cut == 0 {
		return true
	}
	// claim tokens are positioned in the NFKC-normalised, lower-cased claim, as negationAt's
	// offsets are for ordinary text
	after, shared := 0, false
	for _, tk := range c.st.tokens {
		if tk.pos < cut {
			continue
		}
		after++
		if cs.keys.has(tk.key) {
			shared = true
		}
	}
	if after > 0 {
		return shared
	}
	return true
}

// negationAt is the byte offset of the first negation cue among the words of s (lower-cased),
// or 0 when the statement is negated without a separate cue word.
func negationAt(s string) int {
	t := lowerSameLength(foldDigits(s))
	for _, w := range scanWords(t) {
		if w.kind != 'w' {
			continue
		}
		parts, n := elisions(w.s)
		for _, part := range parts[:n] {
			if part == "no" && numeroSign(t, w.end) {
				continue // the number sign, as hasNegation reads it: "Room No. 5 has no window"
			}
			if negationSet()[part] || strings.HasSuffix(part, "n't") {
				return w.start
			}
		}
	}
	return 0
}

// copyKeys copies k, for a joined statement to add its referent's words to: into a list of its
// own (a fresh one, not the arena, as the words added grow it) and a map of its own.
func (ix *contextIndex) copyKeys(k stmtKeys) stmtKeys {
	out := stmtKeys{list: slices.Clone(k.list)}
	if k.index != nil {
		out.index = make(map[string]int32, len(k.index))
		for key, i := range k.index {
			out.index[key] = i
		}
	}
	return out
}

// stmtMemo is what indexContext keeps of a statement text it has met: the analysis and the
// words add made of it.
type stmtMemo struct {
	st    statement
	keys  stmtKeys
	keyed bool // keys are made
}

// addMemo adds st, whose text m is the memo of: the first time through add, later with the keys
// the first made, which no statement changes (a joined statement copies them first).
func (ix *contextIndex) addMemo(item int, st statement, level int, m *stmtMemo) int {
	if m.keyed {
		ix.stmts = append(ix.stmts, ctxStatement{item: item, st: st, keys: m.keys, level: level})
		return len(ix.stmts) - 1
	}
	n := ix.add(item, st, level)
	m.keys, m.keyed = ix.stmts[n].keys, true
	return n
}

// add appends st to the index with the words it uses, and adds them to the index's word sets.
func (ix *contextIndex) add(item int, st statement, level int) int {
	// the list is written at the arena's end (and left there when the arena has no room for it)
	start := len(ix.keyArena)
	keys := stmtKeys{list: ix.keyArena[start:start]}
	for _, tk := range st.tokens {
		u, seen := keys.get(tk.key)
		if !seen {
			u.oldOnly = tk.old
		} else {
			u.oldOnly = u.oldOnly && tk.old
		}
		u.own = true
		u.salient = u.salient || tk.salient
		keys.put(tk.key, u)
		f := ix.words[tk.key]
		nf := f | wordKnown
		if tk.salient {
			nf |= wordSalient
		}
		if tk.lower {
			nf |= wordLower
		}
		if tk.initialCap {
			nf |= wordInitial
		}
		if nf != f {
			ix.words[tk.key] = nf
		}
	}
	if n := len(keys.list); n > 0 && start+n <= cap(ix.keyArena) && &keys.list[0] == &ix.keyArena[start : start+1][0] {
		ix.keyArena = ix.keyArena[:start+n]
		keys.list = keys.list[:n:n]
	}
	ix.stmts = append(ix.stmts, ctxStatement{item: item, st: st, keys: keys, level: level})
	return len(ix.stmts) - 1
}

// alignment is how one claim meets one context statement.
type alignment struct {
	stmt                            int
	matched, known, total           int
	figMatched, figConflict, figOld int
	figNovel                        int
	denied                          bool // the claim holds a word the statement's correction denies
	// opposed: a claim word is absent from the statement and the statement holds its antonym
	// (antonymPairs); oppKnown: that word was counted as known. Neither counts it as matched:
	// only judge's opposite test (opposes) reads them, so an antonym never makes a claim more
	// supported than it was.
	opposed, oppKnown              bool
	oldSalient, novelSalient       bool
	unmatchedOwn, unmatchedSalient int
	kc, tc                         float64
}

// align compares a claim with statement s.
func (ix *contextIndex) align(c *claim, s int, figKnown []bool) alignment {
	cs := &ix.stmts[s]
	a := alignment{stmt: s}
	ix.alignWords(c, s, &a)
	for fi, f := range c.st.figs {
		if !figKnown[fi] && f.cat == "ord" {
			continue // an ordinal the context has nothing to compare with is a word ("the first step")
		}
		a.total++
		if figKnown[fi] {
			a.known++
		} else {
			a.figNovel++
		}
		if fi < len(c.pastKnown) && c.pastKnown[fi] {
			a.figMatched++
			a.matched++
			continue
		}
		equal, comparable, current := false, false, false
		for _, g := range ix.topicFigs[cs.item] {
			if sameValue(f, g) {
				equal, current = true, true
			}
		}
		for _, g := range cs.st.figs {
			if sameValue(f, g) {
				equal = true
				current = current || !g.old
			} else if comparableFigures(f, g) && f.cat != "" && !g.old {
				comparable = true
			}
		}
		switch {
		case equal:
			a.figMatched++
			a.matched++
			if !current {
				a.figOld++
			}
		case comparable:
			a.figConflict++
		}
	}
	matchedKnown := a.matched // every matched word is known by construction
	if a.known > 0 {
		a.kc = float64(matchedKnown) / float64(a.known)
	}
	if a.total > 0 {
		a.tc = float64(a.matched) / float64(a.total)
	}
	for _, g := range cs.st.figs {
		used := false
		for _, f := range c.st.figs {
			if sameValue(f, g) {
				used = true
			}
		}
		if !used {
			a.unmatchedOwn++
			a.unmatchedSalient++
		}
	}
	return a
}

// alignWords fills in how the claim's words meet statement s's: totals, known and matched
// words, denial, the statement's own words the claim leaves out, and novel names.
func (ix *contextIndex) alignWords(c *claim, s int, a *alignment) {
	cs := &ix.stmts[s]
	ck := ix.claimKeysOf(c)
	shared, sharedSalient := 0, 0 // the statement's own words the claim holds
	for i, tk := range ck.uniq {
		a.total++
		if ck.known[i] {
			a.known++
		}
		u, ok := cs.keys.get(tk.key)
		if ok && u.own {
			shared++
			if u.salient || ix.isSalientWord(tk.key) {
				sharedSalient++
			}
		}
		if ok && u.denied {
			a.denied = true
		} else if ok {
			a.matched++
			if u.oldOnly && (ix.isSalient(tk) || u.salient) {
				a.oldSalient = true
			}
		} else if ix.topicKeys[cs.item][tk.key] {
			a.matched++
		} else if !a.opposed && cs.keys.holdsAny(ck.anti[i]) {
			a.opposed, a.oppKnown = true, ck.known[i]
		}
	}
	own, ownSalient := ix.ownKeys(s)
	a.unmatchedOwn, a.unmatchedSalient = own-shared, ownSalient-sharedSalient
	a.novelSalient = ck.novelSalient
}

// claimKeys is what align needs of a claim's words whatever the statement: each key once (at its
// first token), whether the context knows it, and whether the claim names something the context
// never mentions. align runs for every claim against every statement; this is made once a claim.
type claimKeys struct {
	uniq  []token
	known []bool
	// anti are the antonyms of each key in uniq that the claim does not hold itself (a claim
	// that "begins in May and ends in June" opposes neither word); nil for most keys.
	anti         [][]string
	novelSalient bool
}

func (ix *contextIndex) claimKeysOf(c *claim) *claimKeys {
	if c.keys != nil && !groundednessReference {
		return c.keys
	}
	ck := &claimKeys{uniq: make([]token, 0, len(c.st.tokens)), known: make([]bool, 0, len(c.st.tokens)),
		anti: make([][]string, 0, len(c.st.tokens))}
	var seen map[string]bool // a short claim's keys are compared in order instead
	if len(c.st.tokens) > 16 {
		seen = make(map[string]bool, len(c.st.tokens))
	}
	for _, tk := range c.st.tokens {
		dup := seen[tk.key]
		if seen == nil {
			dup = slices.ContainsFunc(ck.uniq, func(u token) bool { return u.key == tk.key })
		}
		if !dup {
			if seen != nil {
				seen[tk.key] = true
			}
			ck.uniq = append(ck.uniq, tk)
			ck.known = append(ck.known, ix.isKnown(tk.key))
			var anti []string
			if !tk.cjk {
				anti = relations().antonyms[tk.key]
			}
			ck.anti = append(ck.anti, anti)
		}
		if !tk.cjk && !tk.noun && !ix.isKnown(tk.key) && tk.salient {
			ck.novelSalient = true
		}
	}
	for i, anti := range ck.anti {
		for _, k := range anti {
			if slices.ContainsFunc(c.st.tokens, func(t token) bool { return t.key == k }) {
				ck.anti[i] = nil // the claim holds both words: neither is an opposite
				break
			}
		}
	}
	c.keys = ck
	return ck
}

// holdsAny reports whether the statement holds any of keys in its own words, not denied.
func (k *stmtKeys) holdsAny(keys []string) bool {
	for _, key := range keys {
		if u, ok := k.get(key); ok && u.own && !u.denied {
			return true
		}
	}
	return false
}

// opposedShared is how many other words or figures a claim must share with a statement, besides
// the word the statement holds the antonym of, before the antonym reverses the claim: a key can
// meet an unrelated word that shares its stem ("comment" and "commence"), and one shared word
// beside it is a coincidence as often as a topic.
const opposedShared = 2

// opposes reports whether the claim says the opposite of statement s through an antonym: the
// claim, with the opposed word aligned to its antonym, would hold most of what it knows in the
// statement (weakKnown), shares opposedShared more words or figures with it, and has the same
// polarity (so "met the deadline" against "missed the deadline" is reversed, and "did not miss
// the deadline" against "met the deadline" restates it).
func (ix *contextIndex) opposes(a alignment) bool {
	if !a.opposed || a.matched < opposedShared {
		return false
	}
	known := a.known
	if !a.oppKnown {
		known++
	}
	return float64(a.matched+1)/float64(known) >= weakKnown
}

// ownKeys counts statement s's own words, and those of them that are salient (by the statement
// or anywhere in the context): with the ones a claim shares, they give the ones it leaves out,
// without going through the statement's keys for every claim.
func (ix *contextIndex) ownKeys(s int) (own, salient int) {
	cs := &ix.stmts[s]
	if !cs.counted || groundednessReference {
		cs.own, cs.ownSalient, cs.counted = 0, 0, true
		for _, e := range cs.keys.list {
			if u := e.use; u.own {
				cs.own++
				if u.salient || ix.isSalientWord(e.key) {
					cs.ownSalient++
				}
			}
		}
	}
	return cs.own, cs.ownSalient
}

// better orders alignments: more known coverage, then more total coverage, then a figure
// conflict over none (the statement about the same quantity), then the finer statement.
func (ix *contextIndex) better(a, b alignment) bool {
	if a.kc != b.kc {
		return a.kc > b.kc
	}
	if a.tc != b.tc {
		return a.tc > b.tc
	}
	if a.figMatched != b.figMatched {
		return a.figMatched > b.figMatched
	}
	if (a.figConflict > 0) != (b.figConflict > 0) {
		return a.figConflict > 0
	}
	la, lb := levelRank(ix.stmts[a.stmt].level), levelRank(ix.stmts[b.stmt].level)
	if la != lb {
		return la < lb
	}
	return a.unmatchedOwn < b.unmatchedOwn
}

func levelRank(level int) int {
	switch level {
	case 1:
		return 0
	case 0:
		return 1
	}
	return 2
}

// conflicted reports whether clause s supports the claim only by joining pieces that speak of
// different things ("Anna leads sales, Jonas marketing" does not say Jonas leads sales): the piece
// holding most of the claim names something of its own (a word or a figure the claim lacks), and a
// name or figure of the claim is found only in another piece.
func (ix *contextIndex) conflicted(c *claim, s int, figKnown []bool) bool {
	pieces := ix.stmts[s].pieces
	if len(pieces) < 2 {
		return false
	}
	best, bestA := -1, alignment{}
	for _, p := range pieces {
		a := ix.align(c, p, figKnown)
		if best < 0 || a.matched > bestA.matched {
			best, bestA = p, a
		}
	}
	if bestA.unmatchedOwn == 0 {
		return false
	}
	bp := ix.stmts[best]
	for k, p := range pieces {
		if p == best {
			continue
		}
		q := ix.stmts[p]
		holds := false
		for _, tk := range c.st.tokens {
			if bp.keys.has(tk.key) {
				continue
			}
			if q.keys.has(tk.key) && ix.isSalient(tk) {
				holds = true
			}
		}
		for _, f := range c.st.figs {
			if !slices.ContainsFunc(bp.st.figs, func(g figure) bool { return sameValue(f, g) }) &&
				slices.ContainsFunc(q.st.figs, func(g figure) bool { return sameValue(f, g) }) {
				holds = true
			}
		}
		if !holds {
			continue
		}
		// the piece speaks of something else if it, or the elliptical piece after it ("y la de
		// Bilbao, 35"), carries content of its own the claim lacks
		if ix.align(c, p, figKnown).unmatchedOwn > 0 {
			return true
		}
		if k+1 < len(pieces) && pieces[k+1] != best {
			if na := ix.align(c, pieces[k+1], figKnown); na.matched == 0 && na.unmatchedOwn > 0 {
				return true
			}
		}
	}
	return false
}

// checkClaim aligns a claim with the context and says whether it is supported.
func (ix *contextIndex) checkClaim(c *claim) ClaimStatus {
	st := ClaimStatus{Start: c.start, End: c.end, Text: c.text}
	figKnown := make([]bool, len(c.st.figs))
	for fi, f := range c.st.figs {
		for _, s := range ix.stmts {
			if slices.ContainsFunc(s.st.figs, func(g figure) bool { return sameValue(f, g) || comparableFigures(f, g) && f.cat != "" }) {
				figKnown[fi] = true
				break
			}
		}
	}
	c.pastKnown = make([]bool, len(c.st.figs))
	for fi, f := range c.st.figs {
		if !f.old || !c.st.change && !c.st.history && !c.st.instead {
			continue
		}
		for _, s := range ix.stmts {
			if slices.ContainsFunc(s.st.figs, func(g figure) bool { return g.old && sameValue(f, g) }) {
				c.pastKnown[fi] = true
				break
			}
		}
	}
	allowed := func(item int) bool { return len(c.cites) == 0 || slices.Contains(c.cites, item) }
	best, found := ix.bestAlignment(c, figKnown, allowed)
	if !found {
		st.State, st.Reason = ClaimUnsupported, "no context statement shares its content"
		st.features = ix.claimFeatures(c, best, false, allowed)
		return st
	}
	st.State, st.Reason = ix.judge(c, best)
	if st.State == ClaimWeak || st.State == ClaimUnsupported {
		// "Marta leads the design team" against "Marta leads the research team. Tomas leads the
		// design team.": both statements hold as much of the claim, and the second says it of
		// someone else; the tie is decided for the other entity, not for a partial match
		if other, ok := ix.tiedOtherEntity(c, figKnown, allowed, best); ok {
			best = other
			st.State, st.Reason = ix.judge(c, best)
		}
	}
	if st.State == ClaimWeak || st.State == ClaimUnsupported || st.State == ClaimContradicted && best.figConflict > 0 {
		if j, ok := ix.joinedAlignment(c, figKnown, best); ok {
			best = j
			st.State, st.Reason = ix.judge(c, best)
			st.viaJoin = true
		}
	}
	st.features = ix.claimFeatures(c, best, true, allowed)
	cs := ix.stmts[best.stmt]
	st.ContextID, st.Aligned = ix.items[cs.item].ID, strings.TrimSpace(cs.st.text)
	if st.State != ClaimSupported && len(c.cites) > 0 {
		if other, ok := ix.bestAlignment(c, figKnown, func(item int) bool { return !slices.Contains(c.cites, item) }); ok {
			if state, _ := ix.judge(c, other); state == ClaimSupported {
				st.State = ClaimOtherItem
				st.ContextID = ix.items[ix.stmts[other.stmt].item].ID
				st.Reason = fmt.Sprintf("it cites %s but only %q supports it", ix.citedIDs(c), st.ContextID)
			}
		}
	}
	return st
}

func (ix *contextIndex) citedIDs(c *claim) string {
	var ids []string
	for _, i := range c.cites {
		ids = append(ids, fmt.Sprintf("%q", ix.items[i].ID))
	}
	return strings.Join(ids, ", ")
}

// bestAlignment finds the best statement among the allowed items.
func (ix *contextIndex) bestAlignment(c *claim, figKnown []bool, allowed func(int) bool) (alignment, bool) {
	var best alignment
	found := false
	for s := range ix.stmts {
		if ix.stmts[s].dup || !allowed(ix.stmts[s].item) {
			continue
		}
		a := ix.align(c, s, figKnown)
		if a.matched == 0 && a.figConflict == 0 {
			continue
		}
		if ix.stmts[s].level == 0 && ix.conflicted(c, s, figKnown) {
			continue
		}
		if !found || ix.better(a, best) {
			best, found = a, true
		}
	}
	return best, found
}

// tiedOtherEntity finds a statement that holds as much of the claim as best and says it of
// another entity.
func (ix *contextIndex) tiedOtherEntity(c *claim, figKnown []bool, allowed func(int) bool, best alignment) (alignment, bool) {
	for s := range ix.stmts {
		if s == best.stmt || ix.stmts[s].dup || !allowed(ix.stmts[s].item) {
			continue
		}
		a := ix.align(c, s, figKnown)
		if a.kc != best.kc || a.tc != best.tc {
			continue
		}
		if state, _ := ix.judge(c, a); state == ClaimOtherEntity {
			return a, true
		}
	}
	return alignment{}, false
}

// judge turns an alignment into a state and a reason.
func (ix *contextIndex) judge(c *claim, a alignment) (ClaimState, string) {
	cs := ix.stmts[a.stmt]
	id := ix.items[cs.item].ID
	switch {
	case a.figConflict > 0 && a.kc >= reverseKnown-0.2:
		return ClaimContradicted, fmt.Sprintf("%q gives another figure: %q", id, strings.TrimSpace(cs.st.text))
	case a.denied && a.kc >= reverseKnown && !c.st.neg:
		return ClaimContradicted, fmt.Sprintf("%q corrects it: %q", id, strings.TrimSpace(cs.st.text))
	case ix.opposes(a) && c.st.neg == ix.polarity(c, a.stmt):
		return ClaimContradicted, fmt.Sprintf("%q says the opposite: %q", id, strings.TrimSpace(cs.st.text))
	case a.kc >= reverseKnown && c.st.neg != ix.polarity(c, a.stmt) && (!c.st.past || c.st.neg) && (!c.st.neg || ix.negatesShared(c, a)) && !ix.opposes(a):
		if ix.polarity(c, a.stmt) {
			return ClaimContradicted, fmt.Sprintf("%q says the opposite: %q", id, strings.TrimSpace(cs.st.text))
		}
		return ClaimContradicted, fmt.Sprintf("it denies what %q states: %q", id, strings.TrimSpace(cs.st.text))
	case !c.st.history && !c.st.change && (a.figOld > 0 || a.oldSalient) && a.kc >= weakKnown:
		return ClaimSuperseded, fmt.Sprintf("%q marks that value as superseded: %q", id, strings.TrimSpace(cs.st.text))
	case a.kc < supportKnown && a.kc >= reverseKnown && a.unmatchedSalient > 0 && ix.missingElsewhere(c, a):
		return ClaimOtherEntity, fmt.Sprintf("%q says it of something else: %q", id, strings.TrimSpace(cs.st.text))
	case a.novelSalient:
		return ClaimUnsupported, fmt.Sprintf("it names something the context never mentions (closest: %q in %q)", strings.TrimSpace(cs.st.text), id)
	}
	tc := a.tc
	if a.kc >= weakKnown && tc < supportTotal {
		tc = ix.paraphraseCoverage(c, a)
	}
	switch {
	case a.kc >= supportKnown && tc >= supportTotal && a.figNovel == 0:
		return ClaimSupported, fmt.Sprintf("%q says it: %q", id, strings.TrimSpace(cs.st.text))
	case a.kc >= weakKnown && tc >= weakTotal && a.figNovel == 0:
		return ClaimWeak, fmt.Sprintf("%q says part of it: %q", id, strings.TrimSpace(cs.st.text))
	}
	return ClaimUnsupported, fmt.Sprintf("no context statement says it (closest: %q in %q)", strings.TrimSpace(cs.st.text), id)
}

// missingElsewhere reports whether a name of the claim that the aligned statement lacks is one
// the context uses elsewhere: the claim names something the context attaches to another
// statement. A plain word missing ("cannot be seen" against "is visible") is a paraphrase, not
// another entity.
func (ix *contextIndex) missingElsewhere(c *claim, a alignment) bool {
	cs := ix.stmts[a.stmt]
	for _, tk := range c.st.tokens {
		if !cs.keys.has(tk.key) && ix.isKnown(tk.key) && ix.isSalient(tk) {
			return true
		}
	}
	return false
}

// paraphraseCoverage is total coverage that lets a paraphrase stand in for the statement's own
// words (check_groundedness/6): a run of claim words the context never uses counts as matched
// when it stands where the aligned statement has words of its own that the claim lacks, between
// the same matched words (in either order) or at the same end. "The lentil soup contains no
// animal products" against "the lentil soup is vegan" puts "contains animal products" where the
// statement has "vegan"; "…, and a rooftop bar" after everything the statement holds has no
// counterpart there and stays unmatched. A run may be up to twice as long as its counterpart (one
// word is often said in two or three), a statement word stands in for one run only, and fewer
// words are stood in for than the claim shares with the statement.
func (ix *contextIndex) paraphraseCoverage(c *claim, a alignment) float64 {
	cs := &ix.stmts[a.stmt]
	toks := cs.st.tokens
	at := func(key string) int {
		for i, tk := range toks {
			if tk.key == key {
				return i
			}
		}
		return -1
	}
	claimHas := func(key string) bool {
		for _, tk := range c.st.tokens {
			if tk.key == key {
				return true
			}
		}
		return false
	}
	used := make([]bool, len(toks))
	for i, tk := range toks {
		used[i] = claimHas(tk.key)
	}
	// claim words in order, once each: their place in the statement (-1 when not there) and
	// whether the context knows them
	type cw struct {
		place int
		known bool
	}
	var seq []cw
	for i, tk := range c.st.tokens {
		dup := false
		for _, prev := range c.st.tokens[:i] {
			if prev.key == tk.key {
				dup = true
				break
			}
		}
		if !dup {
			seq = append(seq, cw{place: at(tk.key), known: ix.isKnown(tk.key)})
		}
	}
	absorbed := 0
	for i := 0; i < len(seq); {
		if seq[i].known || seq[i].place >= 0 {
			i++
			continue
		}
		j := i
		for j < len(seq) && !seq[j].known && seq[j].place < 0 {
			j++
		}
		left, right := -1, -1
		if i > 0 && seq[i-1].place >= 0 {
			left = seq[i-1].place
		}
		if j < len(seq) && seq[j].place >= 0 {
			right = seq[j].place
		}
		lo, hi := -1, len(toks)
		switch {
		case left >= 0 && right >= 0:
			lo, hi = min(left, right), max(left, right)
		case left >= 0:
			lo = left
		case right >= 0:
			hi = right
		default:
			lo, hi = 0, -1 // no anchor on either side: nothing to stand in for
		}
		gap := 0
		if !figureBetween(cs.st, c, toks, lo, hi) {
			for k := lo + 1; k < hi; k++ {
				if !used[k] {
					used[k] = true
					gap++
				}
			}
		}
		absorbed += min(j-i, 2*gap)
		i = j
	}
	// the claim must keep more of the statement's words than it replaces: one shared subject and
	// a new predicate ("the clinic offers free parking" against "the clinic is open on weekdays")
	// is another claim, not a paraphrase. Character bigrams of Han and kana text overlap, so two
	// of them count as one word; a matching figure counts as one.
	anchors, cjk := 0, 0
	for _, tk := range c.st.tokens {
		if !cs.keys.has(tk.key) {
			continue
		}
		if tk.cjk {
			cjk++
		} else {
			anchors++
		}
	}
	anchors += (cjk+1)/2 + a.figMatched
	absorbed = min(absorbed, anchors-1)
	if a.total == 0 || absorbed <= 0 {
		return a.tc
	}
	return float64(a.matched+absorbed) / float64(a.total)
}

// checkClaims checks every claim. The claims cut from one clause at "and" or a comma
// (splitConjuncts) are checked again as that clause when one of them is not supported: the cut
// takes two content words on each side for two assertions, but a coordinated subject has no
// predicate of its own ("Palace entry | and lunch are not part of the tour price", "screen time
// | and sleep quality were not linked"), and the piece without its predicate or its negation is
// then unsupported or reversed while the clause says what the context says. The clause stands
// for its pieces only when one statement supports it (not statements joined together: those
// could make whole what one piece gets wrong) and every piece it would stand for has no figure
// and was either reversed or uses only words the context knows: a piece with a figure states a
// fact of its own ("opens at 9 | and closes at 5"), and one with new words adds something ("two
// bedrooms, a balcony | and a private parking space"), which the clause, its new words a
// minority, must not cover (check_groundedness/16).
func (ix *contextIndex) checkClaims(claims []claim) []ClaimStatus {
	out := make([]ClaimStatus, 0, len(claims))
	for i := 0; i < len(claims); {
		j := i + 1
		for j < len(claims) && claims[i].joined != nil && claims[j].joined == claims[i].joined {
			j++
		}
		first := len(out)
		hidden := true // every piece that is not supported may be stood for by the clause
		failing := false
		for k := i; k < j; k++ {
			st := ix.checkClaim(&claims[k])
			if st.State != ClaimSupported {
				failing = true
				hidden = hidden && len(claims[k].st.figs) == 0 && (st.State == ClaimContradicted || ix.onlyKnownWords(&claims[k]))
			}
			out = append(out, st)
		}
		if j-i > 1 && failing && hidden {
			if whole := ix.checkClaim(claims[i].joined); whole.State == ClaimSupported && !whole.viaJoin {
				out = append(out[:first], whole)
			}
		}
		i = j
	}
	return out
}

// onlyKnownWords reports whether the claim has no figure and every word of it is one the context
// uses.
func (ix *contextIndex) onlyKnownWords(c *claim) bool {
	if len(c.st.figs) > 0 {
		return false
	}
	for _, tk := range c.st.tokens {
		if !ix.isKnown(tk.key) {
			return false
		}
	}
	return true
}
