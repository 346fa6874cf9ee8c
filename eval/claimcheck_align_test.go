package eval

import (
	"testing"
)

// alignWordsReference is align's word comparison as it was written before claimKeys and
// ownKeys: a set of the claim's keys built for every statement, and the statement's keys gone
// through for every claim.
func (ix *contextIndex) alignWordsReference(c *claim, s int, a *alignment) {
	cs := &ix.stmts[s]
	claimKeys := map[string]bool{}
	for _, tk := range c.st.tokens {
		if claimKeys[tk.key] {
			continue
		}
		claimKeys[tk.key] = true
		a.total++
		if ix.isKnown(tk.key) {
			a.known++
		}
		u, ok := cs.keys.get(tk.key)
		switch {
		case ok && u.denied:
			a.denied = true
		case ok:
			a.matched++
			a.oldSalient = a.oldSalient || u.oldOnly && (ix.isSalient(tk) || u.salient)
		case ix.topicKeys[cs.item][tk.key]:
			a.matched++
		}
	}
	for _, e := range cs.keys.list {
		if k, u := e.key, e.use; u.own && !claimKeys[k] {
			a.unmatchedOwn++
			if u.salient || ix.isSalientWord(k) {
				a.unmatchedSalient++
			}
		}
	}
	for _, tk := range c.st.tokens {
		if !tk.cjk && !tk.noun && !ix.isKnown(tk.key) && tk.salient {
			a.novelSalient = true
		}
	}
	// the first claim word (in order) absent from the statement whose antonym the statement
	// holds and the claim does not
	for _, tk := range c.st.tokens {
		if a.opposed {
			break
		}
		if tk.cjk {
			continue
		}
		if _, ok := cs.keys.get(tk.key); ok || ix.topicKeys[cs.item][tk.key] {
			continue
		}
		for _, k := range relations().antonyms[tk.key] {
			if u, ok := cs.keys.get(k); ok && u.own && !u.denied && !claimKeys[k] {
				a.opposed, a.oppKnown = true, ix.isKnown(tk.key)
				break
			}
		}
	}
}

// TestAlignWordsMatchesReference compares alignWords with alignWordsReference for every claim of
// the training corpus against every statement of its context, and of its context doubled (so
// statements share their keys).
func TestAlignWordsMatchesReference(t *testing.T) {
	pairs := 0
	for _, it := range trainingGroundedness(t) {
		doubled := make([]ContextItem, 0, len(it.Context))
		for _, c := range it.Context {
			doubled = append(doubled, ContextItem{ID: c.ID, Content: c.Content + " " + c.Content})
		}
		for _, ctx := range [][]ContextItem{it.Context, doubled} {
			ix := indexContext(ctx)
			for _, c := range extractClaims(it.Response, ctx) {
				for s := range ix.stmts {
					// twice, so the second meets the claim's and the statement's counts made
					for range 2 {
						var got, want alignment
						ix.alignWords(&c, s, &got)
						ix.alignWordsReference(&c, s, &want)
						if got != want {
							t.Fatalf("%s: claim %q against %q: alignWords = %+v, reference %+v", it.ID, c.text, ix.stmts[s].st.text, got, want)
						}
					}
					pairs++
				}
			}
		}
	}
	if pairs < 1000 {
		t.Fatalf("only %d claim-statement pairs", pairs)
	}
}
