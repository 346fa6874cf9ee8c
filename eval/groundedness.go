package eval

import (
	"fmt"
	"slices"
	"strings"
)

// GroundednessMetricVersion is pinned in every check_groundedness verdict. Bump it whenever
// extraction, resolution or weights change.
const GroundednessMetricVersion = "check_groundedness/1"

// UncheckableScore is the groundedness score of a response with no checkable claim: exactly
// ambiguous, so a judge decides (or the verdict is warn without one).
const UncheckableScore = 0.5

// groundednessWeights: how strongly one failed citation indicates an ungrounded response.
// HEURISTIC: hand-set; a fabricated named reference is the strongest sign, a stray figure the
// weakest (it may be arithmetic on figures that are in the context).
var groundednessWeights = map[CitationKind]float64{
	CitationSource:    0.8,
	CitationReference: 0.8,
	CitationQuote:     0.7,
	CitationNumber:    0.45,
}

// mismatchWeight: a claim found, but in another item than the one it cites. contradictionWeight:
// a figure the context states differently for the same unit, a stronger sign than a figure the
// context does not mention at all (which may be arithmetic on the context's figures).
const (
	mismatchWeight      = 0.5
	contradictionWeight = 0.8
)

// GroundednessScore is the deterministic tier's result for one response.
type GroundednessScore struct {
	// Score in [0,1], 1 = ungrounded: 1 - Π(1 - w) over failed citations; 0 when every citation
	// resolves; UncheckableScore when there is none.
	Score           float64          `json:"score"`
	Statuses        []CitationStatus `json:"statuses"`
	Evidence        []Span           `json:"evidence,omitempty"` // the failed citations, in the response
	CitedContextIDs []string         `json:"citedContextIds,omitempty"`
	Summary         string           `json:"summary"`
}

// ScoreGroundedness is the deterministic tier of check_groundedness. It does not check for empty
// context (the Evaluator rejects that before running); with no items every claim is unresolved.
func ScoreGroundedness(in GroundednessInput) GroundednessScore {
	cites := in.Citations
	if cites == nil {
		cites = ExtractCitations(in.Response)
	}
	g := GroundednessScore{Statuses: ResolveCitations(cites, in.Context)}
	if len(cites) == 0 {
		g.Score = UncheckableScore
		g.Summary = "the response makes no checkable claim (no citation, reference, quote or figure)"
		return g
	}
	keep := 1.0
	failed := 0
	for _, st := range g.Statuses {
		if st.ContextID != "" && st.Status != CitationUnresolved && !slices.Contains(g.CitedContextIDs, st.ContextID) {
			g.CitedContextIDs = append(g.CitedContextIDs, st.ContextID)
		}
		w := 0.0
		switch st.Status {
		case CitationUnresolved:
			w = groundednessWeights[st.Citation.Kind]
		case CitationMismatched:
			w = mismatchWeight
		case CitationContradicted:
			w = contradictionWeight
		default:
			continue
		}
		failed++
		keep *= 1 - w
		g.Evidence = append(g.Evidence, Span{Start: st.Citation.Start, End: st.Citation.End, Text: st.Citation.Text,
			Family: string(st.Status), Pattern: st.Reason, Weight: w})
	}
	g.Score = round3(1 - keep)
	g.Summary = fmt.Sprintf("%d of %d citations failed to resolve", failed, len(cites))
	if len(g.CitedContextIDs) > 0 {
		g.Summary += fmt.Sprintf("; supported by %s", strings.Join(g.CitedContextIDs, ", "))
	}
	return g
}
