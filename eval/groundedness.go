package eval

import (
	"fmt"
	"slices"
	"strings"
)

// GroundednessMetricVersion is pinned in every check_groundedness verdict. Bump it whenever
// claim splitting, alignment, the lexicons, resolution or weights change.
const GroundednessMetricVersion = "check_groundedness/19"

// groundednessReference makes the deterministic tier take its straightforward paths: every
// statement split and keyed however often it repeats, references, figures and sentence ends found
// by their regular expressions. The differential tests (TestGroundednessMatchesReference) compare
// the two; nothing else sets it.
var groundednessReference bool

// groundednessWeight: how strongly one failed citation indicates an ungrounded response.
// HEURISTIC: hand-set; a fabricated named reference is the strongest sign. Figures are checked
// claim by claim (claimWeight), not as citations.
// A switch, not a map: a package-level map literal allocates at every command's start-up.
func groundednessWeight(k CitationKind) float64 {
	switch k {
	case CitationSource, CitationReference:
		return 0.8
	case CitationQuote:
		return 0.7
	case CitationNumber:
		return 0 // figures are weighed claim by claim, not as citations
	}
	return 0
}

// mismatchWeight: a reference or quote found, but in another item than the one it cites.
const mismatchWeight = 0.5

// GroundednessScore is the deterministic tier's result for one response.
type GroundednessScore struct {
	// Score in [0,1], 1 = ungrounded: the fitted model's probability for the worst claim (whose
	// features include the citations that do not resolve; check_groundedness/7); for a response
	// with no claim, 1 - Π(1 - w) over the failed citations, so 0 when it makes no factual claim
	// at all (an abstention, a greeting, nothing) and cites nothing that fails.
	Score           float64          `json:"score"`
	Claims          []ClaimStatus    `json:"claims,omitempty"`
	Statuses        []CitationStatus `json:"statuses,omitempty"`
	Evidence        []Span           `json:"evidence,omitempty"` // the failing claims and citations, in the response
	CitedContextIDs []string         `json:"citedContextIds,omitempty"`
	Summary         string           `json:"summary"`
}

// ScoreGroundedness is the deterministic tier of check_groundedness. Every claim (each clause
// that asserts something) is aligned with the context statements of the items it cites, or of all
// items when it cites none; the alignment is described by features (coverage, polarity, figures,
// names, supersession; groundedness_features.go) and the embedded model weighs them
// (groundedness_model.go), so that the weights are fitted to labelled text rather than set by
// hand. References, quotes and source markers are resolved as citations besides. It does not
// check for empty context (the Evaluator rejects that before running).
func ScoreGroundedness(in GroundednessInput) GroundednessScore {
	g := groundednessParts(in)
	if m := groundednessModel(); m != nil {
		return g.scoreModel(m)
	}
	return g.scoreRules()
}

// claimFlagged: a claim whose model probability reaches it is reported as not supported; the
// evidence also lists claims from claimNoted on, which could tip a stricter threshold.
const (
	claimFlagged = 0.5
	claimNoted   = 0.25
)

// scoreModel is check_groundedness/7's combination: the response scores what its worst claim
// scores under the fitted model (whose features include the failed citations), and a response
// with no claim scores what its citations do. The rules' state and reason stay on each claim as
// the description of how it meets the context; a claim the rules found supported that the model
// flags is described as weak.
func (g GroundednessScore) scoreModel(m *gndModel) GroundednessScore {
	failed := 0
	var worst *ClaimStatus
	worstP := -1.0
	score := 0.0
	for i := range g.Claims {
		cl := &g.Claims[i]
		p := round3(m.prob(cl.features))
		cl.Score = p
		if p >= claimFlagged && cl.State == ClaimSupported {
			cl.State, cl.Reason = ClaimWeak, fmt.Sprintf("the closest statement does not say all of it: %q", cl.Aligned)
		}
		if p < claimFlagged && cl.ContextID != "" && cl.State != ClaimOtherItem && !slices.Contains(g.CitedContextIDs, cl.ContextID) {
			g.CitedContextIDs = append(g.CitedContextIDs, cl.ContextID)
		}
		score = max(score, p)
		if p > worstP {
			worst, worstP = cl, p
		}
		if p >= claimFlagged {
			failed++
		}
		if p >= claimNoted {
			g.Evidence = append(g.Evidence, Span{Start: cl.Start, End: cl.End, Text: cl.Text, Family: string(cl.State), Pattern: cl.Reason, Weight: p})
		}
	}
	keep := g.citeEvidence()
	if len(g.Claims) == 0 {
		score = 1 - keep
	}
	if worstP < claimNoted {
		worst = nil
	}
	slices.SortStableFunc(g.Evidence, func(a, b Span) int { return a.Start - b.Start })
	g.Score = round3(score)
	g.Summary = summarizeGroundedness(g, failed, worst, g.failedCitation())
	return g
}

