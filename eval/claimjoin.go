package eval

import (
	"slices"
	"strings"
)

// A response often says in one clause what its context says in two: "open from 10 h to 18 h"
// against "opens at 10 h and closes at 18 h", "check in from 3 hours until 45 minutes before"
// against "opens 3 hours before … and closes 45 minutes before", "a two-person tent with
// aluminium poles" against "… sleeps two people … Poles are aluminium". Aligned with one statement
// at a time, such a claim is half supported, or contradicted by the figure it takes from the other
// half. joinedAlignment (check_groundedness/10) tries the best statement joined with one or two
// more statements of the same item, and accepts the join only when it supports the claim outright
// and each statement joined adds something of the claim's without adding anything of its own that the
// claim leaves unsaid — so a fact of one statement is not pinned on the subject of another
// ("the tenant pays for water" against "The Tenant pays for electricity. Water is paid by the
// Landlord." is not joined: the claim drops "Landlord").

// joinLevel is the level of a statement made by joinedAlignment: hidden from every other search
// (it is marked dup), kept in the index only so that the claim's features can be read from it.
const joinLevel = 3

// joinedAlignment looks for a statement of best's item that, joined to best's, supports claim
// c. It reports the joined alignment and true when one does; the index then holds the joined
// statement. On false the index is as it was.
func (ix *contextIndex) joinedAlignment(c *claim, figKnown []bool, best alignment) (alignment, bool) {
	if ix.stmts[best.stmt].level > 1 {
		return alignment{}, false
	}
	start := len(ix.stmts)
	cur := best
	clauses := []int{ix.clauseOf(best.stmt)}
	for range maxJoined - 1 {
		next, ok := ix.joinOne(c, figKnown, cur, start, &clauses)
		if !ok {
			break
		}
		if state, _ := ix.judge(c, next); state == ClaimSupported && next.figConflict == 0 {
			return next, true
		}
		cur = next
	}
	ix.stmts = ix.stmts[:start]
	return alignment{}, false
}

// maxJoined is how many statements a join may hold: a clause of a response rarely says more than
// three of its context's.
const maxJoined = 3

// joinOne joins to cur's statement the statement of its item (below limit: not itself a join)
// that best aligns the claim when joined, among those that add something of the claim's and
// nothing of their own the claim leaves unsaid. It reports false when no statement does, or
// when the best join holds no more of the claim than cur. On true the join is the index's last
// statement.
//
// clauses are the clauses cur's statements come from; the statement joined adds its own. A piece
// of another clause that is not its first is said of that clause's subject ("The Garden Suite
// sleeps four and has a kitchenette": "has a kitchenette" is the Garden Suite's), so it is
// joined only to pieces of its own clause.
func (ix *contextIndex) joinOne(c *claim, figKnown []bool, cur alignment, limit int, clauses *[]int) (alignment, bool) {
	a := ix.stmts[cur.stmt] // a copy: the loop appends to ix.stmts
	var best alignment
	var bestJoin ctxStatement
	bestClause, found := -1, false
	for s := range limit {
		b := &ix.stmts[s]
		if b.item != a.item || b.level > 1 || b.dup || b.st.neg != a.st.neg {
			continue
		}
		if strings.Contains(a.st.text, b.st.text) || strings.Contains(b.st.text, a.st.text) {
			continue // itself, a clause and its own piece, or a statement already joined: nothing new
		}
		clause := ix.clauseOf(s)
		if b.level == 1 && !slices.Contains(*clauses, clause) && (clause == s || ix.stmts[clause].pieces[0] != s) {
			continue
		}
		addsWord, addsFig := ix.joinAdds(c, cur.stmt, s)
		if !addsWord && !addsFig {
			continue
		}
		// the statement is said whole: nothing of its own left out but, when it brings a figure
		// the claim uses, one plain word ("ferme" for a range's end, "closes" for "until")
		ba := ix.align(c, s, figKnown)
		if ba.unmatchedSalient > 0 || ba.unmatchedOwn > 1 || ba.unmatchedOwn == 1 && !addsFig {
			continue
		}
		if ix.strayFigure(c, cur.stmt, s) {
			continue
		}
		n := len(ix.stmts)
		ix.stmts = append(ix.stmts, ix.joined(cur.stmt, s))
		if ja := ix.align(c, n, figKnown); ja.figConflict == 0 && (!found || ix.better(ja, best)) {
			best, bestJoin, bestClause, found = ja, ix.stmts[n], clause, true
		}
		ix.stmts = ix.stmts[:n]
	}
	if !found || best.kc <= cur.kc && best.tc <= cur.tc {
		return alignment{}, false
	}
	best.stmt = len(ix.stmts)
	ix.stmts = append(ix.stmts, bestJoin)
	*clauses = append(*clauses, bestClause)
	return best, true
}

// clauseOf is the clause statement s belongs to: itself for a clause, the clause whose pieces
// hold it for a piece.
func (ix *contextIndex) clauseOf(s int) int {
	if ix.stmts[s].level != 1 {
		return s
	}
	for i := s - 1; i >= 0; i-- {
		if cs := &ix.stmts[i]; cs.level == 0 && slices.Contains(cs.pieces, s) {
			return i
		}
	}
	return s
}

// joinAdds reports whether statement s holds a word (addsWord) or a figure (addsFig) of the
// claim's that statement a lacks.
func (ix *contextIndex) joinAdds(c *claim, a, s int) (addsWord, addsFig bool) {
	sa, sb := &ix.stmts[a], &ix.stmts[s]
	for _, tk := range c.st.tokens {
		if !sa.keys.has(tk.key) && sb.keys.has(tk.key) {
			addsWord = true
		}
	}
	for _, f := range c.st.figs {
		same := func(g figure) bool { return sameValue(f, g) }
		if !slices.ContainsFunc(sa.st.figs, same) && slices.ContainsFunc(sb.st.figs, same) {
			addsFig = true
		}
	}
	return addsWord, addsFig
}

// strayFigure reports whether statements a and s hold a figure the claim does not use of a kind
// it does: "Room A holds 20 people. Room B holds 35." does not support "Room A holds 35 people",
// though the join holds every figure of the claim.
func (ix *contextIndex) strayFigure(c *claim, a, s int) bool {
	for _, st := range []int{a, s} {
		for _, g := range ix.stmts[st].st.figs {
			if slices.ContainsFunc(c.st.figs, func(f figure) bool { return sameValue(f, g) }) {
				continue
			}
			if slices.ContainsFunc(c.st.figs, func(f figure) bool { return comparableFigures(f, g) }) {
				return true
			}
		}
	}
	return false
}

// joined is statements a and s as one: a's text, then s's; both statements' words and figures.
func (ix *contextIndex) joined(a, s int) ctxStatement {
	sa, sb := ix.stmts[a], ix.stmts[s]
	j := ctxStatement{item: sa.item, level: joinLevel, dup: true, st: sa.st}
	j.st.text = sa.st.text + " " + sb.st.text
	j.st.figs = append(slices.Clone(sa.st.figs), sb.st.figs...)
	off := len(strings.ToLower(sa.st.text)) + 1
	j.st.tokens = slices.Clone(sa.st.tokens)
	for _, tk := range sb.st.tokens {
		tk.pos += off
		j.st.tokens = append(j.st.tokens, tk)
	}
	j.keys = ix.copyKeys(sa.keys)
	for _, e := range sb.keys.list {
		if !j.keys.has(e.key) {
			j.keys.put(e.key, e.use)
		}
	}
	return j
}
