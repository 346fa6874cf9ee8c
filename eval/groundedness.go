package eval

import (
	"fmt"
	"slices"
	"strings"
)

// GroundednessMetricVersion is pinned in every check_groundedness verdict. Bump it whenever
// claim splitting, alignment, the lexicons, resolution or weights change.
const GroundednessMetricVersion = "check_groundedness/6"

// groundednessWeights: how strongly one failed citation indicates an ungrounded response.
// HEURISTIC: hand-set; a fabricated named reference is the strongest sign. Figures are checked
// claim by claim (claimWeight), not as citations.
var groundednessWeights = map[CitationKind]float64{
	CitationSource:    0.8,
	CitationReference: 0.8,
	CitationQuote:     0.7,
}

// mismatchWeight: a reference or quote found, but in another item than the one it cites.
const mismatchWeight = 0.5

// GroundednessScore is the deterministic tier's result for one response.
type GroundednessScore struct {
	// Score in [0,1], 1 = ungrounded: 1 - Π(1 - w) over the claims that are not supported and the
	// citations that do not resolve; 0 when everything is supported, and 0 when the response
	// makes no factual claim at all (an abstention, a greeting, nothing).
	Score           float64          `json:"score"`
	Claims          []ClaimStatus    `json:"claims,omitempty"`
	Statuses        []CitationStatus `json:"statuses,omitempty"`
	Evidence        []Span           `json:"evidence,omitempty"` // the failing claims and citations, in the response
	CitedContextIDs []string         `json:"citedContextIds,omitempty"`
	Summary         string           `json:"summary"`
}

// ScoreGroundedness is the deterministic tier of check_groundedness. Every claim (each clause
// that asserts something) is aligned with the context statements of the items it cites, or of all
// items when it cites none, and is supported only when the aligned statement says the same thing
// with the same polarity, the same figures and the current value. References, quotes and source
// markers are resolved as citations besides. It does not check for empty context (the Evaluator
// rejects that before running).
func ScoreGroundedness(in GroundednessInput) GroundednessScore {
	var g GroundednessScore
	cites := in.Citations
	if cites == nil {
		cites = ExtractCitations(in.Response)
	}
	cites = slices.DeleteFunc(slices.Clone(cites), func(c Citation) bool { return c.Kind == CitationNumber })
	g.Statuses = ResolveCitations(cites, in.Context)
	ix := indexContext(in.Context)
	for _, c := range extractClaims(in.Response, in.Context) {
		g.Claims = append(g.Claims, ix.checkClaim(&c))
	}
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
	var failedCite *CitationStatus
	for i, st := range g.Statuses {
		w := 0.0
		switch st.Status {
		case CitationUnresolved:
			w = groundednessWeights[st.Citation.Kind]
		case CitationMismatched:
			w = mismatchWeight
		case CitationContradicted:
			w = groundednessWeights[st.Citation.Kind]
		case CitationResolved:
			if st.ContextID != "" && !slices.Contains(g.CitedContextIDs, st.ContextID) && st.Citation.Kind != CitationSource {
				g.CitedContextIDs = append(g.CitedContextIDs, st.ContextID)
			}
		}
		if w == 0 {
			continue
		}
		keep *= 1 - w
		if failedCite == nil {
			failedCite = &g.Statuses[i]
		}
		g.Evidence = append(g.Evidence, Span{Start: st.Citation.Start, End: st.Citation.End, Text: st.Citation.Text,
			Family: string(st.Status), Pattern: st.Reason, Weight: w})
	}
	slices.SortStableFunc(g.Evidence, func(a, b Span) int { return a.Start - b.Start })
	g.Score = round3(1 - keep)
	g.Summary = summarizeGroundedness(g, failed, worst, failedCite)
	return g
}

func summarizeGroundedness(g GroundednessScore, failed int, worst *ClaimStatus, cite *CitationStatus) string {
	if len(g.Claims) == 0 && cite == nil {
		return "the response makes no factual claim"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d claims not supported", failed, len(g.Claims))
	if worst != nil {
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