// groundednessParts checks every claim and citation of the response and leaves the score to be
// combined: each claim's features carry the response's failed citations (fCiteFail).
func groundednessParts(in GroundednessInput) GroundednessScore {
	var g GroundednessScore
	cites := in.Citations
	if cites == nil {
		cites = ExtractCitations(in.Response)
	}
	cites = slices.DeleteFunc(slices.Clone(cites), func(c Citation) bool { return c.Kind == CitationNumber })
	g.Statuses = ResolveCitations(cites, in.Context)
	ix := indexContext(in.Context)
	defer ix.release()
	g.Claims = ix.checkClaims(extractClaims(in.Response, in.Context))
	cite := 1 - g.citationKeep()
	for i := range g.Claims {
		g.Claims[i].features[fCiteFail] = cite
	}
	return g
}

// citationKeep is Π(1 − w) over the citations that fail.
func (g *GroundednessScore) citationKeep() float64 {
	keep := 1.0
	for _, st := range g.Statuses {
		keep *= 1 - citationWeight(st)
	}
	return keep
}

func citationWeight(st CitationStatus) float64 {
	switch st.Status {
	case CitationUnresolved, CitationContradicted:
		return groundednessWeight(st.Citation.Kind)
	case CitationMismatched:
		return mismatchWeight
	case CitationResolved:
		return 0
	}
	return 0
}

// scoreRules is check_groundedness/6's combination: the hand-set weight of each claim's state.
func (g GroundednessScore) scoreRules() GroundednessScore {
	keep := 1.0
	failed := 0
	var worst *ClaimStatus
	for i := range g.Claims {
		cl := &g.Claims[i]
		w := claimWeight(cl.State)
		if cl.State == ClaimSupported && cl.ContextID != "" && !slices.Contains(g.CitedContextIDs, cl.ContextID) {
			g.CitedContextIDs = append(g.CitedContextIDs, cl.ContextID)
		}
		if w == 0 {
			continue
		}
		failed++
		keep *= 1 - w
		if worst == nil || w > claimWeight(worst.State) {
			worst = cl
		}
		g.Evidence = append(g.Evidence, Span{Start: cl.Start, End: cl.End, Text: cl.Text, Family: string(cl.State), Pattern: cl.Reason, Weight: w})
	}
	keep *= g.citeEvidence()
	failedCite := g.failedCitation()
	slices.SortStableFunc(g.Evidence, func(a, b Span) int { return a.Start - b.Start })
	g.Score = round3(1 - keep)
	g.Summary = summarizeGroundedness(g, failed, worst, failedCite)
	return g
}

// citeEvidence adds the failed citations to the evidence and the resolved ones to the cited
// items, and returns Π(1 − w) over the failed ones.
func (g *GroundednessScore) citeEvidence() float64 {
	keep := 1.0
	for _, st := range g.Statuses {
		w := citationWeight(st)
		if st.Status == CitationResolved && st.ContextID != "" && !slices.Contains(g.CitedContextIDs, st.ContextID) && st.Citation.Kind != CitationSource {
			g.CitedContextIDs = append(g.CitedContextIDs, st.ContextID)
		}
		if w == 0 {
			continue
		}
		keep *= 1 - w
		g.Evidence = append(g.Evidence, Span{Start: st.Citation.Start, End: st.Citation.End, Text: st.Citation.Text,
			Family: string(st.Status), Pattern: st.Reason, Weight: w})
	}
	return keep
}

// failedCitation is the first citation that fails, or nil.
func (g *GroundednessScore) failedCitation() *CitationStatus {
	for i, st := range g.Statuses {
		if citationWeight(st) > 0 {
			return &g.Statuses[i]
		}
	}
	return nil
}

func summarizeGroundedness(g GroundednessScore, failed int, worst *ClaimStatus, cite *CitationStatus) string {
	if len(g.Claims) == 0 && cite == nil {
		return "the response makes no factual claim"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d claims not supported", failed, len(g.Claims))
	switch {
	case worst != nil && worst.Score > 0 && worst.Score < claimFlagged:
		fmt.Fprintf(&b, "; weakest claim %q (score %.2f) reads as %s: %s", clipText(worst.Text, 160), worst.Score, worst.State, worst.Reason)
	case worst != nil && worst.Score > 0:
		fmt.Fprintf(&b, "; claim %q (score %.2f) is %s: %s", clipText(worst.Text, 160), worst.Score, worst.State, worst.Reason)
	case worst != nil:
		fmt.Fprintf(&b, "; claim %q is %s: %s", clipText(worst.Text, 160), worst.State, worst.Reason)
	}
	if cite != nil {
		fmt.Fprintf(&b, "; %s %q is %s: %s", cite.Citation.Kind, cite.Citation.Text, cite.Status, cite.Reason)
	}
	if len(g.CitedContextIDs) > 0 {
		fmt.Fprintf(&b, "; supported by %s", strings.Join(g.CitedContextIDs, ", "))
	}
	return b.String()
}

// clipText shortens s to at most n bytes on a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
