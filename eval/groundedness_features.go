package eval

import (
	"math"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The features the groundedness model (groundedness_model.go) reads for one claim
// (check_groundedness/7). Each says how the claim meets the context in a way that does not depend
// on one author's phrasing: how much of it the best-aligned statement covers, by stemmed words and
// by character n-grams (which need no word boundaries and no stemmer for the language), whether
// its figures and names agree, whether the polarity is reversed, whether the value is marked as
// superseded. The rules that used to decide alone now describe; a model fitted on the training
// material weighs what they describe.
const (
	fKnownCover  = iota // share of the claim's context-known words and figures the aligned statement holds
	fTotalCover         // share of all the claim's words and figures it holds (paraphrase-adjusted)
	fKnownShare         // share of the claim's words and figures the context uses anywhere
	fCharBest           // character n-gram containment of the claim in its best statement by n-grams
	fCharAligned        // character n-gram containment of the claim in the aligned statement
	fCharContext        // character n-gram containment of the claim in the whole allowed context
	fFigConflict        // a figure of the claim differs from a comparable one of the aligned statement
	fFigNovel           // a figure of the claim the context has nothing comparable to
	fFigMatched         // a figure of the claim the aligned statement holds
	fPolarity           // the polarity is reversed: the aligned statement denies what the claim affirms (a denial case), or the claim denies what it affirms and its negation reaches shared words; one weight for both directions, as a reversal is one thing
	fStmtNeg            // both are negated: a denial restated
	fSuperseded         // the aligned value is marked as replaced, and the claim does not report the past
	fOtherEntity        // the aligned statement names something the claim lacks that the context uses elsewhere
	fNovelName          // the claim names something the context never mentions
	fDenied             // the claim holds a word that a correction in the context denies
	fNoAlign            // no statement shares a word or figure with the claim
	fCiteFail           // the response's citations that fail (noisy-or of their weights)
	fShort              // 1/(1+words): a short claim's coverage says less
	// products: a reversal, a changed figure or a retired value says more the better the
	// statement aligns (a linear model cannot form an "and" itself)
	fPolarityCover
	fConflictCover
	fSupersededCover
	fCharMin    // the smaller of word and character coverage of the aligned statement
	fLowCover   // how far word coverage (paraphrase-adjusted) falls below one half
	fFigDropped // the claim has no figure and the aligned statement has one: the claim's words stand where its value was ("free of charge" for "$12 per month")
	fFewShared  // the claim shares at most one word or figure with the aligned statement while saying three or more things: a shared subject with a new predicate
	fLowChar    // how far character coverage of the aligned statement falls below one half
	numGndFeatures
)

// claimReversalCover is the coverage at which a negated claim against an affirmative statement
// is a reversal of the same proposition rather than a paraphrase with a negation in it.
// HEURISTIC: chosen by leave-one-source-out cross-validation.
const claimReversalCover = 0.75

// gndFeatureNames name the features in the model file, in order.
var gndFeatureNames = [numGndFeatures]string{
	"known_cover", "total_cover", "known_share", "char_best", "char_aligned", "char_context",
	"fig_conflict", "fig_novel", "fig_matched", "reversed", "both_negated", "superseded",
	"other_entity", "novel_name", "denied", "no_align", "cite_fail", "short",
	"polarity_x_cover", "conflict_x_cover", "superseded_x_cover", "char_min", "low_cover", "fig_dropped", "few_shared", "low_char",
}

// gndFeatureSign is the direction each feature may push a claim: −1 towards supported (coverage,
// agreement), +1 towards not supported (a reversal, a changed figure, a name the context lacks),
// 0 either way. The trainer keeps every weight on its side of zero: what a reversal means is
// known before any data is seen, and a corpus in which most negated claims happen to be correct
// restatements must not teach that a negation makes a claim more likely supported.
var gndFeatureSign = [numGndFeatures]float64{
	fKnownCover: -1, fTotalCover: -1, fKnownShare: -1, fCharBest: -1, fCharAligned: -1, fCharContext: -1,
	fFigConflict: 1, fFigNovel: 1, fFigMatched: -1, fPolarity: 1, fStmtNeg: -1, fSuperseded: 1,
	fOtherEntity: 1, fNovelName: 1, fDenied: 1, fNoAlign: 1, fCiteFail: 1, fShort: 0,
	fPolarityCover: 1, fConflictCover: 1, fSupersededCover: 1, fCharMin: -1, fLowCover: 1, fLowChar: 1, fFigDropped: 1, fFewShared: 1,
}

// gndFeatures is one claim's feature vector.
type gndFeatures [numGndFeatures]float64

// charGrams are the hashed character n-grams of a text, sorted and unique: 3-grams of its letters
// and digits (lower-cased, NFKC, every other run of characters one space), and 2-grams where
// either character is Han, kana or Hangul (a word there is one or two characters).
func charGrams(s string) []uint32 {
	if groundednessReference {
		return charGramsReference(s)
	}
	out := charGramsRaw(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// charGramsReference is charGrams as it was first written, the reference the faster
// charGramsRaw is held to (FuzzCharGrams, groundednessReference).
func charGramsReference(s string) []uint32 {
	s = norm.NFKC.String(s)
	var buf [512]rune
	rs := buf[:0]
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			rs = append(rs, unicode.ToLower(r))
			space = false
		} else if !space {
			rs = append(rs, ' ')
			space = true
		}
	}
	out := make([]uint32, 0, 2*len(rs))
	for i := range rs {
		if i+3 <= len(rs) {
			out = append(out, gramHash(rs[i:i+3]))
		}
		if i+2 <= len(rs) && (ideographic(rs[i]) || ideographic(rs[i+1])) {
			out = append(out, gramHash(rs[i:i+2]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// charGramsRaw are charGrams in the order the text has them, repeats kept: what a statement
// needs, as a claim's grams are counted in it through the claim's gramTable, and sorting every
// statement's grams was a fifth of a check on a varied context. ASCII text skips NFKC (which
// leaves it as it is) and the Unicode tables, and its grams hash without encoding runes.
func charGramsRaw(s string) []uint32 { return appendCharGrams(nil, s) }

// appendCharGrams appends charGramsRaw(s) to out.
func appendCharGrams(out []uint32, s string) []uint32 {
	if !isASCII(s) {
		s = norm.NFKC.String(s)
	}
	var buf [512]rune // most statements and claims fit: their runes stay on the stack
	rs := buf[:0]
	space := true
	wide := false // a rune outside ASCII: the general hash and the ideographic test
	for _, r := range s {
		var keep bool
		if r < utf8.RuneSelf {
			switch {
			case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
				keep = true
			case 'A' <= r && r <= 'Z':
				r += 'a' - 'A'
				keep = true
			}
		} else if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			r = unicode.ToLower(r)
			keep = true
		}
		if keep {
			rs = append(rs, r)
			space = false
			wide = wide || r >= utf8.RuneSelf
		} else if !space {
			rs = append(rs, ' ')
			space = true
		}
	}
	if !wide {
		out = slices.Grow(out, len(rs))
		const prime = 16777619
		for i := 0; i+3 <= len(rs); i++ {
			h := uint32(2166136261) ^ 3
			h = (h ^ uint32(rs[i])) * prime
			h = (h ^ uint32(rs[i+1])) * prime
			h = (h ^ uint32(rs[i+2])) * prime
			out = append(out, h)
		}
		return out
	}
	out = slices.Grow(out, 2*len(rs))
	for i := range rs {
		if i+3 <= len(rs) {
			out = append(out, gramHash(rs[i:i+3]))
		}
		if i+2 <= len(rs) && (ideographic(rs[i]) || ideographic(rs[i+1])) {
			out = append(out, gramHash(rs[i:i+2]))
		}
	}
	return out
}

func ideographic(r rune) bool {
	return r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || isRunRune(r))
}

// gramHash is FNV-1a over the runes' UTF-8 bytes, with the gram's length mixed in.
func gramHash(rs []rune) uint32 {
	h := uint32(2166136261) ^ uint32(len(rs))
	var buf [utf8.UTFMax]byte
	for _, r := range rs {
		n := utf8.EncodeRune(buf[:], r)
		for _, b := range buf[:n] {
			h ^= uint32(b)
			h *= 16777619
		}
	}
	return h
}

// containment is the share of a's grams (sorted, unique) that b holds.
func containment(a, b []uint32) float64 {
	if len(a) == 0 {
		return 0
	}
	n, j := 0, 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// gramTable is a claim's grams (sorted, unique) in an open-addressing hash table, so the share of
// them a statement holds is one probe per statement gram, in any order and with repeats, where
// containment needs both sides sorted.
type gramTable struct {
	keys []uint32
	slot []int32 // index into keys plus one; 0 is empty
	mark []uint32
	pass uint32
	mask uint32
}

func newGramTable(grams []uint32) *gramTable {
	n := 8
	for n < 2*len(grams) {
		n *= 2
	}
	t := &gramTable{keys: grams, slot: make([]int32, n), mark: make([]uint32, len(grams)), mask: uint32(n - 1)}
	for i, g := range grams {
		h := gramSlot(g) & t.mask
		for t.slot[h] != 0 {
			h = (h + 1) & t.mask
		}
		t.slot[h] = int32(i + 1)
	}
	return t
}

func gramSlot(g uint32) uint32 { return (g * 0x9E3779B1) >> 7 }

// containedIn is containment(t.keys, b) for any b: the share of the claim's grams b holds.
func (t *gramTable) containedIn(b []uint32) float64 {
	if len(t.keys) == 0 {
		return 0
	}
	t.pass++
	return float64(t.markIn(b)) / float64(len(t.keys))
}

// markIn marks the claim's grams b holds that this pass has not marked yet, and counts them.
func (t *gramTable) markIn(b []uint32) int {
	n := 0
	for _, g := range b {
		for h := gramSlot(g) & t.mask; t.slot[h] != 0; h = (h + 1) & t.mask {
			if k := t.slot[h] - 1; t.keys[k] == g {
				if t.mark[k] != t.pass {
					t.mark[k] = t.pass
					n++
				}
				break
			}
		}
	}
	return n
}

// share is the claim's grams' share in statement s, by the table or, on the reference path, by
// containment of the sorted sets.
func (ix *contextIndex) share(cg []uint32, t *gramTable, s int) float64 {
	if groundednessReference {
		return containment(cg, ix.grams(s))
	}
	return t.containedIn(ix.grams(s))
}

// claimFeatures describes how claim c meets the context: a is its best alignment among the
// allowed items (found false when there is none).
func (ix *contextIndex) claimFeatures(c *claim, a alignment, found bool, allowed func(int) bool) gndFeatures {
	var f gndFeatures
	words := len(c.st.tokens) + len(c.st.figs)
	f[fShort] = 1 / float64(1+words)
	cg := charGrams(c.text)
	var bound gramBound
	bound.set(cg)
	var table *gramTable
	if !groundednessReference {
		table = newGramTable(cg)
	}
	for s := range ix.stmts {
		cs := &ix.stmts[s]
		if cs.level == 2 || cs.dup || !allowed(cs.item) {
			continue // a duplicate has the grams of the statement it repeats
		}
		ix.grams(s) // its signature, for the bound
		if !groundednessReference && len(cg) > 0 && float64(bound.shared(&cs.gramSig))/float64(len(cg)) <= f[fCharBest] {
			continue // it cannot hold a larger share of the claim's grams than the best so far
		}
		f[fCharBest] = math.Max(f[fCharBest], ix.share(cg, table, s))
	}
	if groundednessReference {
		f[fCharContext] = ix.contextShareSorted(cg, allowed)
	} else {
		f[fCharContext] = ix.contextShare(table, allowed)
	}
	if !found {
		f[fNoAlign] = 1
		f[fLowCover] = 1
		f[fLowChar] = math.Max(0, 0.5-f[fCharBest]) * 2
		return f
	}
	f[fCharAligned] = ix.share(cg, table, a.stmt)
	f[fKnownCover] = a.kc
	tc := a.tc
	if a.kc >= weakKnown && tc < supportTotal {
		tc = ix.paraphraseCoverage(c, a)
	}
	f[fTotalCover] = tc
	if a.total > 0 {
		f[fKnownShare] = float64(a.known) / float64(a.total)
	}
	f[fFigConflict] = b2f(a.figConflict > 0)
	f[fFigNovel] = b2f(a.figNovel > 0)
	f[fFigMatched] = b2f(a.figMatched > 0)
	pol := ix.polarity(c, a.stmt)
	// a claim that denies what its statement affirms reverses it only when it says the same
	// proposition: near-total coverage. A paraphrase often says with a negation what the
	// statement says without one ("costs nothing" for "free", "can't use the staff car park" for
	// "should use the visitor car park"), and then its negation is no reversal.
	//
	// An antonym in place of the statement's word ("met" for "missed") reverses the claim as a
	// negation does, and a negated antonym ("did not miss" for "met") restates it
	// (check_groundedness/15).
	if ix.opposes(a) {
		f[fPolarity] = b2f(c.st.neg == pol)
	} else {
		f[fPolarity] = b2f(pol && !c.st.neg && !c.st.past || c.st.neg && !pol && ix.negatesShared(c, a) && tc >= claimReversalCover)
	}
	f[fStmtNeg] = b2f(c.st.neg && pol)
	f[fSuperseded] = b2f(!c.st.history && !c.st.change && (a.figOld > 0 || a.oldSalient))
	f[fOtherEntity] = b2f(a.kc < supportKnown && a.unmatchedSalient > 0 && ix.missingElsewhere(c, a))
	f[fNovelName] = b2f(a.novelSalient)
	f[fDenied] = b2f(a.denied && !c.st.neg)
	cover := math.Max(a.kc, f[fCharAligned])
	f[fPolarityCover] = f[fPolarity] * cover
	f[fConflictCover] = f[fFigConflict] * cover
	f[fSupersededCover] = f[fSuperseded] * cover
	f[fCharMin] = math.Min(tc, f[fCharAligned])
	f[fLowCover] = math.Max(0, 0.5-tc) * 2
	f[fLowChar] = math.Max(0, 0.5-f[fCharAligned]) * 2
	f[fFewShared] = b2f(a.matched <= 1 && a.total >= 3)
	f[fFigDropped] = b2f(len(c.st.figs) == 0 && len(ix.stmts[a.stmt].st.figs) > 0 && tc < supportKnown)
	return f
}

// contextShare is the share of the claim's grams that some allowed item's clauses hold: every
// such clause's grams are probed in the claim's table once, which costs less than sorting each
// item's grams into a set (contextShareSorted, the reference path) when a check has few claims.
func (ix *contextIndex) contextShare(t *gramTable, allowed func(int) bool) float64 {
	if len(t.keys) == 0 {
		return 0
	}
	t.pass++
	n := 0
	for s := range ix.stmts {
		if cs := &ix.stmts[s]; cs.level == 0 && !cs.dup && allowed(cs.item) {
			n += t.markIn(ix.grams(s))
			if n == len(t.keys) {
				break
			}
		}
	}
	return float64(n) / float64(len(t.keys))
}

// contextShareSorted is contextShare by binary search in each allowed item's sorted grams.
func (ix *contextIndex) contextShareSorted(cg []uint32, allowed func(int) bool) float64 {
	var items [][]uint32
	for i := range ix.items {
		if allowed(i) {
			items = append(items, ix.itemGrams(i))
		}
	}
	if len(cg) == 0 {
		return 0
	}
	n := 0
	for _, g := range cg {
		for _, set := range items {
			if _, ok := slices.BinarySearch(set, g); ok {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(cg))
}

// itemGrams are the character n-grams of item i's clauses, computed on first use.
func (ix *contextIndex) itemGrams(i int) []uint32 {
	if ix.itemGram == nil {
		ix.itemGram = make([][]uint32, len(ix.items))
	}
	if ix.itemGram[i] == nil {
		all := []uint32{}
		for s := range ix.stmts {
			if cs := &ix.stmts[s]; cs.item == i && cs.level == 0 && !cs.dup {
				all = append(all, ix.grams(s)...)
			}
		}
		slices.Sort(all)
		ix.itemGram[i] = slices.Compact(all)
	}
	return ix.itemGram[i]
}

// grams are statement s's character n-grams, computed on first use, with their signature.
func (ix *contextIndex) grams(s int) []uint32 {
	cs := &ix.stmts[s]
	if cs.grams == nil {
		if groundednessReference {
			cs.grams = charGrams(cs.st.text)
		} else {
			// counted through a claim's gramTable, unsorted; appended to one slice for the
			// whole index, sized from the context, instead of one allocation a statement
			// (a pooled index brings the arena of an earlier check, kept if it is large enough)
			if len(ix.gramArena) == 0 {
				size := 0
				for _, it := range ix.items {
					size += len(it.Content)
				}
				if need := 2*min(size, 1<<20) + 64; cap(ix.gramArena) < need {
					ix.gramArena = make([]uint32, 0, need)
				}
			}
			from := len(ix.gramArena)
			ix.gramArena = appendCharGrams(ix.gramArena, cs.st.text)
			cs.grams = ix.gramArena[from:len(ix.gramArena):len(ix.gramArena)]
		}
		if cs.grams == nil {
			cs.grams = []uint32{}
		}
		cs.gramSig = gramSignature(cs.grams)
	}
	return cs.grams
}

// gramSigBits is the size of a gram signature: a statement's grams set about a tenth of it.
const gramSigBits = 1024

// gramSig is a set of grams hashed to gramSigBits bits. Two texts share a gram only where both
// signatures have its bit, so the claim's grams at the bits two signatures share bound how many
// grams the texts share: claimFeatures skips the exact count for a statement that cannot beat
// the best share so far, which for most statements it cannot.
type gramSig [gramSigBits / 64]uint64

func gramBit(g uint32) uint32 { return (g ^ g>>16) % gramSigBits }

func gramSignature(grams []uint32) gramSig {
	var sig gramSig
	for _, g := range grams {
		b := gramBit(g)
		sig[b/64] |= 1 << (b % 64)
	}
	return sig
}

// gramBound is a claim's signature with how many of its grams fall on each bit.
type gramBound struct {
	sig   gramSig
	count [gramSigBits]uint16
}

func (b *gramBound) set(grams []uint32) {
	b.sig = gramSignature(grams)
	for _, g := range grams {
		b.count[gramBit(g)]++
	}
}

// shared bounds how many of the claim's grams a text with signature sig holds: those on bits
// both signatures have.
func (b *gramBound) shared(sig *gramSig) int {
	n := 0
	for w := range b.sig {
		for x := b.sig[w] & sig[w]; x != 0; x &= x - 1 {
			n += int(b.count[w*64+bits.TrailingZeros64(x)])
		}
	}
	return n
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
