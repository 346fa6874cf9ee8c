package eval

import "sync"

import "slices"

// FamilyAgentDirected marks text that no pattern matched but that, within one short window,
// combines several kinds of weak cue an injection is made of: it addresses an agent, talks about
// instructions or rules, shifts authority ("now", "instead", "no longer"), names something
// sensitive, and presses urgency. It is never decisive: its weight stops inside the ambiguous
// band, so such text goes to the judge instead of being passed as clearly benign. Unknown
// phrasings are the deterministic tier's blind spot; this is how they reach a model.
const FamilyAgentDirected = "agent_directed"

// Weak-cue settings. HEURISTIC: hand-set.
const (
	cueWindow         = 300  // bytes within which cues must co-occur
	cueMinKinds       = 3    // distinct kinds needed before the family fires
	cueWeightPerKind  = 0.1  // weight per distinct kind...
	cueMaxWeight      = 0.45 // ...capped below threshold+AmbiguousMargin for the usual 0.5 threshold
	maxCueOccurrences = 2048 // occurrences examined, bounding work on hostile input
)

// cueKinds lists, per kind, words whose presence is a weak cue. Matched as whole words.
var cueKinds = [][]string{
	{"the agent", "the assistant", "the ai", "the model", "ai:", "assistant:", "agent:", "whoever processes", "whoever reads",
		"dear assistant", "dear model", "llm", "language model", "chatbot", "your configuration", "your developers",
		"your operator", "you are an ai", "as an ai"},
	{"instructions", "instruction", "rules", "restrictions", "directives", "system prompt", "guidelines", "safety checks",
		"safety filters", "policy", "policies", "prompt"},
	{"disregard", "ignore", "forget", "override", "instead", "from now on", "no longer", "outdated", "updated",
		"authorised", "authorized", "you may now", "you must", "you are now", "real instruction", "actual instruction", "only follow"},
	{"password", "passwords", "api key", "api_key", "secret", "secrets", "confidential", "credentials", "token", "delete",
		"close all", "wire", "transfer", "location", "reveal", "access granted", "admin", "private"},
	{"important", "!!!", "attention", "urgent", "immediately", "p.s.", "note:"},
}

// cueTable flattens cueKinds for one-pass search, on first use: cueWords()[i] is of kind
// cueKindOf()[i].
var cueTable = sync.OnceValue(func() cueIndexed {
	words, kinds, finder := buildCueIndex()
	return cueIndexed{words, kinds, finder}
})

// cueIndexed is the built cue index, made on first use.
type cueIndexed struct {
	words  []string
	kindOf []int
	finder *multiIndex
}

func cueWords() []string     { return cueTable().words }
func cueKindOf() []int       { return cueTable().kindOf }
func cueFinder() *multiIndex { return cueTable().finder }

func buildCueIndex() ([]string, []int, *multiIndex) {
	var words []string
	var kinds []int
	for k, ws := range cueKinds {
		for _, w := range ws {
			words = append(words, w)
			kinds = append(kinds, k)
		}
	}
	return words, kinds, newMultiIndex(words)
}

// agentDirectedHit finds the window with the most distinct cue kinds.
func agentDirectedHit(n *Normalized) (hit, bool) {
	type occ struct{ pos, end, kind int }
	var occs []occ
	cueFinder().each(n.Text, func(wi, pos int) bool {
		w := cueWords()[wi]
		if containsWord(n.Text[max(0, pos-1):min(len(n.Text), pos+len(w)+2)], w) {
			occs = append(occs, occ{pos, pos + len(w), cueKindOf()[wi]})
		}
		return len(occs) < maxCueOccurrences
	})
	if len(occs) < cueMinKinds {
		return hit{}, false
	}
	slices.SortFunc(occs, func(a, b occ) int { return a.pos - b.pos })
	best, bs, be := 0, 0, 0
	for i := range occs {
		var seen [8]bool // more than len(cueKinds)
		kinds, end := 0, occs[i].end
		for j := i; j < len(occs) && occs[j].pos-occs[i].pos <= cueWindow; j++ {
			if !seen[occs[j].kind] {
				seen[occs[j].kind] = true
				kinds++
			}
			end = max(end, occs[j].end)
		}
		if kinds > best {
			best, bs, be = kinds, occs[i].pos, end
		}
	}
	if best < cueMinKinds {
		return hit{}, false
	}
	os, oe := n.OriginalSpan(bs, be)
	raw := min(cueMaxWeight, cueWeightPerKind*float64(best))
	quoted, cued := discussionContext(n.Text, bs, be)
	return hit{family: FamilyAgentDirected, name: "weak-cues", weight: raw * dampFactor(quoted, cued), raw: raw, quoted: quoted, cued: cued, start: os, end: oe}, true
}
