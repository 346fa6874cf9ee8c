package eval

// antonymPairs are words whose swap reverses what a statement says ("met the deadline" for
// "missed the deadline", "sales rose" for "sales fell", "registration is optional" for "is
// required"), each pair's two sides as their common forms. A claim that holds one side where
// the aligned statement holds the other says the opposite of it (check_groundedness/15): the
// word is aligned to its antonym, and the claim's polarity is reversed for the comparison, so
// "the deadline was not missed" still meets "the deadline was met".
//
// HEURISTIC: a small hand-written list of common, unambiguous pairs per language, not a parser.
// Left out on purpose: the pairs the lexicon already makes a negation cue and a permission
// word ("closed"/"open", "excluded"/"included", "rejected", "forbidden"), function words
// ("before"/"after", "more"/"less"), words whose other common sense is no opposite ("late" as
// "the late president", "free" beside "free of errors", "light" as a lamp), and words whose
// alignment key (stem's five-letter prefix) is also the key of common unrelated words:
// "optional" is "option", "public" is "publish", "valid" is "validate", "import" is
// "important", "perso" is "person". Even so a key can meet an unrelated word, so an antonym
// decides a claim only when the claim shares most of its other words with the statement too
// (opposedShared).
//
//nolint:misspell // words of other languages, not misspelt English
var antonymPairs = [][2][]string{
	// English
	{{"meet", "meets", "met"}, {"miss", "misses", "missed"}},
	{{"pass", "passes", "passed"}, {"fail", "fails", "failed", "failure", "failures"}},
	{{"succeed", "succeeds", "success", "successful", "successfully"}, {"fail", "fails", "failed", "failure", "unsuccessful"}},
	{{"win", "wins", "won"}, {"lose", "loses", "lost"}},
	{{"accept", "accepts", "accepted"}, {"decline", "declines", "declined"}},
	{{"rise", "rises", "rose", "risen", "raise", "raises", "raised", "increase", "increases", "increased", "grow", "grows", "grew", "grown"},
		{"fall", "falls", "fell", "fallen", "decrease", "decreases", "decreased", "drop", "drops", "dropped", "decline", "declines", "declined", "lowered", "shrink", "shrank"}},
	{{"profit", "profits", "gain", "gains", "gained"}, {"loss", "losses"}},
	{{"buy", "buys", "bought", "purchase", "purchased"}, {"sell", "sells", "sold"}},
	{{"begin", "begins", "start", "starts", "started"}, {"finish", "finishes", "finished", "end", "ends", "ended"}},
	{{"high", "higher", "highest"}, {"low", "lower", "lowest"}},
	{{"large", "larger", "largest", "big", "bigger", "biggest"}, {"small", "smaller", "smallest"}},
	{{"fast", "faster", "fastest"}, {"slow", "slower", "slowest"}},
	{{"cheap", "cheaper", "cheapest"}, {"expensive"}},
	{{"online"}, {"offline"}},
	{{"internal"}, {"external"}},
	{{"legal", "lawful"}, {"illegal", "unlawful"}},
	{{"safe"}, {"unsafe", "dangerous"}},
	{{"maximum"}, {"minimum"}},
	{{"hot"}, {"cold"}},
	// French
	{{"gagné", "gagne", "gagnent"}, {"perdu", "perd", "perdent"}},
	{{"réussi", "réussit"}, {"échoué", "échoue", "échec"}},
	{{"hausse", "augmente", "augmenté", "augmentation"}, {"baisse", "diminue", "diminué", "diminution"}},
	{{"acheté", "achète"}, {"vendu", "vend", "vendent"}},
	// Spanish and Portuguese
	{{"ganó", "gana", "ganhou", "ganha"}, {"perdió", "pierde", "perdido", "perdeu", "perde"}},
	{{"aprobó", "aprobado", "aprobada", "aprovado", "aprovada"}, {"suspendió", "suspendido", "suspendida"}},
	{{"subió", "aumentó", "aumento", "subiu", "aumentou"}, {"disminuyó", "descenso", "caiu", "diminuiu"}},
	{{"compró", "comprado", "comprou"}, {"vendió", "vendido", "vendeu"}},
	// German
	{{"gewonnen", "gewinnt", "gewann"}, {"verloren", "verliert", "verlor"}},
	{{"gestiegen", "steigt", "stieg"}, {"gesunken", "sinkt", "sank", "fällt", "fiel"}},
	{{"gekauft", "kauft", "kaufte"}, {"verkauft", "verkaufte"}},
	{{"pflicht", "verpflichtend"}, {"freiwillig"}},
	// Russian
	{{"выиграл", "выиграла", "выиграли"}, {"проиграл", "проиграла", "проиграли"}},
	{{"вырос", "выросла", "выросли", "выросло", "увеличился", "увеличилась"}, {"снизился", "снизилась", "снизились", "упал", "упала", "уменьшился", "уменьшилась"}},
	{{"купил", "купила", "купили"}, {"продал", "продала", "продали"}},
	{{"обязательный", "обязательная", "обязательно"}, {"необязательный", "необязательная", "необязательно", "добровольный"}},
	// Italian
	{{"vinto", "vince"}, {"perde"}},
	{{"obbligatorio", "obbligatoria"}, {"facoltativo", "facoltativa"}},
}

// antonymKeys maps each alignment key of antonymPairs to the keys of its opposites, with the
// synonym groups applied first (keys as stem makes them), so "purchased" meets "sold" through
// "buy". A key both of whose senses a list names on either side is left out (see
// TestAntonymKeysNeverOpposeThemselves).
func antonymKeys(synonyms map[string]string) map[string][]string {
	key := func(w string) string {
		k := stemWord(w)
		if s, ok := synonyms[k]; ok {
			return s
		}
		return k
	}
	out := map[string][]string{}
	link := func(a, b string) {
		if a == b {
			return
		}
		for _, k := range out[a] {
			if k == b {
				return
			}
		}
		out[a] = append(out[a], b)
	}
	for _, p := range antonymPairs {
		for _, a := range p[0] {
			ka := key(a)
			for _, b := range p[1] {
				kb := key(b)
				link(ka, kb)
				link(kb, ka)
			}
		}
	}
	return out
}
